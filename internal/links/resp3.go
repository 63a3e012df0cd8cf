package links

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// parseReply3 decodes the reply at the start of b as parseReply does, and
// also takes the types RESP3 adds (a connection that answered HELLO 3),
// each given to the core as the reply RESP2 would have carried, so that
// the core sees the same replies over one protocol or the other:
//
//   - a null `_` is ReplyNil; a boolean `#t`/`#f` is ReplyInt 1/0 (Redis's
//     RESP2 booleans);
//   - a double `,` and a big number `(` are ReplyString with their text (a
//     RESP2 bulk string);
//   - a verbatim string `=` is ReplyString without its "txt:" format
//     prefix; a blob error `!` is ReplyError;
//   - a map `%` is the array of its keys and values in turn, a set `~` and
//     a push `>` are arrays (the link routes a push before parsing: see
//     consume);
//   - an attribute `|` is skipped: the reply is what follows it.
func parseReply3(b []byte) (msg.Reply, int, error) { return parseProto(b, true) }

// decodeResp3 decodes a reply of one of RESP3's own types (see parseReply3)
// whose first line was kind and body.
func decodeResp3(src replySource, kind byte, body []byte, depth int) (msg.Reply, error) {
	switch kind {
	case '_':
		if len(body) != 0 {
			return msg.Reply{}, fmt.Errorf("%w: null %q", ErrMalformedReply, body)
		}
		return msg.Reply{Kind: msg.ReplyNil}, nil
	case '#':
		switch string(body) {
		case "t":
			return msg.Reply{Kind: msg.ReplyInt, Int: 1}, nil
		case "f":
			return msg.Reply{Kind: msg.ReplyInt, Int: 0}, nil
		}
		return msg.Reply{}, fmt.Errorf("%w: boolean %q", ErrMalformedReply, body)
	case ',', '(':
		return msg.Reply{Kind: msg.ReplyString, Str: string(body)}, nil
	case '=', '!':
		n, err := replyLen(body)
		if err != nil {
			return msg.Reply{}, err
		}
		if n < 0 {
			return msg.Reply{}, fmt.Errorf("%w: length %q", ErrMalformedReply, body)
		}
		b, err := src.bulk(n)
		if err != nil {
			return msg.Reply{}, err
		}
		if kind == '!' {
			return msg.Reply{Kind: msg.ReplyError, Str: b}, nil
		}
		if len(b) < 4 || b[3] != ':' {
			return msg.Reply{}, fmt.Errorf("%w: verbatim string without its format", ErrMalformedReply)
		}
		return msg.Reply{Kind: msg.ReplyString, Str: b[4:]}, nil
	case '%', '~', '>', '|':
		n, err := replyLen(body)
		if err != nil {
			return msg.Reply{}, err
		}
		if n < 0 {
			return msg.Reply{}, fmt.Errorf("%w: length %q", ErrMalformedReply, body)
		}
		if depth >= maxReplyDepth {
			return msg.Reply{}, fmt.Errorf("%w: aggregates nested deeper than %d", ErrMalformedReply, maxReplyDepth)
		}
		if kind == '%' || kind == '|' {
			if n > maxLen/2 {
				return msg.Reply{}, fmt.Errorf("%w: length %q", ErrMalformedReply, body)
			}
			n *= 2
		}
		elems, err := decodeElems(src, n, depth)
		if err != nil {
			return msg.Reply{}, err
		}
		if kind == '|' {
			return decodeReply(src, depth)
		}
		return msg.Reply{Kind: msg.ReplyArray, Elems: elems}, nil
	default:
		return msg.Reply{}, fmt.Errorf("%w: unknown type byte %q", ErrMalformedReply, kind)
	}
}
