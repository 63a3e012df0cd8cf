package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// TestQueueOrder: items run in time order, and in scheduling order at the
// same instant.
func TestQueueOrder(t *testing.T) {
	t.Parallel()
	var s scheduler
	var got []int
	t0 := DefaultStart
	for i, d := range []time.Duration{3, 1, 2, 1, 0, 3} {
		i := i
		s.at(t0.Add(d), func() { got = append(got, i) })
	}
	for it := s.next(t0.Add(2)); it != nil; it = s.next(t0.Add(2)) {
		it.fn()
	}
	if want := []int{4, 1, 3, 2}; !equalInts(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if it := s.next(t0.Add(3)); it == nil {
		t.Fatal("items due later were lost")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestShortPartitionLosesNothing: a partition shorter than the staleness
// rules stalls established links; after healing every reply arrives, in
// order, on the same links, and nothing is reported down.
func TestShortPartitionLosesNothing(t *testing.T) {
	t.Parallel()
	c := Standard(t, 70, Topology{DownAfter: 10 * time.Second})
	settle(t, c, 2)
	c.Run(3 * time.Second)
	cut := c.Now()
	c.Partition([]string{"s1"}, []string{"r0"})
	c.Run(2 * time.Second)
	stalled := 0
	for _, cn := range c.conns {
		if cn.from.Name == "s1" && cn.toSrv != nil && cn.toSrv.Name == "r0" {
			stalled += len(cn.pipes[upstream].q) + len(cn.pipes[downstream].q)
		}
	}
	if stalled == 0 {
		t.Fatalf("nothing stalled on s1's links to r0")
	}
	c.Heal()
	c.Run(5 * time.Second) // the invariants check every reply arrives once
	for _, e := range c.EventsSince(cut, "s1", "") {
		if strings.HasSuffix(string(e.Type), "-link-reconnection") || e.Type == "+sdown" {
			c.Fatalf("a short partition caused %s", e)
		}
	}
}

// TestClientKillPubSub: CLIENT KILL TYPE pubsub on a server closes every
// Sentinel's pub/sub link to it; they are reopened.
func TestClientKillPubSub(t *testing.T) {
	t.Parallel()
	c := Standard(t, 71, Topology{})
	settle(t, c, 2)
	at := c.Now()
	r1 := c.Server("r1")
	if n := c.clientKill(r1, nil, "pubsub"); n != 3 {
		t.Fatalf("killed %d pub/sub clients, want 3", n)
	}
	c.Run(3 * time.Second)
	for _, n := range c.Nodes() {
		if !c.HasEvent(at, n.Name, "-pubsub-link-reconnection", "slave 10.0.1.2:6379") {
			c.Fatalf("%s: pub/sub link to r1 not closed", n.Name)
		}
		for _, kv := range replicasOf(t, n) {
			if Field(kv, "flags") != "slave" {
				c.Fatalf("%s: %s flags %q after reconnecting", n.Name, Field(kv, "name"), Field(kv, "flags"))
			}
		}
	}
}

// TestExitAndRestart: an Exit action stops the node like a crash (its
// peers see it SDOWN); a restart from its disk brings it back with its
// identity.
func TestExitAndRestart(t *testing.T) {
	t.Parallel()
	c := Standard(t, 72, Topology{DownAfter: downAfter})
	settle(t, c, 2)
	s2 := c.Node("s2")
	id := s2.Core.MyID()
	at := c.Now()
	before := len(c.EventsOf("s2", ""))
	c.act(s2, msg.Exit{Code: 99})
	if !s2.Crashed() {
		t.Fatalf("Exit did not stop the node")
	}
	c.Run(2 * downAfter)
	for _, name := range []string{"s1", "s3"} {
		if !c.HasEvent(at, name, "+sdown", "sentinel "+id) {
			c.Fatalf("%s does not see the exited s2 SDOWN", name)
		}
	}
	if len(c.EventsOf("s2", "")) != before {
		c.Fatalf("a stopped node emitted events")
	}
	back := c.Now()
	c.Restart("s2")
	c.Run(5 * time.Second)
	if s2.Core.MyID() != id {
		c.Fatalf("restart changed the id")
	}
	for _, name := range []string{"s1", "s3"} {
		if !c.HasEvent(back, name, "-sdown", "sentinel "+id) {
			c.Fatalf("%s does not see s2 back", name)
		}
	}
}
