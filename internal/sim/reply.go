package sim

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// Constructors for the replies the modelled servers send.

func status(s string) monitor.Reply   { return monitor.Reply{Kind: monitor.ReplyString, Str: s} }
func bulk(s string) monitor.Reply     { return monitor.Reply{Kind: monitor.ReplyString, Str: s} }
func errReply(s string) monitor.Reply { return monitor.Reply{Kind: monitor.ReplyError, Str: s} }
func intReply(v int64) monitor.Reply  { return monitor.Reply{Kind: monitor.ReplyInt, Int: v} }

func arrayReply(elems ...monitor.Reply) monitor.Reply {
	return monitor.Reply{Kind: monitor.ReplyArray, Elems: elems}
}

// traceReply renders a reply in one short line: +PONG, -ERR ..., :1,
// $INFO(123 bytes) for long strings, *[...] for arrays.
func traceReply(r monitor.Reply) string {
	switch r.Kind {
	case monitor.ReplyString:
		if len(r.Str) > 64 || strings.ContainsAny(r.Str, "\r\n") {
			return "$(" + strconv.Itoa(len(r.Str)) + " bytes)"
		}
		return "+" + r.Str
	case monitor.ReplyError:
		return "-" + r.Str
	case monitor.ReplyInt:
		return ":" + strconv.FormatInt(r.Int, 10)
	case monitor.ReplyNil:
		return "(nil)"
	default:
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = traceReply(e)
		}
		return "*[" + strings.Join(parts, " ") + "]"
	}
}

// traceArgs renders a command as its words separated by spaces.
func traceArgs(args []string) string { return strings.Join(args, " ") }
