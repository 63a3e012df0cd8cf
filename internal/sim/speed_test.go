package sim

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
)

// speedDownAfter is the down-after of the failover speed runs, as in the
// issue's benchmark topology.
const speedDownAfter = time.Second

// speedResult is what one failover speed run measured, in virtual time.
type speedResult struct {
	first, all  time.Duration // kill + down-after → first / every +switch-master
	splitVotes  int           // -failover-abort-not-elected events
	tries       int           // +try-failover events for the dead master
	healthyFail int           // +try-failover events after the switch (a healthy master)
	phases      map[string]time.Duration
}

// speedRun kills the master of a settled 3-Sentinel fleet (quorum 2,
// down-after 1 s, latency lo..hi) and measures the failover, then watches
// the new master for two more minutes.
func speedRun(tb TB, seed int64, lo, hi time.Duration) speedResult {
	c := StandardWith(tb, Options{Seed: seed, MinLatency: lo, MaxLatency: hi}, Topology{DownAfter: speedDownAfter, FailoverTimeout: 30 * time.Second})
	settle(tb, c, 2)
	c.Run(time.Duration(c.Rand().Intn(2000)) * time.Millisecond)
	kill := c.Now()
	c.KillMaster()
	if !c.RunUntil(func() bool { return len(c.EventsSince(kill, "", event.SwitchMaster)) == len(c.Nodes()) }, 2*time.Minute) {
		c.Fatalf("not every Sentinel switched within 2 minutes")
	}
	sw := c.EventsSince(kill, "", event.SwitchMaster)
	base := kill.Add(speedDownAfter)
	r := speedResult{first: sw[0].At.Sub(base), all: sw[len(sw)-1].At.Sub(base)}
	r.splitVotes = len(c.EventsSince(kill, "", "-failover-abort-not-elected"))
	r.tries = len(c.EventsSince(kill, "", event.TryFailover))
	r.phases = map[string]time.Duration{}
	if tl := c.EventsSince(kill, "", event.FailoverTimeline); len(tl) > 0 {
		for _, f := range strings.Fields(tl[0].Msg) {
			if name, v, ok := strings.Cut(f, "+"); ok {
				d, _ := time.ParseDuration(v)
				r.phases[name] = d
			}
		}
	}
	end := sw[len(sw)-1].At
	c.Run(2 * time.Minute)
	r.healthyFail = len(c.EventsSince(end, "", event.TryFailover))
	return r
}

// TestFailoverSpeed measures, over SIM_SPEED_SEEDS seeds (10 when unset,
// the short form make test runs; `make sim-speed`), how long a failover takes beyond down-after
// in virtual time, how often the election splits, and whether the
// promoted master is ever failed over again, for loopback-like (1-5 ms)
// and LAN-like (1-20 ms) latencies. The figures go next to each change
// of the failover's timing (issue 10: no rise in split votes or in
// failovers of healthy masters).
func TestFailoverSpeed(t *testing.T) {
	// Without SIM_SPEED_SEEDS (make test), a short form of 10 kills per
	// latency profile; `make sim-speed` runs SEEDS of them.
	n := envInt("SIM_SPEED_SEEDS", 10)
	for _, lat := range []struct{ lo, hi time.Duration }{{time.Millisecond, 5 * time.Millisecond}, {time.Millisecond, 20 * time.Millisecond}} {
		var firsts, alls []time.Duration
		var split, tries, healthy, splitRuns int
		phases := map[string][]time.Duration{}
		for seed := int64(1); seed <= n; seed++ {
			r := speedRun(t, seed, lat.lo, lat.hi)
			firsts, alls = append(firsts, r.first), append(alls, r.all)
			split += r.splitVotes
			tries += r.tries
			healthy += r.healthyFail
			for k, v := range r.phases {
				phases[k] = append(phases[k], v)
			}
			if r.splitVotes > 0 {
				splitRuns++
			}
		}
		t.Logf("latency %v-%v, %d kills: beyond down-after to first +switch-master %s; to every Sentinel %s; "+
			"runs with a split vote %d (%.1f%%), +try-failover per kill %.2f, failovers of the healthy new master %d",
			lat.lo, lat.hi, n, quantiles(firsts), quantiles(alls), splitRuns, 100*float64(splitRuns)/float64(n),
			float64(tries)/float64(n), healthy)
		if healthy != 0 {
			t.Errorf("latency %v-%v: %d failovers of the healthy new master; want 0", lat.lo, lat.hi, healthy)
		}
		for _, p := range []string{"sdown", "odown", "try-failover", "elected", "selected", "promoted", "failover-end"} {
			if len(phases[p]) > 0 {
				t.Logf("  leader phase %-13s %s", p, quantiles(phases[p]))
			}
		}
	}
}

// quantiles renders the median, 90th percentile and maximum.
func quantiles(ds []time.Duration) string {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	q := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))].Round(time.Millisecond) }
	return strings.TrimSpace(fmt.Sprintf("median %v p90 %v max %v", q(0.5), q(0.9), s[len(s)-1].Round(time.Millisecond)))
}
