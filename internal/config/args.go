package config

import (
	"errors"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// ErrStdinConfig is returned by ArgsToLines for a lone "-" as the last
// argument: redis-server reads more configuration from standard input
// then, which go-sentinel does not support.
var ErrStdinConfig = errors.New("reading the configuration from standard input (\"-\") is not supported")

// ArgsToLines turns the command-line arguments that follow the config file
// into configuration lines, with redis-server's rules: an argument starting
// with "--" starts a new directive (its words are kept as written, so
// "--port 26380" as one argument works too); every other argument is a
// value, appended quoted (splitargs.Repr) so it round-trips through splitargs.Split.
// "--sentinel" and "--save" without a value are allowed before another
// "--" option ("--save" then gets the value ""). Each line ends with "\n";
// the result is "" for no arguments.
//
// For example "--port 26380 --sentinel" gives "port \"26380\"\nsentinel\n".
func ArgsToLines(args []string) (string, error) {
	if len(args) > 0 && args[len(args)-1] == "-" {
		return "", ErrStdinConfig
	}
	var lines []string
	var cur strings.Builder
	started := false
	flush := func() {
		if started {
			lines = append(lines, strings.TrimRight(cur.String(), " "))
			cur.Reset()
		}
	}
	handledLast := true
	last := len(args) - 1
	for j, a := range args {
		if handledLast && strings.HasPrefix(a, "--") {
			flush()
			started = true
			cur.WriteString(a[2:])
			cur.WriteByte(' ')
			words, err := splitargs.Split(a)
			if err == nil && len(words) == 1 {
				// Only the option name: its value is the next argument.
				handledLast = false
				nextIsOption := j != last && strings.HasPrefix(args[j+1], "--")
				switch {
				case nextIsOption && strings.EqualFold(a, "--save"):
					cur.WriteString(`""`)
					handledLast = true
				case j == last && strings.EqualFold(a, "--save"):
					cur.WriteString(`""`)
				case nextIsOption && strings.EqualFold(a, "--sentinel"):
					handledLast = true
				}
			} else {
				handledLast = true
			}
			continue
		}
		started = true
		cur.WriteString(splitargs.Repr(a))
		cur.WriteByte(' ')
		handledLast = true
	}
	flush()
	if len(lines) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n") + "\n", nil
}
