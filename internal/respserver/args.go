package respserver

import (
	"fmt"
	"strconv"
	"strings"
)

// errIntArg is Redis's reply to an argument that is not a 64-bit integer
// in its strict syntax.
const errIntArg = Err("ERR value is not an integer or out of range")

// parseLongLong parses s as Redis's string2ll does: an optional minus,
// no plus sign, no leading zeros, no spaces, within int64.
func parseLongLong(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	d := strings.TrimPrefix(s, "-")
	if d == "" || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// stringArgs converts a command line to strings.
func stringArgs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// subcommandSyntaxError is Redis's reply to a known subcommand given a
// number of arguments its handler does not take.
func subcommandSyntaxError(x *ctx) Value {
	sub := x.arg(1)
	if len(sub) > 128 {
		sub = sub[:128]
	}
	return Err(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP.", sub, strings.ToUpper(x.arg(0))))
}
