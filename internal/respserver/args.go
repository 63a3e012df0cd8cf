package respserver

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/cnum"
)

// errIntArg is Redis's reply to an argument that is not a 64-bit integer
// in its strict syntax.
const errIntArg = Err("ERR value is not an integer or out of range")

// parseLongLong parses s as Redis's string2ll does (cnum.ParseLongLong).
func parseLongLong(s string) (int64, bool) { return cnum.ParseLongLong(s) }

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
