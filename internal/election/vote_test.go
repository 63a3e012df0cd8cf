package election

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// rewrite makes TestVoteRule write what the rule produced back into
// testdata/vote.txt instead of comparing: go test ./internal/election
// -run TestVoteRule -rewrite, then read the diff.
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/vote.txt")

// TestVoteRule runs the transcript in testdata/vote.txt, in the format of
// the core's interaction files: a command line, a `----` line, then the
// expected output up to a blank line; lines starting with # outside
// blocks are comments.
func TestVoteRule(t *testing.T) {
	const path = "testdata/vote.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out strings.Builder
	var v Vote
	for k := 0; k < len(lines); k++ {
		line := lines[k]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		start := k
		if k++; k >= len(lines) || lines[k] != "----" {
			t.Fatalf("%s:%d: %q is not followed by ----", path, start+1, line)
		}
		var want []string
		for k++; k < len(lines) && lines[k] != ""; k++ {
			want = append(want, lines[k])
		}
		var got []string
		v, got = runVoteCommand(t, v, line)
		out.WriteString(line + "\n----\n")
		for _, l := range got {
			out.WriteString(l + "\n")
		}
		if k < len(lines) {
			out.WriteString("\n")
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\n--- want\n%s\n--- got\n%s", path, start+1, line, strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	if *rewrite {
		text := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
