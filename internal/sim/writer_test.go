package sim

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writerFleet builds a settled standard fleet whose replicas apply writes
// lag behind, with a Writer "w" following s1's address of m, and runs it
// until w has 2 s of acknowledged writes on r0.
func writerFleet(t *testing.T, seed int64, lag time.Duration) (*Cluster, *Writer) {
	t.Helper()
	c := Standard(t, seed, Topology{DownAfter: downAfter})
	for _, s := range c.Servers()[1:] {
		s.ReplLag = lag
	}
	settle(t, c, 2)
	w := c.AddWriter("w", WriterOptions{Sentinel: "s1"})
	c.Run(2 * time.Second)
	if n := len(w.Acked()); n < 50 {
		c.Fatalf("only %d writes acknowledged in 2 s", n)
	}
	return c, w
}

// waitAckedBy runs c until w has a write acknowledged by s after since.
func waitAckedBy(c *Cluster, w *Writer, s *Server, since time.Time, d time.Duration) {
	c.tb.Helper()
	by := func() bool {
		acks := w.Acked()
		return len(acks) > 0 && acks[len(acks)-1].Server == s.Name && acks[len(acks)-1].At.After(since)
	}
	if !c.RunUntil(by, d) {
		c.Fatalf("%s acknowledged none of %s's writes within %v", s.Name, w.Name, d)
	}
}

// TestWriterFollowsSentinel: a writer following s1 writes to r0; r0
// crashes; the writer's connection is reset, it asks s1 again (and again,
// while s1 still names r0) and writes to the promoted replica once s1
// names it. With replication at once, no acknowledged write is lost.
func TestWriterFollowsSentinel(t *testing.T) {
	t.Parallel()
	for seed := int64(1300); seed < 1303; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c, w := writerFleet(t, seed, 0)
			crash := c.Now()
			c.Crash("r0")
			m := waitAgreement(c, time.Minute)
			waitAckedBy(c, w, m, crash, 30*time.Second)
			w.Stop()
			c.Run(time.Second)
			before, after := 0, 0
			for _, a := range w.Acked() {
				switch {
				case a.Server == "r0" && !a.At.After(crash):
					before++
				case a.Server == m.Name && a.At.After(crash):
					after++
				default:
					c.Fatalf("write %s acknowledged by %s at +%v", a.Key, a.Server, a.At.Sub(c.start))
				}
			}
			if err := c.CheckNoLostWrites(w); err != nil {
				c.Fatalf("%v", err)
			}
			if v, _ := m.Get("w:counter"); v != strconv.Itoa(before+after) {
				c.Fatalf("counter %s on %s, want %d", v, m.Name, before+after)
			}
			t.Logf("seed %d: %d writes acknowledged by r0, %d by %s", seed, before, after, m.Name)
		})
	}
}

// TestWriterLosesLaggingWrites: the same with replicas 1 s behind: the
// writes r0 acknowledged in its last second never reached the promoted
// replica, and CheckNoLostWrites reports them.
func TestWriterLosesLaggingWrites(t *testing.T) {
	t.Parallel()
	const lag = time.Second
	c, w := writerFleet(t, 1310, lag)
	crash := c.Now()
	c.Crash("r0")
	m := waitAgreement(c, time.Minute)
	waitAckedBy(c, w, m, crash, 30*time.Second)
	w.Stop()
	c.Run(2 * time.Second)
	lost, n := c.LostWrites(w)
	if n == 0 || n != len(lost) {
		c.Fatalf("LostWrites: %d, %v; want some", n, lost)
	}
	for _, a := range lost {
		if a.Server != "r0" || a.At.After(crash) || crash.Sub(a.At) > lag+maxLatency {
			c.Fatalf("lost write %s acknowledged by %s at +%v, the crash at +%v", a.Key, a.Server, a.At.Sub(c.start), crash.Sub(c.start))
		}
	}
	err := c.CheckNoLostWrites(w)
	if !errors.Is(err, ErrLostWrites) || !strings.Contains(err.Error(), strconv.Itoa(n)+" of ") {
		c.Fatalf("CheckNoLostWrites: %v", err)
	}
	t.Logf("%d of %d acknowledged writes lost: %v", n, len(w.Acked()), err)
}

// TestWriterSplitBrain: r0 is cut off from the Sentinels and its
// replicas, not from the writer, which goes on writing to it while the
// Sentinels promote a replica. Once the cut heals, the Sentinels convert
// r0 into a replica (their CLIENT KILL closes the writer's connection),
// r0 resyncs from the new master and throws away what it acknowledged
// meanwhile: those writes are lost; the writer follows s1 to the new
// master.
func TestWriterSplitBrain(t *testing.T) {
	t.Parallel()
	c, w := writerFleet(t, 1320, 0)
	cut := c.Now()
	c.Partition([]string{"r0"}, append(c.NodeNames(), "r1", "r2"))
	waitAllSwitched(c, cut, time.Minute)
	healed := c.Now()
	c.Heal()
	m := waitAgreement(c, time.Minute)
	waitAckedBy(c, w, m, healed, 30*time.Second)
	w.Stop()
	c.Run(time.Second)
	lost, n := c.LostWrites(w)
	if n == 0 {
		c.Fatalf("no write lost, want those r0 acknowledged after the cut")
	}
	for _, a := range lost {
		if a.Server != "r0" || a.At.Before(cut) {
			c.Fatalf("lost write %s acknowledged by %s at +%v, the cut at +%v", a.Key, a.Server, a.At.Sub(c.start), cut.Sub(c.start))
		}
	}
	for _, a := range w.Acked() {
		if a.Server == "r0" && a.At.After(cut) && !containsAck(lost, a) {
			c.Fatalf("write %s acknowledged by the cut-off r0 survived", a.Key)
		}
	}
	t.Logf("%d writes acknowledged by r0 after the cut, all lost; %s is the master", n, m.Name)
}

// containsAck reports whether acks holds a.
func containsAck(acks []Ack, a Ack) bool {
	for _, x := range acks {
		if x.Key == a.Key {
			return true
		}
	}
	return false
}
