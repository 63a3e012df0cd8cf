package gossip

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

const askTestID = "e1a3d79fbef40e7899a4e61914e0efbda44ef2f5"

func TestAskRequestArgs(t *testing.T) {
	// The commands as redis-sentinel 7.0.15 sends them (sentinelAskMasterStateToOtherSentinels).
	tests := []struct {
		req  AskRequest
		want []string
	}{
		{AskRequest{"127.0.0.1", 6379, 0, NoVote},
			[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}},
		{AskRequest{"::1", 17321, 7, askTestID},
			[]string{"SENTINEL", "is-master-down-by-addr", "::1", "17321", "7", askTestID}},
		{AskRequest{"host.example", -1, math.MaxInt64, ""},
			[]string{"SENTINEL", "is-master-down-by-addr", "host.example", "-1", "9223372036854775807", ""}},
		{AskRequest{"", 0, math.MaxUint64, NoVote},
			[]string{"SENTINEL", "is-master-down-by-addr", "", "0", "18446744073709551615", "*"}},
	}
	for _, tt := range tests {
		got := tt.req.Args()
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v.Args() = %q, want %q", tt.req, got, tt.want)
		}
		got[0] = "RENAMED" // the caller may modify the slice
		if again := tt.req.Args(); again[0] != "SENTINEL" {
			t.Errorf("%+v.Args() shares its slice: %q", tt.req, again)
		}
		back, err := ParseAskRequest(tt.want[2], tt.want[3], tt.want[4], tt.want[5])
		if tt.req.CurrentEpoch > math.MaxInt64 {
			// Written as is, but not an integer Redis reads back.
			if !errors.Is(err, ErrNotInteger) {
				t.Errorf("ParseAskRequest(%q) = %+v, %v; want ErrNotInteger", tt.want[2:], back, err)
			}
			continue
		}
		if err != nil || back != tt.req {
			t.Errorf("ParseAskRequest(%q) = %+v, %v; want %+v", tt.want[2:], back, err, tt.req)
		}
	}
}

func TestParseAskRequest(t *testing.T) {
	tests := []struct {
		name                   string
		ip, port, epoch, runID string
		want                   AskRequest
		err                    error
	}{
		{"no vote", "10.0.0.1", "6379", "0", "*", AskRequest{"10.0.0.1", 6379, 0, NoVote}, nil},
		{"vote", "10.0.0.1", "6379", "12", askTestID, AskRequest{"10.0.0.1", 6379, 12, askTestID}, nil},
		{"strings as given", " a b ", "1", "1", "not-an-id", AskRequest{" a b ", 1, 1, "not-an-id"}, nil},
		{"empty strings", "", "0", "0", "", AskRequest{"", 0, 0, ""}, nil},
		{"port int32 max", "h", "2147483647", "0", "*", AskRequest{"h", math.MaxInt32, 0, NoVote}, nil},
		{"port int32 min", "h", "-2147483648", "0", "*", AskRequest{"h", math.MinInt32, 0, NoVote}, nil},
		{"negative port", "h", "-1", "0", "*", AskRequest{"h", -1, 0, NoVote}, nil},
		{"epoch int64 max", "h", "1", "9223372036854775807", "*", AskRequest{"h", 1, math.MaxInt64, NoVote}, nil},
		{"negative epoch wraps", "h", "1", "-1", "*", AskRequest{"h", 1, math.MaxUint64, NoVote}, nil},
		{"epoch int64 min wraps", "h", "1", "-9223372036854775808", "*", AskRequest{"h", 1, 1 << 63, NoVote}, nil},

		{"port above int32", "h", "2147483648", "0", "*", AskRequest{}, ErrNotInteger},
		{"port below int32", "h", "-2147483649", "0", "*", AskRequest{}, ErrNotInteger},
		{"port not a number", "h", "x", "0", "*", AskRequest{}, ErrNotInteger},
		{"port empty", "h", "", "0", "*", AskRequest{}, ErrNotInteger},
		{"port plus sign", "h", "+6379", "0", "*", AskRequest{}, ErrNotInteger},
		{"port leading zero", "h", "06379", "0", "*", AskRequest{}, ErrNotInteger},
		{"port space", "h", " 6379", "0", "*", AskRequest{}, ErrNotInteger},
		{"port trailing garbage", "h", "6379x", "0", "*", AskRequest{}, ErrNotInteger},
		{"port minus zero", "h", "-0", "0", "*", AskRequest{}, ErrNotInteger},
		{"port above int64", "h", "9223372036854775808", "0", "*", AskRequest{}, ErrNotInteger},
		{"epoch not a number", "h", "1", "y", "*", AskRequest{}, ErrNotInteger},
		{"epoch empty", "h", "1", "", "*", AskRequest{}, ErrNotInteger},
		{"epoch above int64", "h", "1", "9223372036854775808", "*", AskRequest{}, ErrNotInteger},
		{"epoch max uint64", "h", "1", "18446744073709551615", "*", AskRequest{}, ErrNotInteger},
		{"epoch hex", "h", "1", "0x10", "*", AskRequest{}, ErrNotInteger},
		{"epoch trailing newline", "h", "1", "1\n", "*", AskRequest{}, ErrNotInteger},
		{"both wrong", "h", "x", "y", "*", AskRequest{}, ErrNotInteger},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAskRequest(tt.ip, tt.port, tt.epoch, tt.runID)
			if err != tt.err {
				t.Fatalf("ParseAskRequest(%q, %q, %q, %q) error = %v, want %v", tt.ip, tt.port, tt.epoch, tt.runID, err, tt.err)
			}
			if got != tt.want {
				t.Fatalf("ParseAskRequest(%q, %q, %q, %q) = %+v, want %+v", tt.ip, tt.port, tt.epoch, tt.runID, got, tt.want)
			}
		})
	}
	if ErrNotInteger.Error() != "value is not an integer or out of range" {
		t.Errorf("ErrNotInteger = %q, not Redis's text", ErrNotInteger)
	}
}

