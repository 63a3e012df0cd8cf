package links

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// ErrMalformedReply is returned by parseReply for bytes that
// are not a RESP2 reply; on a link it means the reply stream is out of
// step, so the link fails.
var ErrMalformedReply = errors.New("links: malformed RESP2 reply")

// maxReplyDepth bounds the nesting of arrays a reply may have.
const maxReplyDepth = 64

// maxLineLen bounds a reply's header line (a status, error or integer
// reply, or a length) read from a stream.
const maxLineLen = 64 * 1024

// parseReply decodes the RESP2 reply at the start of b into a
// monitor.Reply: status and bulk strings become ReplyString, error replies
// ReplyError with their full text (code included), integers ReplyInt, nil
// bulks and nil arrays ReplyNil, and arrays ReplyArray, recursively (an
// error inside an array is a ReplyError element). It returns how many
// bytes the reply took, errIncomplete when b holds only its start, and
// ErrMalformedReply for bytes that are not RESP2.
func parseReply(b []byte) (msg.Reply, int, error) {
	return parseProto(b, false)
}

// parseProto is parseReply, or, with resp3, parseReply3.
func parseProto(b []byte, resp3 bool) (msg.Reply, int, error) {
	src := &chunkSource{b: b, proto: resp3}
	r, err := decodeReply(src, 0)
	if err != nil {
		return msg.Reply{}, 0, err
	}
	return r, src.off, nil
}

// replySource yields the parts of a RESP2 reply.
type replySource interface {
	// line returns the next line without its CRLF; the bytes are valid
	// until the next call.
	line() ([]byte, error)
	// bulk returns the next n bytes as a string and consumes the CRLF
	// after them.
	bulk(n int) (string, error)
	// maxElems bounds the capacity to reserve for an array of n elements.
	maxElems(n int) int
	// resp3 reports whether RESP3's types are taken (decodeResp3).
	resp3() bool
}

// decodeReply decodes the next reply of src.
func decodeReply(src replySource, depth int) (msg.Reply, error) {
	line, err := src.line()
	if err != nil {
		return msg.Reply{}, err
	}
	if len(line) == 0 {
		return msg.Reply{}, fmt.Errorf("%w: empty line", ErrMalformedReply)
	}
	kind, body := line[0], line[1:]
	switch kind {
	case '+':
		return msg.Reply{Kind: msg.ReplyString, Str: string(body)}, nil
	case '-':
		return msg.Reply{Kind: msg.ReplyError, Str: string(body)}, nil
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return msg.Reply{}, fmt.Errorf("%w: integer %q", ErrMalformedReply, body)
		}
		return msg.Reply{Kind: msg.ReplyInt, Int: n}, nil
	case '$':
		n, err := replyLen(body)
		if err != nil {
			return msg.Reply{}, err
		}
		if n < 0 {
			return msg.Reply{Kind: msg.ReplyNil}, nil
		}
		b, err := src.bulk(n)
		if err != nil {
			return msg.Reply{}, err
		}
		return msg.Reply{Kind: msg.ReplyString, Str: b}, nil
	case '*':
		n, err := replyLen(body)
		if err != nil {
			return msg.Reply{}, err
		}
		if n < 0 {
			return msg.Reply{Kind: msg.ReplyNil}, nil
		}
		if depth >= maxReplyDepth {
			return msg.Reply{}, fmt.Errorf("%w: arrays nested deeper than %d", ErrMalformedReply, maxReplyDepth)
		}
		elems, err := decodeElems(src, n, depth)
		if err != nil {
			return msg.Reply{}, err
		}
		return msg.Reply{Kind: msg.ReplyArray, Elems: elems}, nil
	default:
		if src.resp3() {
			return decodeResp3(src, kind, body, depth)
		}
		return msg.Reply{}, fmt.Errorf("%w: unknown type byte %q", ErrMalformedReply, kind)
	}
}

// maxLen bounds the length of a bulk string or array (Redis's own bulk
// limit is 512 MiB).
const maxLen = 1 << 30

// replyLen parses the length of a bulk string or array: -1 (nil) or a
// decimal number up to maxLen.
func replyLen(b []byte) (int, error) {
	if len(b) == 2 && b[0] == '-' && b[1] == '1' {
		return -1, nil
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n > maxLen {
			return 0, fmt.Errorf("%w: length %q", ErrMalformedReply, b)
		}
		n = n*10 + int(c-'0')
	}
	if len(b) == 0 || n > maxLen {
		return 0, fmt.Errorf("%w: length %q", ErrMalformedReply, b)
	}
	return n, nil
}

// chunkSource reads a reply from the bytes read so far.
type chunkSource struct {
	b     []byte
	off   int
	proto bool // RESP3's types are taken
}

func (s *chunkSource) resp3() bool { return s.proto }

func (s *chunkSource) line() ([]byte, error) {
	rest := s.b[s.off:]
	k := bytes.IndexByte(rest, '\n')
	if k < 0 {
		if len(rest) > maxLineLen {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrMalformedReply, maxLineLen)
		}
		return nil, errIncomplete
	}
	if k > maxLineLen {
		return nil, fmt.Errorf("%w: line longer than %d bytes", ErrMalformedReply, maxLineLen)
	}
	if k < 1 || rest[k-1] != '\r' {
		return nil, fmt.Errorf("%w: line not ended by CRLF", ErrMalformedReply)
	}
	s.off += k + 1
	return rest[:k-1], nil
}

func (s *chunkSource) bulk(n int) (string, error) {
	rest := s.b[s.off:]
	if len(rest) < n+2 {
		return "", errIncomplete
	}
	if rest[n] != '\r' || rest[n+1] != '\n' {
		return "", fmt.Errorf("%w: bulk string not ended by CRLF", ErrMalformedReply)
	}
	s.off += n + 2
	return string(rest[:n]), nil
}

// maxElems: every element takes at least 4 bytes (":0\r\n").
func (s *chunkSource) maxElems(n int) int { return min(n, (len(s.b)-s.off)/4) }

// decodeElems decodes the n elements of an aggregate reply at depth.
func decodeElems(src replySource, n int, depth int) ([]msg.Reply, error) {
	elems := make([]msg.Reply, 0, src.maxElems(n))
	for range n {
		e, err := decodeReply(src, depth+1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	return elems, nil
}
