package links

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// ErrMalformedReply is returned by parseReply and readReply for bytes that
// are not a RESP2 reply; on a link it means the reply stream is out of
// step, so the link fails.
var ErrMalformedReply = errors.New("links: malformed RESP2 reply")

// maxReplyDepth bounds the nesting of arrays a reply may have.
const maxReplyDepth = 64

// maxLineLen bounds a reply's header line (a status, error or integer
// reply, or a length) read from a stream.
const maxLineLen = 64 * 1024

// readReply reads one RESP2 reply from rd and decodes it into a
// monitor.Reply: status and bulk strings become ReplyString, error replies
// ReplyError with their full text (code included), integers ReplyInt, nil
// bulks and nil arrays ReplyNil, and arrays ReplyArray, recursively (an
// error inside an array is a ReplyError element). An I/O error is
// returned as is; bytes that are not RESP2 give ErrMalformedReply.
func readReply(rd *bufio.Reader) (monitor.Reply, error) {
	return decodeReply(streamSource{rd}, 0)
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
}

// decodeReply decodes the next reply of src.
func decodeReply(src replySource, depth int) (monitor.Reply, error) {
	line, err := src.line()
	if err != nil {
		return monitor.Reply{}, err
	}
	if len(line) == 0 {
		return monitor.Reply{}, fmt.Errorf("%w: empty line", ErrMalformedReply)
	}
	kind, body := line[0], line[1:]
	switch kind {
	case '+':
		return monitor.Reply{Kind: monitor.ReplyString, Str: string(body)}, nil
	case '-':
		return monitor.Reply{Kind: monitor.ReplyError, Str: string(body)}, nil
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return monitor.Reply{}, fmt.Errorf("%w: integer %q", ErrMalformedReply, body)
		}
		return monitor.Reply{Kind: monitor.ReplyInt, Int: n}, nil
	case '$':
		n, err := replyLen(body)
		if err != nil {
			return monitor.Reply{}, err
		}
		if n < 0 {
			return monitor.Reply{Kind: monitor.ReplyNil}, nil
		}
		b, err := src.bulk(n)
		if err != nil {
			return monitor.Reply{}, err
		}
		return monitor.Reply{Kind: monitor.ReplyString, Str: b}, nil
	case '*':
		n, err := replyLen(body)
		if err != nil {
			return monitor.Reply{}, err
		}
		if n < 0 {
			return monitor.Reply{Kind: monitor.ReplyNil}, nil
		}
		if depth >= maxReplyDepth {
			return monitor.Reply{}, fmt.Errorf("%w: arrays nested deeper than %d", ErrMalformedReply, maxReplyDepth)
		}
		elems := make([]monitor.Reply, 0, src.maxElems(n))
		for range n {
			e, err := decodeReply(src, depth+1)
			if err != nil {
				return monitor.Reply{}, err
			}
			elems = append(elems, e)
		}
		return monitor.Reply{Kind: monitor.ReplyArray, Elems: elems}, nil
	default:
		return monitor.Reply{}, fmt.Errorf("%w: unknown type byte %q", ErrMalformedReply, kind)
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

// streamSource reads a reply from a connection.
type streamSource struct{ rd *bufio.Reader }

func (s streamSource) line() ([]byte, error) {
	line, err := s.rd.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		// A line longer than the buffer: gather it (bounded).
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLineLen {
			line, err = s.rd.ReadSlice('\n')
			long = append(long, line...)
		}
		if err == nil && len(long) > maxLineLen {
			err = fmt.Errorf("%w: line longer than %d bytes", ErrMalformedReply, maxLineLen)
		}
		line = long
	}
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			err = fmt.Errorf("%w: line longer than %d bytes", ErrMalformedReply, maxLineLen)
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line not ended by CRLF", ErrMalformedReply)
	}
	return line[:len(line)-2], nil
}

func (s streamSource) bulk(n int) (string, error) {
	if n+2 <= s.rd.Size() {
		// Fits the buffer: one copy, into the string.
		b, err := s.rd.Peek(n + 2)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		if b[n] != '\r' || b[n+1] != '\n' {
			return "", fmt.Errorf("%w: bulk string not ended by CRLF", ErrMalformedReply)
		}
		str := string(b[:n])
		_, _ = s.rd.Discard(n + 2)
		return str, nil
	}
	// Up to 64 KiB at once; beyond, as the bytes arrive, so that a wrong
	// length does not make one huge allocation.
	b := make([]byte, 0, min(n+2, 64*1024))
	for len(b) < n+2 {
		k := min(n+2-len(b), 64*1024)
		if cap(b)-len(b) < k {
			b = slices.Grow(b, k)
		}
		if _, err := io.ReadFull(s.rd, b[len(b):len(b)+k]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		b = b[:len(b)+k]
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return "", fmt.Errorf("%w: bulk string not ended by CRLF", ErrMalformedReply)
	}
	return string(b[:n]), nil
}

func (s streamSource) maxElems(n int) int { return min(n, 16) }
