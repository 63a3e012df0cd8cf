package sim

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
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
			if _, err := c.Command("s"+strconv.FormatInt(1+seed%3, 10), msg.Failover{Name: masterName, Coordinated: true}); err != nil {
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
			if h := c.Handovers(); h.Completed != 1 || h.WritesChecked == 0 {
				c.Fatalf("coordinated failover from %s to %s: %+v, want one handover with writes checked", old.Name, m.Name, h)
			}
			acked := len(w.Acked())
			t.Logf("seed %d: %s to %s in %v, %d writes acknowledged, none lost", seed, old.Name, m.Name,
				c.Now().Sub(start).Round(time.Millisecond), acked)
		})
	}
}

// TestHandoverInvariantCatchesForce: FAILOVER TO ... FORCE, which
// Sentinel never sends, hands r0's role over at the deadline to a
// replica 1 s behind: the target promotes itself without the writes
// r0 acknowledged in its last second, and the invariant of coordinated
// handovers reports them. The same FAILOVER without FORCE waits for the
// replica and passes, its handover counted.
func TestHandoverInvariantCatchesForce(t *testing.T) {
	t.Parallel()
	for _, force := range []bool{true, false} {
		c := New(nil, Options{Seed: 1420})
		r0 := c.AddServer("r0", ServerAddr(0))
		r1 := c.AddReplica("r1", ServerAddr(1), r0)
		r1.ReplLag = time.Second
		w := c.AddWriter("w", WriterOptions{Server: r0.Name})
		c.Run(2 * time.Second)
		admin := c.AddClient("admin")
		admin.Connect(r0.Name)
		args := []string{"FAILOVER", "TO", r1.Addr.Host, strconv.Itoa(r1.Addr.Port), "TIMEOUT", "3000"}
		if force {
			args[5] = "100"
			args = append(args, "FORCE")
		}
		admin.Send(args...)
		c.Run(5 * time.Second)
		h := c.Handovers()
		switch err := c.Err(); {
		case force && (err == nil || !strings.Contains(err.Error(), "coordinated handover from r0 to r1 lost")):
			t.Fatalf("FORCE: Err() = %v, want the lost writes of the handover", err)
		case force && (h.Completed != 1 || h.WritesLost == 0):
			t.Fatalf("FORCE: %+v, want 1 handover that lost writes", h)
		case !force && err != nil:
			t.Fatalf("without FORCE: %v", err)
		case !force && (h.Completed != 1 || h.WritesLost != 0 || h.WritesChecked != len(w.Acked())):
			t.Fatalf("without FORCE: %+v, want 1 handover, all %d acknowledged writes checked", h, len(w.Acked()))
		}
		t.Logf("force=%v: %+v; %v", force, h, c.Err())
	}
}
