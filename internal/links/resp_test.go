package links

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// replyTests are RESP2 inputs with the reply they hold, or bad when they
// are not exactly one reply.
var replyTests = []struct {
	name string
	in   string
	want msg.Reply
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
	{name: "40-byte bulk", in: "$40\r\n" + strings.Repeat("x", 40) + "\r\n", want: str(strings.Repeat("x", 40))},
	{name: "40-byte status", in: "+" + strings.Repeat("y", 40) + "\r\n", want: str(strings.Repeat("y", 40))},
	{name: "bulk without its CRLF", in: "$2\r\nabcd\r\n", bad: true},
}

func TestParseReply(t *testing.T) {
	for _, tt := range replyTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseWhole([]byte(tt.in))
			if tt.bad {
				if !errors.Is(err, ErrMalformedReply) {
					t.Fatalf("parseWhole(%q) = %+v, %v; want ErrMalformedReply", tt.in, got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parseWhole(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestParseReplyChunks parses each good input followed by another reply as
// a link reads it, a chunk at a time: every strict start of it is
// errIncomplete, the whole gives the reply and its length, and what
// follows is the next reply.
func TestParseReplyChunks(t *testing.T) {
	for _, tt := range replyTests {
		if tt.bad {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			for k := range len(tt.in) {
				if r, _, err := parseReply([]byte(tt.in[:k])); !errors.Is(err, errIncomplete) {
					t.Fatalf("parseReply(%q) = %+v, %v; want errIncomplete", tt.in[:k], r, err)
				}
			}
			in := []byte(tt.in + "+NEXT\r\n")
			got, n, err := parseReply(in)
			if err != nil || n != len(tt.in) || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parseReply(%q) = %+v, %d, %v; want %+v, %d", in, got, n, err, tt.want, len(tt.in))
			}
			if next, _, err := parseReply(in[n:]); err != nil || next.Str != "NEXT" {
				t.Fatalf("after %q: next reply %+v, %v; want NEXT", tt.in, next, err)
			}
		})
	}
}

func TestParseReplyLineLimit(t *testing.T) {
	long := "+" + strings.Repeat("z", maxLineLen+10)
	for _, in := range []string{long, long + "\r\n"} {
		if _, _, err := parseReply([]byte(in)); !errors.Is(err, ErrMalformedReply) {
			t.Fatalf("a %d-byte line: %v, want ErrMalformedReply", len(in), err)
		}
	}
}

func TestParseReplyDepthLimit(t *testing.T) {
	in := strings.Repeat("*1\r\n", maxReplyDepth) + ":1\r\n"
	if _, err := parseWhole([]byte(in)); err != nil {
		t.Fatalf("%d nested arrays: %v", maxReplyDepth, err)
	}
}

// parseWhole decodes b, which must hold exactly one RESP2 reply (the table
// tests' form of parseReply): an incomplete reply or bytes after it are
// ErrMalformedReply.
func parseWhole(b []byte) (msg.Reply, error) {
	r, n, err := parseReply(b)
	if errors.Is(err, errIncomplete) {
		return msg.Reply{}, fmt.Errorf("%w: incomplete", ErrMalformedReply)
	}
	if err != nil {
		return msg.Reply{}, err
	}
	if n != len(b) {
		return msg.Reply{}, fmt.Errorf("%w: %d bytes after the reply", ErrMalformedReply, len(b)-n)
	}
	return r, nil
}
