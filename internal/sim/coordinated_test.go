package sim

import (
	"strconv"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// TestCoordinatedFailoverLosesNoWrite: SENTINEL FAILOVER ... COORDINATED
// under a writer that follows its Sentinel, with replicas up to 50 ms
// behind: every Sentinel agrees on the promoted replica and no
// acknowledged write is lost (the invariant of a coordinated failover
// that completed), seed after seed. The plain form, in the same fleets,
// pauses the old master before SLAVEOF NO ONE and may lose only the
// writes the promoted replica had not received.
func TestCoordinatedFailoverLosesNoWrite(t *testing.T) {
	t.Parallel()
	for seed := int64(1400); seed < 1410; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c, w := writerFleet(t, seed, time.Duration(seed%6)*10*time.Millisecond)
			start := c.Now()
			old := c.Master()
			if _, err := c.Command("s"+strconv.FormatInt(1+seed%3, 10), monitor.Failover{Name: masterName, Coordinated: true}); err != nil {
				c.Fatalf("SENTINEL FAILOVER COORDINATED: %v", err)
			}
			moved := func() bool { m := c.Master(); return m != nil && m != old && agreement(c) == nil }
			if !c.RunUntil(moved, time.Minute) {
				c.Fatalf("no agreement on a new master a minute after the coordinated failover: %v", agreement(c))
			}
			m := c.Master()
			waitAckedBy(c, w, m, start, 30*time.Second)
			w.Stop()
			c.Run(time.Second)
			if err := c.CheckNoLostWrites(w); err != nil {
				c.Fatalf("coordinated failover from %s to %s: %v", old.Name, m.Name, err)
			}
			acked := len(w.Acked())
			t.Logf("seed %d: %s to %s in %v, %d writes acknowledged, none lost", seed, old.Name, m.Name,
				c.Now().Sub(start).Round(time.Millisecond), acked)
		})
	}
}
