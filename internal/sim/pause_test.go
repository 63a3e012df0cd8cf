package sim

import (
	"testing"
	"time"
)

// TestPausedMasterHoldsSentinelLinks: while r0's clients are paused, the
// Sentinels' hellos (PUBLISH on their command links) are held, and what
// they send after them waits on the link too, as on a real paused Redis;
// under a pause of everything even their PING and INFO wait. The
// invariants hold (a held command is neither answered nor lost) and
// everything drains once the pause ends.
func TestPausedMasterHoldsSentinelLinks(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"WRITE", "ALL"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := Standard(t, 1330, Topology{DownAfter: downAfter})
			settle(t, c, 2)
			admin := c.AddClient("admin")
			admin.Connect("r0")
			admin.Send("CLIENT", "PAUSE", "3000", mode)
			end := c.Now().Add(3 * time.Second)
			held := func() bool {
				return allNodes(c, func(n *Node) bool { return Field(masterKV(t, n), "link-pending-commands") != "0" })
			}
			if !c.RunUntil(held, 3*time.Second) {
				c.Fatalf("not every Sentinel has commands held by r0's pause")
			}
			c.RunUntil(func() bool { return c.Now().After(end) }, 4*time.Second)
			drained := func() bool {
				return allNodes(c, func(n *Node) bool { return Field(masterKV(t, n), "link-pending-commands") == "0" })
			}
			if !c.RunUntil(drained, time.Second) {
				c.Fatalf("commands still pending a second after the pause ended")
			}
			c.Run(5 * time.Second)
			if e := c.EventsOf("", "+sdown"); len(e) != 0 {
				c.Fatalf("a 3 s pause made a Sentinel see r0 down: %v", e)
			}
		})
	}
}
