package gossip

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

func TestParseReply(t *testing.T) {
	tests := []struct {
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
	}
	for _, tt := range tests {
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

func TestParseReplyDepthLimit(t *testing.T) {
	in := strings.Repeat("*1\r\n", maxReplyDepth) + ":1\r\n"
	if _, err := parseReply([]byte(in)); err != nil {
		t.Fatalf("%d nested arrays: %v", maxReplyDepth, err)
	}
}
