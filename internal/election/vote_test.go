package election

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/transcript"
)

// TestVoteRule runs the transcript in testdata/vote.txt, in the format of
// the core's interaction files: a command line, a `----` line, then the
// expected output up to a blank line; lines starting with # outside
// blocks are comments.
func TestVoteRule(t *testing.T) {
	var v Vote
	transcript.Run(t, "testdata/vote.txt", func(b transcript.Block) []string {
		if len(b.Input) > 0 {
			t.Fatalf("%s:%d: %s takes no input lines", b.Path, b.Line, b.Cmd)
		}
		var out []string
		v, out = runVoteCommand(t, v, b.Cmd)
		return out
	})
}

// runVoteCommand carries out one command of testdata/vote.txt on v.
func runVoteCommand(t *testing.T, v Vote, line string) (Vote, []string) {
	t.Helper()
	f := strings.Fields(line)
	epoch := func(s string) uint64 {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%q: bad epoch %q: %v", line, s, err)
		}
		return n
	}
	var out []string
	switch f[0] {
	case "state":
		v = Vote{}
		for _, a := range f[1:] {
			switch key, val, _ := strings.Cut(a, "="); key {
			case "current":
				v.CurrentEpoch = epoch(val)
			case "leader":
				v.Leader = val
			case "leader-epoch":
				v.LeaderEpoch = epoch(val)
			default:
				t.Fatalf("%q: unknown field %q", line, key)
			}
		}
	case "grant":
		if len(f) != 3 {
			t.Fatalf("%q: want grant EPOCH RUNID", line)
		}
		next, raised, voted := Grant(v, epoch(f[1]), f[2])
		if raised {
			out = append(out, fmt.Sprintf("+new-epoch %d", next.CurrentEpoch))
		}
		if voted {
			out = append(out, fmt.Sprintf("+vote-for-leader %s %d", next.Leader, next.LeaderEpoch))
		}
		v = next
	default:
		t.Fatalf("unknown command %q", line)
	}
	leader := v.Leader
	if leader == "" {
		leader = "-"
	}
	return v, append(out, fmt.Sprintf("state current=%d leader=%s leader-epoch=%d", v.CurrentEpoch, leader, v.LeaderEpoch))
}

// TestGrantInvariants checks over a grid of states and requests that a
// vote is never cast twice in one epoch, never goes back in epoch, and
// that the current epoch never decreases.
func TestGrantInvariants(t *testing.T) {
	for cur := uint64(0); cur < 5; cur++ {
		for le := uint64(0); le < 5; le++ {
			for epoch := uint64(0); epoch < 6; epoch++ {
				v := Vote{CurrentEpoch: cur, Leader: "old", LeaderEpoch: le}
				next, raised, voted := Grant(v, epoch, "new")
				if next.CurrentEpoch < cur || raised != (epoch > cur) || next.CurrentEpoch != max(cur, epoch) {
					t.Errorf("%+v grant %d: current epoch %d (raised %v)", v, epoch, next.CurrentEpoch, raised)
				}
				if voted != (le < epoch && cur <= epoch) {
					t.Errorf("%+v grant %d: voted %v", v, epoch, voted)
				}
				if voted && (next.Leader != "new" || next.LeaderEpoch != epoch) {
					t.Errorf("%+v grant %d: vote %s %d", v, epoch, next.Leader, next.LeaderEpoch)
				}
				if !voted && (next.Leader != v.Leader || next.LeaderEpoch != v.LeaderEpoch) {
					t.Errorf("%+v grant %d: vote changed to %s %d without voting", v, epoch, next.Leader, next.LeaderEpoch)
				}
				if again, _, votedAgain := Grant(next, epoch, "other"); voted && (votedAgain || again.Leader != "new") {
					t.Errorf("%+v grant %d: second asker got %s (voted %v)", v, epoch, again.Leader, votedAgain)
				}
			}
		}
	}
}
