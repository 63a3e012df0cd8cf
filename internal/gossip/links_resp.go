package gossip

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// ErrMalformedReply is returned by parseReply for bytes that are not exactly
// one RESP2 reply; on a link it means the reply stream is out of step, so
// the link fails.
var ErrMalformedReply = errors.New("gossip: malformed RESP2 reply")

// maxReplyDepth bounds the nesting of arrays parseReply accepts.
const maxReplyDepth = 64

// parseReply decodes b, which must hold exactly one RESP2 reply (go-redis
// reads them whole with redis.RawCmd), into a monitor.Reply: status and bulk
// strings become ReplyString, error replies ReplyError with their full text
// (code included), integers ReplyInt, nil bulks and nil arrays ReplyNil, and
// arrays ReplyArray, recursively (an error inside an array is a ReplyError
// element).
func parseReply(b []byte) (monitor.Reply, error) {
	r, rest, err := parseOne(b, 0)
	if err != nil {
		return monitor.Reply{}, err
	}
	if len(rest) != 0 {
		return monitor.Reply{}, fmt.Errorf("%w: %d bytes after the reply", ErrMalformedReply, len(rest))
	}
	return r, nil
}

// parseOne decodes the reply at the start of b and returns the bytes after it.
func parseOne(b []byte, depth int) (monitor.Reply, []byte, error) {
	line, rest, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok || len(line) == 0 {
		return monitor.Reply{}, nil, fmt.Errorf("%w: incomplete or empty line", ErrMalformedReply)
	}
	body := string(line[1:])
	switch line[0] {
	case '+':
		return monitor.Reply{Kind: monitor.ReplyString, Str: body}, rest, nil
	case '-':
		return monitor.Reply{Kind: monitor.ReplyError, Str: body}, rest, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return monitor.Reply{}, nil, fmt.Errorf("%w: integer %q", ErrMalformedReply, body)
		}
		return monitor.Reply{Kind: monitor.ReplyInt, Int: n}, rest, nil
	case '$':
		n, err := replyLen(body)
		if err != nil {
			return monitor.Reply{}, nil, err
		}
		if n < 0 {
			return monitor.Reply{Kind: monitor.ReplyNil}, rest, nil
		}
		if n > len(rest)-2 || rest[n] != '\r' || rest[n+1] != '\n' {
			return monitor.Reply{}, nil, fmt.Errorf("%w: bulk string shorter than %d bytes", ErrMalformedReply, n)
		}
		return monitor.Reply{Kind: monitor.ReplyString, Str: string(rest[:n])}, rest[n+2:], nil
	case '*':
		n, err := replyLen(body)
		if err != nil {
			return monitor.Reply{}, nil, err
		}
		if n < 0 {
			return monitor.Reply{Kind: monitor.ReplyNil}, rest, nil
		}
		if depth >= maxReplyDepth {
			return monitor.Reply{}, nil, fmt.Errorf("%w: arrays nested deeper than %d", ErrMalformedReply, maxReplyDepth)
		}
		// Every element takes at least 4 bytes (":0\r\n").
		elems := make([]monitor.Reply, 0, min(n, len(rest)/4))
		for range n {
			var e monitor.Reply
			e, rest, err = parseOne(rest, depth+1)
			if err != nil {
				return monitor.Reply{}, nil, err
			}
			elems = append(elems, e)
		}
		return monitor.Reply{Kind: monitor.ReplyArray, Elems: elems}, rest, nil
	default:
		return monitor.Reply{}, nil, fmt.Errorf("%w: unknown type byte %q", ErrMalformedReply, line[0])
	}
}

// replyLen parses the length of a bulk string or array: -1 (nil) or more.
func replyLen(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < -1 {
		return 0, fmt.Errorf("%w: length %q", ErrMalformedReply, s)
	}
	return n, nil
}
