package failover

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/transcript"
)

// TestTranscripts runs testdata/*.txt: each block is a command line, the
// replicas one a line, `----`, then the expected output up to a blank
// line. The commands:
//
//	plan parallel-syncs=N sent-timeout=D   PlanReconf; prints one action a line
//	end [promoted-down] [timed-out]        PlanEnd; prints the end and the replicas sent again
//
// A replica line is its id followed by any of promoted, sent, inprog,
// done, disconnected, down and since=D (the time since SLAVEOF was sent).
func TestTranscripts(t *testing.T) {
	transcript.Glob(t, "testdata/*.txt", func(t *testing.T, path string) {
		transcript.Run(t, path, func(b transcript.Block) []string {
			var replicas []Replica
			for _, l := range b.Input {
				replicas = append(replicas, parseReplica(t, l))
			}
			return runCommand(t, b.Cmd, replicas)
		})
	})
}

func runCommand(t *testing.T, cmd string, replicas []Replica) []string {
	f := strings.Fields(cmd)
	switch f[0] {
	case "plan":
		syncs, timeout := 1, int64(10000)
		for _, a := range f[1:] {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "parallel-syncs":
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				syncs = n
			case "sent-timeout":
				d, err := time.ParseDuration(v)
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				timeout = d.Milliseconds()
			default:
				t.Fatalf("%s: unknown argument %s", cmd, a)
			}
		}
		var out []string
		for _, a := range PlanReconf(replicas, syncs, timeout) {
			s := a.ID
			if a.TimedOut {
				s += " timed-out"
			}
			if a.Send {
				s += " send"
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			out = []string{"nothing"}
		}
		return out
	case "end":
		var promotedDown, timedOut bool
		for _, a := range f[1:] {
			switch a {
			case "promoted-down":
				promotedDown = true
			case "timed-out":
				timedOut = true
			default:
				t.Fatalf("%s: unknown argument %s", cmd, a)
			}
		}
		end, again := PlanEnd(replicas, promotedDown, timedOut)
		s := [...]string{NotYet: "not-yet", Ended: "ended", EndedForTimeout: "ended-for-timeout"}[end]
		if len(again) > 0 {
			s += " again " + strings.Join(again, " ")
		}
		return []string{s}
	}
	t.Fatalf("unknown command %q", cmd)
	return nil
}

func parseReplica(t *testing.T, line string) Replica {
	f := strings.Fields(line)
	r := Replica{ID: f[0]}
	for _, a := range f[1:] {
		switch {
		case a == "promoted":
			r.Promoted = true
		case a == "sent":
			r.Sent = true
		case a == "inprog":
			r.InProgress = true
		case a == "done":
			r.Done = true
		case a == "disconnected":
			r.Disconnected = true
		case a == "down":
			r.Down = true
		case strings.HasPrefix(a, "since="):
			d, err := time.ParseDuration(a[len("since="):])
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			r.SinceSent = d.Milliseconds()
		default:
			t.Fatalf("%q: unknown replica attribute %s", line, a)
		}
	}
	return r
}
