package sim

import (
	"strings"
	"testing"
	"time"
)

// TestPartitionedSentinelReconnects cuts s3 off from everything. Its
// established links hang (nothing comes back) until the core itself
// closes them by its staleness rules (§3.4: the command link once a PING
// is older than down-after/2, the pub/sub link after 6 s of silence, both
// only for links older than 15 s); new connections are refused, so the
// links show `disconnected` on both sides. After healing every link is
// reopened and the flags are clean again.
func TestPartitionedSentinelReconnects(t *testing.T) {
	t.Parallel()
	c := Standard(t, 40, Topology{DownAfter: downAfter})
	settle(t, c, 2)
	c.Run(20 * time.Second) // every link is now older than 15 s
	s3 := c.Node("s3")
	s3ID := s3.Core.MyID()
	cut := c.Now()
	c.Isolate("s3")

	disconnected := func() bool {
		if !hasFlag(flagsOf(t, s3), "disconnected") {
			return false
		}
		for _, name := range []string{"s1", "s2"} {
			for _, kv := range sentinelsOf(t, c.Node(name)) {
				if Field(kv, "runid") == s3ID && !hasFlag(Field(kv, "flags"), "disconnected") {
					return false
				}
			}
		}
		return true
	}
	if !c.RunUntil(disconnected, 30*time.Second) {
		c.Fatalf("links across the partition never showed disconnected: s3 master flags %q", flagsOf(t, s3))
	}
	if d := c.Now().Sub(cut); d < downAfter/2 {
		c.Fatalf("links closed %v after the cut, before any staleness rule could fire", d)
	}
	// The core closed its hung links itself (CloseLink), it was not told.
	closedByCore := false
	for _, l := range c.Trace() {
		if strings.Contains(l, " s3  close s3>r0 ") {
			closedByCore = true
		}
	}
	if !closedByCore {
		c.Fatalf("s3 never closed its hung link to the master")
	}
	c.Run(20 * time.Second)
	for _, n := range c.Nodes() {
		if n.Name == "s3" {
			if len(masterEvents(c, cut, "s3", "+sdown")) != 1 {
				c.Fatalf("isolated s3 does not see the master SDOWN")
			}
			continue
		}
		if !c.HasEvent(cut, n.Name, "+sdown", "sentinel "+s3ID) {
			c.Fatalf("%s does not see s3 SDOWN", n.Name)
		}
		if len(masterEvents(c, cut, n.Name, "+sdown")) != 0 {
			c.Fatalf("%s sees the master down although only s3 was cut off", n.Name)
		}
	}

	healed := c.Now()
	c.Heal()
	clean := func() bool {
		for _, n := range c.Nodes() {
			if flagsOf(t, n) != "master" {
				return false
			}
			for _, kv := range replicasOf(t, n) {
				if Field(kv, "flags") != "slave" {
					return false
				}
			}
			for _, kv := range sentinelsOf(t, n) {
				if Field(kv, "flags") != "sentinel" {
					return false
				}
			}
		}
		return true
	}
	if !c.RunUntil(clean, 10*time.Second) {
		c.Fatalf("flags not clean 10 s after healing: s3 master %q", flagsOf(t, s3))
	}
	if !c.HasEvent(healed, "s3", "-sdown", "master m ") {
		c.Fatalf("s3 never saw the master up again")
	}
	for _, name := range []string{"s1", "s2"} {
		if !c.HasEvent(healed, name, "-sdown", "sentinel "+s3ID) {
			c.Fatalf("%s never saw s3 up again", name)
		}
	}
}
