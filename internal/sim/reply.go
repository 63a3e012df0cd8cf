package sim

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// Constructors for the replies the modelled servers send.

func status(s string) msg.Reply   { return msg.Reply{Kind: msg.ReplyString, Str: s} }
func bulk(s string) msg.Reply     { return msg.Reply{Kind: msg.ReplyString, Str: s} }
func errReply(s string) msg.Reply { return msg.Reply{Kind: msg.ReplyError, Str: s} }
func intReply(v int64) msg.Reply  { return msg.Reply{Kind: msg.ReplyInt, Int: v} }

func arrayReply(elems ...msg.Reply) msg.Reply {
	return msg.Reply{Kind: msg.ReplyArray, Elems: elems}
}

// traceReply renders a reply in one short line: +PONG, -ERR ..., :1,
// $INFO(123 bytes) for long strings, *[...] for arrays.
func traceReply(r msg.Reply) string {
	switch r.Kind {
	case msg.ReplyString:
		if len(r.Str) > 64 || strings.ContainsAny(r.Str, "\r\n") {
			return "$(" + strconv.Itoa(len(r.Str)) + " bytes)"
		}
		return "+" + r.Str
	case msg.ReplyError:
		return "-" + r.Str
	case msg.ReplyInt:
		return ":" + strconv.FormatInt(r.Int, 10)
	case msg.ReplyNil:
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
