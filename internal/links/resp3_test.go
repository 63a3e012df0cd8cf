package links

import (
	"errors"
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// reply3Tests are RESP3 inputs with the reply parseReply3 gives the core
// (what RESP2 would have carried), or bad when they are not exactly one
// reply; RESP2's own inputs (replyTests) parse the same way.
var reply3Tests = []struct {
	name string
	in   string
	want msg.Reply
	bad  bool
}{
	{name: "null", in: "_\r\n", want: nilReply},
	{name: "true", in: "#t\r\n", want: num(1)},
	{name: "false", in: "#f\r\n", want: num(0)},
	{name: "double", in: ",3.25\r\n", want: str("3.25")},
	{name: "big number", in: "(3492890328409238509324850943850943825024385\r\n", want: str("3492890328409238509324850943850943825024385")},
	{name: "verbatim INFO", in: "=15\r\ntxt:# Server\r\nx\r\n", want: str("# Server\r\nx")},
	{name: "empty verbatim", in: "=4\r\ntxt:\r\n", want: str("")},
	{name: "blob error", in: "!21\r\nSYNTAX invalid syntax\r\n", want: rerr("SYNTAX invalid syntax")},
	{name: "map", in: "%2\r\n+proto\r\n:3\r\n$4\r\nmode\r\n+standalone\r\n", want: arr(str("proto"), num(3), str("mode"), str("standalone"))},
	{name: "empty map", in: "%0\r\n", want: arr()},
	{name: "set", in: "~2\r\n+a\r\n+b\r\n", want: arr(str("a"), str("b"))},
	{name: "push message", in: ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n", want: arr(str("message"), str("ch"), str("hi"))},
	{name: "nested RESP3 in array", in: "*3\r\n_\r\n%1\r\n+k\r\n#t\r\n~0\r\n", want: arr(nilReply, arr(str("k"), num(1)), arr())},
	{name: "attribute skipped", in: "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*1\r\n:2\r\n", want: arr(num(2))},
	{name: "RESP2 bulk", in: "$5\r\nhello\r\n", want: str("hello")},

	{name: "null with a body", in: "_x\r\n", bad: true},
	{name: "bad boolean", in: "#x\r\n", bad: true},
	{name: "verbatim without format", in: "=2\r\nab\r\n", bad: true},
	{name: "nil verbatim", in: "=-1\r\n", bad: true},
	{name: "nil map", in: "%-1\r\n", bad: true},
	{name: "short map", in: "%2\r\n+a\r\n:1\r\n+b\r\n", bad: true},
	{name: "unknown type", in: "?x\r\n", bad: true},
}

func TestParseReply3(t *testing.T) {
	for _, tt := range reply3Tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := parseReply3([]byte(tt.in))
			if errors.Is(err, errIncomplete) || (err == nil && n != len(tt.in)) {
				err = ErrMalformedReply
			}
			if tt.bad {
				if !errors.Is(err, ErrMalformedReply) {
					t.Fatalf("parseReply3(%q) = %+v, %v; want ErrMalformedReply", tt.in, got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parseReply3(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			if _, _, err := parseReply([]byte(tt.in)); tt.in[0] != '$' && err == nil {
				t.Errorf("parseReply (RESP2) took %q", tt.in)
			}
		})
	}
	for _, tt := range replyTests {
		if tt.bad {
			continue
		}
		if got, _, err := parseReply3([]byte(tt.in)); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseReply3(%q) = %+v, %v; want %+v as RESP2", tt.in, got, err, tt.want)
		}
	}
}

// TestReplyScan3AgreesWithParser: RESP3 replies fed a byte more at a time
// are whole for the scan exactly when the parser stops saying incomplete,
// followed by the next reply or not.
func TestReplyScan3AgreesWithParser(t *testing.T) {
	for _, tt := range reply3Tests {
		if tt.bad {
			continue
		}
		for _, after := range []string{"", ">1\r\n+x\r\n"} {
			all := tt.in + after
			var sc replyScan
			sc.proto = true
			for i := 1; i <= len(all); i++ {
				prefix := []byte(all[:i])
				whole := sc.whole(prefix)
				_, _, err := parseReply3(prefix)
				if incomplete := errors.Is(err, errIncomplete); whole == incomplete {
					t.Fatalf("%s: after %d of %d bytes: scan says whole=%v, parser %v", tt.name, i, len(all), whole, err)
				}
			}
		}
	}
}

func TestHelloProto3(t *testing.T) {
	tests := []struct {
		name string
		r    msg.Reply
		want bool
	}{
		{"redis 7", arr(str("server"), str("redis"), str("version"), str("7.0.15"), str("proto"), num(3), str("id"), num(5)), true},
		{"proto 2", arr(str("server"), str("redis"), str("proto"), num(2)), false},
		{"unknown command (redis 5, renamed)", rerr("ERR unknown command 'HELLO'"), false},
		{"NOAUTH", rerr("NOAUTH HELLO must be called with the client already authenticated"), false},
		{"NOPROTO", rerr("NOPROTO unsupported protocol version"), false},
		{"proto as a string", arr(str("proto"), str("3")), false},
		{"no proto", arr(str("server"), str("redis")), false},
		{"status", str("OK"), false},
	}
	for _, tt := range tests {
		if got := helloProto3(tt.r); got != tt.want {
			t.Errorf("%s: helloProto3 = %v, want %v", tt.name, got, tt.want)
		}
	}
}
