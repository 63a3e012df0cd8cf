package respserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/cnum"
	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/glob"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// SENTINEL HELP's CONFIG lines on each surface.
const (
	helpConfigSet70 = "CONFIG SET <param> <value>"
	helpConfigGet70 = "CONFIG GET <param>"
	helpConfigSet72 = "CONFIG SET param value [param value ...]"
	helpConfigGet72 = "CONFIG GET <param> [param param param ...]"
)

// The replies to a SENTINEL CONFIG line of neither form, on each surface
// (Redis 7.0.15's, and Redis 7.4's and Valkey 8's).
const (
	configShape70 = "ERR Only SENTINEL CONFIG GET <option> / SET <option> <value> are supported."
	configShape72 = "ERR Only SENTINEL CONFIG GET <param> [<param> <param> ...] / SET <param> <value> [<param> <value> ...] are supported."
)

// paramLoglevel is the process's setting SENTINEL CONFIG GET/SET reaches
// on Surface72 beside the core's parameters.
const paramLoglevel = "loglevel"

// configParams are SENTINEL CONFIG's parameters on Surface72 in reply
// order: the core's (monitor.Sentinel.ConfigGet's order), then loglevel.
var configParams = []string{"resolve-hostnames", "announce-hostnames", "announce-ip", "announce-port",
	"sentinel-user", "sentinel-pass", paramLoglevel}

// logLevels are the values SENTINEL CONFIG SET loglevel takes.
var logLevels = []string{"debug", "verbose", "notice", "warning", "nothing"}

// cmdSentinelConfig is SENTINEL CONFIG GET and SET. On Surface70 each
// takes one parameter and loglevel is none, as in Redis 7.0.15; on
// Surface72 they take several and loglevel is one, as in Redis 7.2 and
// later and Valkey 8 and 9 (the arity, -4 there, is checked before).
func cmdSentinelConfig(x *ctx) Value {
	sf := x.srv.opts.Surface
	args := stringArgs(x.args[3:])
	sub := strings.ToLower(x.arg(2))
	if sf < commands.Surface72 {
		switch {
		case sub == "get" && len(x.args) == 4:
			return x.configGet(args, false)
		case sub == "set" && len(x.args) == 5:
			return x.configSet(args, false)
		}
		return Err(configShape70)
	}
	switch {
	case sub == "get" && len(x.args) >= 4:
		return x.configGet(args, true)
	case sub == "set" && len(x.args) >= 5:
		return x.configSet(args, true)
	}
	return Err(configShape72)
}

// configGet answers SENTINEL CONFIG GET patterns: for each pattern in
// turn, the parameters it matches (case-insensitive glob) that no earlier
// pattern matched, in the fixed order, as Redis 7.2's loop does (with one
// pattern, Redis 7.0's reply). loglevel is a parameter only when
// withLoglevel.
func (x *ctx) configGet(patterns []string, withLoglevel bool) Value {
	var kv []view.KV
	if _, ev := x.exec(func(core monitor.Handle, _ time.Time) { kv = core.ConfigGet([]string{"*"}) }); ev != nil {
		return ev
	}
	values := make(map[string]string, len(kv)+1)
	for _, f := range kv {
		values[f.Key] = f.Value
	}
	if withLoglevel {
		values[paramLoglevel] = x.srv.opts.Backend.LogLevel()
	}
	seen := map[string]bool{}
	out := Map{}
	for _, pat := range patterns {
		for _, p := range configParams {
			v, ok := values[p]
			if !ok || seen[p] || !glob.Match(pat, p, true) {
				continue
			}
			seen[p] = true
			out = append(out, Bulk(p), Bulk(v))
		}
	}
	return out
}

// configSet applies SENTINEL CONFIG SET pairs. Every pair is checked
// first, left to right, with Redis 7.2's checks in its order (a known
// parameter, not given twice, with a value, a valid value); then
// loglevel, a process setting, is applied together with the core's
// parameters and the config is saved. On Surface70 (one pair) loglevel
// is an unknown parameter.
func (x *ctx) configSet(args []string, withLoglevel bool) Value {
	seen := map[string]bool{}
	var rest []string
	level := ""
	for j := 0; j < len(args); j += 2 {
		p := strings.ToLower(args[j])
		known := false
		for _, q := range configParams {
			known = known || (q == p && (withLoglevel || q != paramLoglevel))
		}
		if !known {
			return Err(fmt.Sprintf("ERR Invalid argument '%s' to SENTINEL CONFIG SET", args[j]))
		}
		if seen[p] {
			return Err(fmt.Sprintf("ERR Duplicate argument '%s' to SENTINEL CONFIG SET", args[j]))
		}
		seen[p] = true
		if j+1 == len(args) {
			return Err(fmt.Sprintf("ERR Missing argument '%s' value", args[j]))
		}
		if !validConfigValue(p, args[j+1]) {
			return Err(fmt.Sprintf("ERR Invalid value '%s' to SENTINEL CONFIG SET '%s'", args[j+1], args[j]))
		}
		if p == paramLoglevel {
			level = strings.ToLower(args[j+1])
			continue
		}
		rest = append(rest, args[j], args[j+1])
	}
	// One input: the core's parameters (ConfigSet persists), or, for
	// loglevel alone, a config rewrite (FlushConfig).
	var in msg.Input = msg.FlushConfig{}
	if len(rest) > 0 {
		in = msg.ConfigSet{Args: rest}
	}
	out, ev := x.run(func(core monitor.Handle, now time.Time) error {
		if _, err := core.Step(now, in); err != nil {
			return err
		}
		if level != "" {
			// The loglevel is the process's (adapter state), not the
			// core's: it changes here, on the core's loop, after a
			// successful Step and before the rewrite the Step asked
			// for is carried out (after Exec's fn), so that the file
			// holds it.
			x.srv.opts.Backend.SetLogLevel(level)
		}
		return nil
	})
	if ev != nil {
		return ev
	}
	return saved(out)
}

// validConfigValue reports whether v is a valid value of the SENTINEL
// CONFIG parameter p (lower-case), with Redis's checks: yes or no
// (yesnotoi), a port from 0 to 65535 (getLongLongFromObject), a log
// level; any string for the others.
func validConfigValue(p, v string) bool {
	switch p {
	case "resolve-hostnames", "announce-hostnames":
		return strings.EqualFold(v, "yes") || strings.EqualFold(v, "no")
	case "announce-port":
		n, ok := cnum.ParseLongLong(v)
		return ok && n >= 0 && n <= 65535
	case paramLoglevel:
		for _, l := range logLevels {
			if strings.EqualFold(l, v) {
				return true
			}
		}
		return false
	}
	return true
}
