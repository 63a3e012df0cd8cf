package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestTilt: a node whose clock jumps (either way) enters TILT. While in
// TILT it answers is-master-down-by-addr with "not down" even though it
// still holds the master SDOWN, so its peers stop counting it; it leaves
// TILT after TILT-PERIOD and says "down" again.
func TestTilt(t *testing.T) {
	t.Parallel()
	for i, jump := range []time.Duration{10 * time.Second, -5 * time.Second} {
		t.Run(jump.String(), func(t *testing.T) {
			c := Standard(t, int64(30+i), Topology{DownAfter: downAfter})
			unpromotable(c)
			settle(t, c, 2)
			crash := c.Now()
			c.KillMaster()
			if !c.RunUntil(func() bool {
				return allNodes(c, func(n *Node) bool { return len(masterEvents(c, crash, n.Name, "+odown")) > 0 })
			}, 3*downAfter) {
				c.Fatalf("no ODOWN")
			}
			c.Run(2 * time.Second)

			s1 := c.Node("s1")
			r0 := c.Server("r0").Addr
			askS1 := func() gossip.AskReply {
				return askDown(c, "s1", gossip.AskRequest{IP: r0.Host, Port: r0.Port,
					CurrentEpoch: s1.Core.CurrentEpoch(), RunID: gossip.NoVote})
			}
			if !askS1().Down {
				c.Fatalf("s1 says the crashed master is not down before TILT")
			}
			jumped := c.Now()
			c.ClockJump("s1", jump)
			if !c.RunUntil(func() bool { return len(c.EventsSince(jumped, "s1", "+tilt")) > 0 }, time.Second) {
				c.Fatalf("no +tilt after a clock jump of %v", jump)
			}
			tiltAt := c.EventsSince(jumped, "s1", "+tilt")[0].At
			if on, _ := s1.Core.Tilt(); !on {
				c.Fatalf("s1 not in TILT after +tilt")
			}
			if len(c.EventsSince(jumped, "", "+tilt")) != 1 {
				c.Fatalf("another node entered TILT: %v", c.EventsSince(jumped, "", "+tilt"))
			}
			c.Run(3 * time.Second)
			if !hasFlag(flagsOf(t, s1), "s_down") {
				c.Fatalf("s1 forgot SDOWN in TILT (it must be frozen): %q", flagsOf(t, s1))
			}
			if askS1().Down {
				c.Fatalf("s1 in TILT says the master is down")
			}
			s1ID := s1.Core.MyID()
			for _, name := range []string{"s2", "s3"} {
				n := c.Node(name)
				if !askDown(c, n.Name, gossip.AskRequest{IP: r0.Host, Port: r0.Port, RunID: gossip.NoVote}).Down {
					c.Fatalf("%s (not in TILT) says the master is not down", name)
				}
				for _, kv := range sentinelsOf(t, n) {
					if Field(kv, "runid") == s1ID && hasFlag(Field(kv, "flags"), "master_down") {
						c.Fatalf("%s still counts s1's opinion while s1 is in TILT: %q", name, Field(kv, "flags"))
					}
				}
			}

			period := time.Duration(settings.DefaultTiming().TiltPeriodMs) * time.Millisecond
			if !c.RunUntil(func() bool { return len(c.EventsSince(jumped, "s1", "-tilt")) > 0 }, period+time.Second) {
				c.Fatalf("no -tilt within %v", period+time.Second)
			}
			d := c.EventsSince(jumped, "s1", "-tilt")[0].At.Sub(tiltAt)
			if d < period || d > period+200*time.Millisecond {
				c.Fatalf("TILT lasted %v, want just over %v", d, period)
			}
			if on, _ := s1.Core.Tilt(); on {
				c.Fatalf("s1 still in TILT after -tilt")
			}
			c.Run(500 * time.Millisecond)
			if !askS1().Down {
				c.Fatalf("s1 out of TILT says the crashed master is not down")
			}
			if e := c.EventsOf("s1", "+tilt"); !strings.Contains(e[0].Msg, "#tilt mode entered") {
				c.Fatalf("+tilt message %q", e[0].Msg)
			}
		})
	}
}

// askDown sends node an IS-MASTER-DOWN-BY-ADDR and returns its answer.
func askDown(c *Cluster, node string, req gossip.AskRequest) gossip.AskReply {
	ans, err := c.Command(node, msg.IsMasterDownByAddr{Request: req})
	if err != nil {
		c.Fatalf("%s: IsMasterDownByAddr: %v", node, err)
	}
	return ans.(gossip.AskReply)
}
