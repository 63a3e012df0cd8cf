package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// mixedRun exercises most of the simulator: discovery, a partition, a
// clock jump, a Sentinel restart, a master crash, a heal.
func mixedRun(t *testing.T, seed int64) *Cluster {
	c := Standard(t, seed, Topology{DownAfter: downAfter})
	unpromotable(c)
	c.Run(8 * time.Second)
	c.Partition([]string{"s2"}, []string{"s1", "s3", "r1"})
	c.Run(5 * time.Second)
	c.ClockJump("s1", 4*time.Second)
	c.Run(3 * time.Second)
	c.Restart("s3")
	c.KillMaster()
	c.Run(20 * time.Second)
	c.Heal()
	c.Restart("r0")
	c.Run(20 * time.Second)
	return c
}

// TestReplay: the same seed gives the same trace, byte for byte; another
// seed gives another.
func TestReplay(t *testing.T) {
	t.Parallel()
	a := mixedRun(t, 7).TraceString()
	b := mixedRun(t, 7).TraceString()
	if a != b {
		t.Fatalf("seed 7 does not replay:\n%s", firstDiff(a, b))
	}
	if a == mixedRun(t, 8).TraceString() {
		t.Fatalf("seeds 7 and 8 gave the same trace")
	}
}

// TestReplaySwitchMaster replays runs in which Sentinels switch master:
// observers adopting a newer config with many replicas (the reset closes
// every replica's links), a whole failover, and a chaos schedule.
//
// It fails while monitor.resetMaster releases the replicas' (and
// sentinels') links by ranging over maps: the CloseLink actions come out
// in random order, so the same seed gives another trace. Ranging over
// m.sortedReplicas() / m.sortedSentinels() instead fixes it (checked on a
// copy of the tree); runtime.go's Remove and dropDataLinks have the same
// pattern.
func TestReplaySwitchMaster(t *testing.T) {
	t.Parallel()
	runs := []struct {
		name  string
		times int
		run   func() *Cluster
	}{
		{"hello adoption", 4, func() *Cluster {
			c := switchedCluster(t, 60, 6)
			c.Run(15 * time.Second)
			if len(c.EventsOf("", "+switch-master")) != 2 {
				c.Fatalf("want two +switch-master")
			}
			return c
		}},
		{"failover", 2, func() *Cluster { return scenarioFailover(t, 201) }},
		{"chaos", 2, func() *Cluster {
			return chaos(t, 501, Topology{Sentinels: 5, Replicas: 3, Quorum: 3, DownAfter: downAfter}, 5*time.Second, 3*time.Minute)
		}},
	}
	for _, r := range runs {
		first := r.run().TraceString()
		for i := 1; i < r.times; i++ {
			if again := r.run().TraceString(); again != first {
				t.Fatalf("%s: run %d differs from the first:\n%s", r.name, i+2, firstDiff(first, again))
			}
		}
	}
}

// firstDiff shows where two traces first differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			lo := max(0, i-5)
			return fmt.Sprintf("line %d:\n  %q\nvs\n  %q\ncontext:\n%s", i+1, la[i], lb[i], strings.Join(la[lo:i+1], "\n"))
		}
	}
	return fmt.Sprintf("one trace is a prefix of the other (%d vs %d lines)", len(la), len(lb))
}