func TestAsksVote(t *testing.T) {
	tests := []struct {
		runID string
		want  bool
	}{
		{NoVote, false},
		{"*", false},
		{askTestID, true},
		{"", true},
		{"**", true},
		{" *", true},
	}
	for _, tt := range tests {
		if got := (AskRequest{RunID: tt.runID}).AsksVote(); got != tt.want {
			t.Errorf("AsksVote with run id %q = %v, want %v", tt.runID, got, tt.want)
		}
	}
	if NoVote != "*" {
		t.Errorf("NoVote = %q, want %q", NoVote, "*")
	}
}

func TestAskReplyElements(t *testing.T) {
	tests := []struct {
		rep    AskReply
		down   int64
		leader string
		epoch  int64
	}{
		{NoVoteReply(), 0, "*", 0},
		{AskReply{Down: true, Leader: NoVote}, 1, "*", 0},
		{AskReply{Down: false, Leader: askTestID, LeaderEpoch: 3}, 0, askTestID, 3},
		{AskReply{Down: true, Leader: askTestID, LeaderEpoch: 3}, 1, askTestID, 3},
		{AskReply{Leader: "", LeaderEpoch: math.MaxInt64}, 0, "", math.MaxInt64},
		{AskReply{Leader: "x", LeaderEpoch: math.MaxUint64}, 0, "x", -1},
		{AskReply{Leader: "x", LeaderEpoch: 1 << 63}, 0, "x", math.MinInt64},
	}
	for _, tt := range tests {
		down, leader, epoch := tt.rep.Elements()
		if down != tt.down || leader != tt.leader || epoch != tt.epoch {
			t.Errorf("%+v.Elements() = %d, %q, %d; want %d, %q, %d", tt.rep, down, leader, epoch, tt.down, tt.leader, tt.epoch)
		}
		back, ok := ParseAskReply([]any{down, leader, epoch})
		if !ok || back != tt.rep {
			t.Errorf("ParseAskReply(%+v.Elements()) = %+v, %v", tt.rep, back, ok)
		}
	}
	if r := NoVoteReply(); r != (AskReply{Down: false, Leader: "*", LeaderEpoch: 0}) {
		t.Errorf("NoVoteReply() = %+v", r)
	}
}

func TestParseAskReply(t *testing.T) {
	tests := []struct {
		name  string
		elems []any
		want  AskReply
		ok    bool
	}{
		{"not down, no vote", []any{int64(0), "*", int64(0)}, AskReply{false, "*", 0}, true},
		{"down", []any{int64(1), "*", int64(0)}, AskReply{true, "*", 0}, true},
		{"vote", []any{int64(1), askTestID, int64(9)}, AskReply{true, askTestID, 9}, true},
		{"down only for 1", []any{int64(2), "*", int64(0)}, AskReply{false, "*", 0}, true},
		{"negative down is not down", []any{int64(-1), "*", int64(0)}, AskReply{false, "*", 0}, true},
		{"empty leader", []any{int64(0), "", int64(0)}, AskReply{false, "", 0}, true},
		{"negative epoch wraps", []any{int64(0), "x", int64(-1)}, AskReply{false, "x", math.MaxUint64}, true},
		{"epoch int64 min", []any{int64(0), "x", int64(math.MinInt64)}, AskReply{false, "x", 1 << 63}, true},

		{"not an array", nil, AskReply{}, false},
		{"empty array", []any{}, AskReply{}, false},
		{"two elements", []any{int64(0), "*"}, AskReply{}, false},
		{"four elements", []any{int64(0), "*", int64(0), int64(0)}, AskReply{}, false},
		{"down as string", []any{"1", "*", int64(0)}, AskReply{}, false},
		{"leader as integer", []any{int64(0), int64(42), int64(0)}, AskReply{}, false},
		{"epoch as string", []any{int64(0), "*", "0"}, AskReply{}, false},
		{"nil down", []any{nil, "*", int64(0)}, AskReply{}, false},
		{"nil leader", []any{int64(0), nil, int64(0)}, AskReply{}, false},
		{"nil epoch", []any{int64(0), "*", nil}, AskReply{}, false},
		{"integer not as int64", []any{1, "*", 0}, AskReply{}, false},
		{"nested array", []any{int64(0), []any{"*"}, int64(0)}, AskReply{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseAskReply(tt.elems)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("ParseAskReply(%#v) = %+v, %v; want %+v, %v", tt.elems, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestAnswerDown: down only when subjectively down and not in TILT.
func TestAnswerDown(t *testing.T) {
	for _, tc := range []struct{ sdown, tilt, want bool }{
		{false, false, false}, {true, false, true}, {true, true, false}, {false, true, false},
	} {
		if got := AnswerDown(tc.sdown, tc.tilt); got != tc.want {
			t.Errorf("sdown %v tilt %v: got %v", tc.sdown, tc.tilt, got)
		}
	}
}

// TestAnswerStale: an answer is forgotten beyond 5 ask periods, not at.
func TestAnswerStale(t *testing.T) {
	if AnswerStale(5000, 1000) {
		t.Error("stale at exactly 5 periods")
	}
	if !AnswerStale(5001, 1000) {
		t.Error("not stale beyond 5 periods")
	}
}
