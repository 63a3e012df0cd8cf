package links

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// replyTests are RESP2 inputs with the reply they hold, or bad when they
// are not exactly one reply.
var replyTests = []struct {
	name string
	in   string
	want monitor.Reply
	bad  bool
}{
	{name: "status", in: "+PONG\r\n", want: str("PONG")},
	{name: "empty status", in: "+\r\n", want: str("")},
	{name: "error", in: "-NOAUTH Authentication required.\r\n", want: rerr("NOAUTH Authentication required.")},
	{name: "integer", in: ":42\r\n", want: num(42)},
	{name: "negative integer", in: ":-7\r\n", want: num(-7)},
	{name: "bulk", in: "$5\r\nhello\r\n", want: str("hello")},
	{name: "empty bulk", in: "$0\r\n\r\n", want: str("")},
	{name: "bulk with CRLF inside", in: "$4\r\na\r\nb\r\n", want: str("a\r\nb")},
	{name: "nil bulk", in: "$-1\r\n", want: nilReply},
	{name: "nil array", in: "*-1\r\n", want: nilReply},
	{name: "empty array", in: "*0\r\n", want: arr()},
	{name: "is-master-down reply", in: "*3\r\n:0\r\n$1\r\n*\r\n:0\r\n", want: arr(num(0), str("*"), num(0))},
	{name: "nested with error and nil", in: "*3\r\n*2\r\n+OK\r\n-ERR x\r\n$-1\r\n*0\r\n",
		want: arr(arr(str("OK"), rerr("ERR x")), nilReply, arr())},

	{name: "empty input", in: "", bad: true},
	{name: "no CRLF", in: "+PONG", bad: true},
	{name: "empty line", in: "\r\n", bad: true},
	{name: "unknown type", in: "!oops\r\n", bad: true},
	{name: "RESP3 null", in: "_\r\n", bad: true},
	{name: "bad integer", in: ":12a\r\n", bad: true},
	{name: "bad bulk length", in: "$x\r\nab\r\n", bad: true},
	{name: "bulk length below -1", in: "$-2\r\n", bad: true},
	{name: "short bulk", in: "$5\r\nhel\r\n", bad: true},
	{name: "bulk without CRLF", in: "$2\r\nabcd", bad: true},
	{name: "huge bulk length", in: "$9223372036854775807\r\nab\r\n", bad: true},
	{name: "short array", in: "*3\r\n:1\r\n:2\r\n", bad: true},
	{name: "huge array length", in: "*9223372036854775807\r\n:1\r\n", bad: true},
	{name: "trailing bytes", in: "+OK\r\n+OK\r\n", bad: true},
	{name: "too deep", in: strings.Repeat("*1\r\n", maxReplyDepth+1) + ":1\r\n", bad: true},
	{name: "bulk longer than the stream buffer", in: "$40\r\n" + strings.Repeat("x", 40) + "\r\n", want: str(strings.Repeat("x", 40))},
	{name: "status longer than the stream buffer", in: "+" + strings.Repeat("y", 40) + "\r\n", want: str(strings.Repeat("y", 40))},
	{name: "bulk without its CRLF", in: "$2\r\nabcd\r\n", bad: true},
}

func TestParseReply(t *testing.T) {
	for _, tt := range replyTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseReply([]byte(tt.in))
			if tt.bad {
				if !errors.Is(err, ErrMalformedReply) {
					t.Fatalf("parseReply(%q) = %+v, %v; want ErrMalformedReply", tt.in, got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parseReply(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestReadReply reads each input from a stream with a 16-byte buffer: good
// inputs give the same reply as parseReply (and leave what follows
// unread); bad ones an error, ErrMalformedReply or, for a truncated input,
// io.ErrUnexpectedEOF or io.EOF.
func TestReadReply(t *testing.T) {
	for _, tt := range replyTests {
		t.Run(tt.name, func(t *testing.T) {
			rd := bufio.NewReaderSize(strings.NewReader(tt.in+"+NEXT\r\n"), 16)
			if tt.bad {
				rd = bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			}
			got, err := readReply(rd)
			if tt.bad {
				if tt.name == "trailing bytes" {
					return // a stream reads one reply and leaves the rest
				}
				if !errors.Is(err, ErrMalformedReply) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
					t.Fatalf("readReply(%q) = %+v, %v; want an error", tt.in, got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("readReply(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			if next, err := readReply(rd); err != nil || next.Str != "NEXT" {
				t.Fatalf("after %q: next reply %+v, %v; want NEXT", tt.in, next, err)
			}
		})
	}
}

func TestReadReplyLineLimit(t *testing.T) {
	rd := bufio.NewReaderSize(strings.NewReader("+"+strings.Repeat("z", maxLineLen+10)+"\r\n"), 16)
	if _, err := readReply(rd); !errors.Is(err, ErrMalformedReply) {
		t.Fatalf("a %d-byte line: %v, want ErrMalformedReply", maxLineLen+10, err)
	}
}

func TestParseReplyDepthLimit(t *testing.T) {
	in := strings.Repeat("*1\r\n", maxReplyDepth) + ":1\r\n"
	if _, err := parseReply([]byte(in)); err != nil {
		t.Fatalf("%d nested arrays: %v", maxReplyDepth, err)
	}
}

// parseReply decodes b, which must hold exactly one RESP2 reply (the table
// tests' form of readReply, over bytes held whole), into a monitor.Reply: status and bulk
// strings become ReplyString, error replies ReplyError with their full text
// (code included), integers ReplyInt, nil bulks and nil arrays ReplyNil, and
// arrays ReplyArray, recursively (an error inside an array is a ReplyError
// element).
func parseReply(b []byte) (monitor.Reply, error) {
	src := &bytesSource{b: b}
	r, err := decodeReply(src, 0)
	if err != nil {
		return monitor.Reply{}, err
	}
	if len(src.b) != 0 {
		return monitor.Reply{}, fmt.Errorf("%w: %d bytes after the reply", ErrMalformedReply, len(src.b))
	}
	return r, nil
}

// bytesSource reads a reply held whole in memory.
type bytesSource struct{ b []byte }

func (s *bytesSource) line() ([]byte, error) {
	line, rest, ok := bytes.Cut(s.b, []byte("\r\n"))
	if !ok {
		return nil, fmt.Errorf("%w: incomplete line", ErrMalformedReply)
	}
	s.b = rest
	return line, nil
}

func (s *bytesSource) bulk(n int) (string, error) {
	if n > len(s.b)-2 || s.b[n] != '\r' || s.b[n+1] != '\n' {
		return "", fmt.Errorf("%w: bulk string shorter than %d bytes", ErrMalformedReply, n)
	}
	b := string(s.b[:n])
	s.b = s.b[n+2:]
	return b, nil
}

// maxElems: every element takes at least 4 bytes (":0\r\n").
func (s *bytesSource) maxElems(n int) int { return min(n, len(s.b)/4) }
