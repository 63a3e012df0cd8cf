package sim

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPromotedMasterNotFailedOverAgain is Redis hazard (b) of
// docs/compatibility.md: with down-after 1 s and quorum 1, Redis 7.0.15
// can fail a just-promoted, healthy master over again, because after
// +switch-master the link to the new address is reopened only a ping
// period after the last attempt to the old one, by which time the new
// master already looks down. Over many seeds, no failover may start
// against the master the first failover promoted.
func TestPromotedMasterNotFailedOverAgain(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 40; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := Standard(t, seed, Topology{Quorum: 1, DownAfter: time.Second, FailoverTimeout: 30 * time.Second})
			settle(t, c, 2)
			kill := c.Now()
			c.KillMaster()
			if !c.RunUntil(func() bool { return len(c.EventsSince(kill, "", "+switch-master")) >= 3 }, time.Minute) {
				c.Fatalf("the first failover did not reach every Sentinel")
			}
			first := c.EventsSince(kill, "", "+switch-master")[0]
			promoted := strings.Fields(first.Msg)[3] // <name> <old-ip> <old-port> <new-ip> <new-port>
			c.Run(time.Minute)
			for _, e := range c.EventsSince(kill, "", "+switch-master") {
				if f := strings.Fields(e.Msg); f[1] == promoted {
					c.Fatalf("%s failed the healthy promoted master %s over again: %s", e.Node, promoted, e.Msg)
				}
			}
			for _, e := range c.EventsSince(first.At, "", "+sdown") {
				if strings.HasPrefix(e.Msg, "master ") {
					c.Fatalf("%s: %s %s after the switch to %s", e.Node, e.Type, e.Msg, promoted)
				}
			}
		})
	}
}
