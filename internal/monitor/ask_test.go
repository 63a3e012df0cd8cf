package monitor

import (
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// TestAskElems: the core hands gossip.ParseAskReply integers as int64 and
// strings as string, so that it accepts exactly the replies Redis accepts:
// an array of an integer, a string and an integer.
func TestAskElems(t *testing.T) {
	i := func(v int64) msg.Reply { return msg.Reply{Kind: msg.ReplyInt, Int: v} }
	str := func(v string) msg.Reply { return msg.Reply{Kind: msg.ReplyString, Str: v} }
	arr := func(e ...msg.Reply) msg.Reply { return msg.Reply{Kind: msg.ReplyArray, Elems: e} }
	errR := msg.Reply{Kind: msg.ReplyError, Str: "ERR x"}
	nilR := msg.Reply{Kind: msg.ReplyNil}
	tests := []struct {
		name  string
		r     msg.Reply
		elems []any
		want  gossip.AskReply
		ok    bool
	}{
		{"no vote", arr(i(0), str("*"), i(0)), []any{int64(0), "*", int64(0)}, gossip.NoVoteReply(), true},
		{"vote", arr(i(1), str("abc"), i(7)), []any{int64(1), "abc", int64(7)}, gossip.AskReply{Down: true, Leader: "abc", LeaderEpoch: 7}, true},
		{"not an array", str("*"), nil, gossip.AskReply{}, false},
		{"an integer", i(1), nil, gossip.AskReply{}, false},
		{"an error", errR, nil, gossip.AskReply{}, false},
		{"nil", nilR, nil, gossip.AskReply{}, false},
		{"empty array", arr(), []any{}, gossip.AskReply{}, false},
		{"two elements", arr(i(0), str("*")), []any{int64(0), "*"}, gossip.AskReply{}, false},
		{"four elements", arr(i(0), str("*"), i(0), i(0)), []any{int64(0), "*", int64(0), int64(0)}, gossip.AskReply{}, false},
		{"error leader", arr(i(0), errR, i(0)), []any{int64(0), nil, int64(0)}, gossip.AskReply{}, false},
		{"nil epoch", arr(i(0), str("*"), nilR), []any{int64(0), "*", nil}, gossip.AskReply{}, false},
		{"string down", arr(str("1"), str("*"), i(0)), []any{"1", "*", int64(0)}, gossip.AskReply{}, false},
		{"nested array", arr(i(0), arr(str("*")), i(0)), []any{int64(0), nil, int64(0)}, gossip.AskReply{}, false},
	}
	for _, tt := range tests {
		got := askElems(tt.r)
		if !reflect.DeepEqual(got, tt.elems) {
			t.Errorf("%s: askElems = %#v, want %#v", tt.name, got, tt.elems)
		}
		rep, ok := gossip.ParseAskReply(got)
		if ok != tt.ok || rep != tt.want {
			t.Errorf("%s: ParseAskReply(askElems) = %+v, %v; want %+v, %v", tt.name, rep, ok, tt.want, tt.ok)
		}
	}
}
