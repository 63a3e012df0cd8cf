package config

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// RedisVersion is the version Error messages claim, the one go-sentinel is
// a drop-in replacement for.
const RedisVersion = "7.0.15"

// Error is a fatal configuration error. Line is 1-based and counts the lines
// of the file followed by the lines made from the command-line arguments, as
// Redis does; Line is 0 for errors not tied to a line (for instance the log
// file check). Text is the offending line, trimmed. Msg is Redis' message.
// Err, when not nil, is the underlying cause (an *os.PathError, ...).
type Error struct {
	File string
	Line int
	Text string
	Msg  string
	Err  error
	// State: the line is in the state-config-file File, which the
	// message names (Redis has no such file).
	State bool
	// Logfile is the absolute path of the log file the configuration
	// names, set only for errors found once every line was read (a
	// state-config-file naming the config file itself); the daemon
	// appends the message there as well as to stderr, as Valkey's
	// state-config-file proposal does. "" for every other error.
	Logfile string
}

// Error returns the block Redis prints on stderr before exiting:
// "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the
// configuration file, at line <n>\n>>> '<line>'\n<msg>\n". The two middle
// lines are left out when Line is 0.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\n", RedisVersion)
	if e.Line > 0 && e.State {
		fmt.Fprintf(&b, "Reading the state-config-file '%s', at line %d\n", e.File, e.Line)
		fmt.Fprintf(&b, ">>> '%s'\n", e.Text)
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "Reading the configuration file, at line %d\n", e.Line)
		fmt.Fprintf(&b, ">>> '%s'\n", e.Text)
	}
	b.WriteString(e.Msg)
	b.WriteByte('\n')
	return b.String()
}

// Position returns "<file>:<line>" (or just the file when Line is 0), for
// messages in the usual compiler style.
func (e *Error) Position() string {
	if e.Line == 0 {
		return e.File
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// strerror returns the C library text of the errno inside err (for
// instance "No such file or directory"), or err's own text when it carries
// no errno.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
		return s
	}
	return err.Error()
}
