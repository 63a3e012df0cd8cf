package failover

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rewrite makes TestTranscripts write the output the planning produced
// back into testdata/*.txt instead of comparing.
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the transcripts")

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
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runTranscript(t, f) })
	}
}

func runTranscript(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var out strings.Builder
	for k := 0; k < len(lines); k++ {
		line := lines[k]
		if line == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		cmd := line
		var replicas []Replica
		for k++; k < len(lines) && lines[k] != "----"; k++ {
			replicas = append(replicas, parseReplica(t, lines[k]))
		}
		var want []string
		for k++; k < len(lines) && lines[k] != ""; k++ {
			want = append(want, lines[k])
		}
		got := runCommand(t, cmd, replicas)
		out.WriteString(cmd + "\n")
		for _, r := range replicas {
			out.WriteString(formatReplica(r) + "\n")
		}
		out.WriteString("----\n")
		for _, g := range got {
			out.WriteString(g + "\n")
		}
		if k < len(lines) {
			out.WriteString("\n")
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", path, cmd, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runCommand(t *testing.T, cmd string, replicas []Replica) []string {
	f := strings.Fields(cmd)
	switch f[0] {
	case "plan":
		syncs, timeout := 1, 10*time.Second
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
				timeout = d
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
			r.SinceSent = d
		default:
			t.Fatalf("%q: unknown replica attribute %s", line, a)
		}
	}
	return r
}

func formatReplica(r Replica) string {
	f := []string{r.ID}
	for _, b := range []struct {
		on   bool
		name string
	}{{r.Promoted, "promoted"}, {r.Sent, "sent"}, {r.InProgress, "inprog"}, {r.Done, "done"}, {r.Disconnected, "disconnected"}, {r.Down, "down"}} {
		if b.on {
			f = append(f, b.name)
		}
	}
	if r.SinceSent != 0 {
		f = append(f, "since="+r.SinceSent.String())
	}
	return strings.Join(f, " ")
}
