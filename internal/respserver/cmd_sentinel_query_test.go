package respserver

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/resptest"
)

// TestIsMasterDownByAddr checks SENTINEL IS-MASTER-DOWN-BY-ADDR on the
// wire: Redis 7.0.15's reply array and its errors for the arguments.
func TestIsMasterDownByAddr(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	const voter = "fedcba9876543210fedcba9876543210fedcba98"
	const intErr = "-ERR value is not an integer or out of range\r\n"
	noVote := "*3\r\n:0\r\n$1\r\n*\r\n:0\r\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}, noVote},
		{[]string{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "10.9.9.9", "6379", "0", "*"}, noVote},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6380", "3", voter}, noVote},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "x", "0", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "+6379", "0", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "2147483648", "0", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "01", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "9223372036854775808", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0"},
			"-ERR wrong number of arguments for 'sentinel|is-master-down-by-addr' command\r\n"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", voter},
			"*3\r\n:0\r\n$40\r\n" + voter + "\r\n:5\r\n"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "4", testID},
			"*3\r\n:0\r\n$40\r\n" + voter + "\r\n:5\r\n"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "-1", testID},
			"*3\r\n:0\r\n$40\r\n" + testID + "\r\n:-1\r\n"},
	}
	for _, tt := range tests {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}

	// The same requests pipelined, on a fresh server: the same replies
	// in the same order, the asks already read answered together
	// (loopGroup). Alone, the four that ask for a vote take an Exec each.
	_, be, addr := startServer(t, nil)
	c = dial(t, addr)
	var pipeline strings.Builder
	for _, tt := range tests {
		pipeline.WriteString(resptest.Command(tt.args...))
	}
	c.Send(pipeline.String())
	for _, tt := range tests {
		if got := c.Reply(); got != tt.want {
			t.Errorf("pipelined %v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if be.execs >= 4 {
		t.Errorf("pipelined: %d passes of the loop, want fewer than the 4 of the requests alone", be.execs)
	}
}

// TestVotesGrouped sends 200 vote requests for one master in one write,
// as a leader does when many masters fail at once: they are answered in
// order, each epoch's vote as alone, in a few passes of the loop instead
// of 200.
func TestVotesGrouped(t *testing.T) {
	_, be, addr := startServer(t, nil)
	c := dial(t, addr)
	const voter = "fedcba9876543210fedcba9876543210fedcba98"
	var pipeline strings.Builder
	for e := 1; e <= 200; e++ {
		pipeline.WriteString(resptest.Command("SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", strconv.Itoa(e), voter))
	}
	c.Send(pipeline.String())
	for e := 1; e <= 200; e++ {
		want := fmt.Sprintf("*3\r\n:0\r\n$40\r\n%s\r\n:%d\r\n", voter, e)
		if got := c.Reply(); got != want {
			t.Fatalf("vote %d: got %q, want %q", e, got, want)
		}
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if be.execs > 10 {
		t.Errorf("200 pipelined votes took %d passes of the loop, want at most 10", be.execs)
	}
}

// TestHellosAndAsksGrouped pipelines hellos and asks as a peer sends them
// at 1,000 masters: every reply in order, all stepped in a few passes of
// the loop, the hellos as alone (the peer they announce is known after).
func TestHellosAndAsksGrouped(t *testing.T) {
	_, be, addr := startServer(t, nil)
	c := dial(t, addr)
	const peer = "fedcba9876543210fedcba9876543210fedcba98"
	hello := "127.0.0.1,26380," + peer + ",7,mymaster,127.0.0.1,6379,0"
	var pipeline strings.Builder
	var want []string
	for k := range 100 {
		pipeline.WriteString(resptest.Command("PUBLISH", "__sentinel__:hello", hello))
		want = append(want, ":1\r\n")
		pipeline.WriteString(resptest.Command("SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", strconv.Itoa(8+k), peer))
		want = append(want, fmt.Sprintf("*3\r\n:0\r\n$40\r\n%s\r\n:%d\r\n", peer, 8+k))
	}
	pipeline.WriteString(resptest.Command("PUBLISH", "other", "x"))
	want = append(want, "-ERR Only HELLO messages are accepted by Sentinel instances.\r\n")
	c.Send(pipeline.String())
	for k, w := range want {
		if got := c.Reply(); got != w {
			t.Fatalf("reply %d: got %q, want %q", k, got, w)
		}
	}
	be.mu.Lock()
	execs := be.execs
	be.mu.Unlock()
	if execs > 10 {
		t.Errorf("200 pipelined hellos and votes took %d passes of the loop, want at most 10", execs)
	}
	v := be.View()
	if s, err := v.Sentinels(time.Now(), "mymaster"); err != nil || len(s) != 1 {
		t.Errorf("after the hellos: %d Sentinels known (%v), want 1", len(s), err)
	}
}

// TestGroupedDenialsLoggedOnce pipelines asks a user may not run: each
// is refused as alone, and the ACL log counts each denial once (grouping
// checks permissions without logging).
func TestGroupedDenialsLoggedOnce(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("ACL", "SETUSER", "u", "on", "nopass", "+@all", "-sentinel|is-master-down-by-addr"); got != "+OK\r\n" {
		t.Fatalf("ACL SETUSER: %q", got)
	}
	if got := c.Do("AUTH", "u", "x"); got != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	var pipeline strings.Builder
	for range 3 {
		pipeline.WriteString(resptest.Command("SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"))
	}
	c.Send(pipeline.String())
	for k := range 3 {
		if got := c.Reply(); !strings.HasPrefix(got, "-NOPERM") {
			t.Fatalf("ask %d: %q, want NOPERM", k, got)
		}
	}
	log := c.Do("ACL", "LOG")
	if !strings.Contains(log, "$5\r\ncount\r\n:3\r\n") {
		t.Errorf("ACL LOG after 3 denials: %q, want one entry of count 3", log)
	}
}
