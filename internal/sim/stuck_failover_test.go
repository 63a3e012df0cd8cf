package sim

import (
	"strconv"
	"testing"
	"time"
)

// TestStuckServerFailoverEnded is issue 34's scenario in the simulator:
// r2 is cut off from the Sentinels (they see it down) and then from
// everyone right after a client ran FAILOVER TO r2 TIMEOUT 10 FORCE on
// the master r0, which gives up its role 10 ms later and follows r2,
// whose PSYNC FAILOVER never arrives: r0 stays in failover-in-progress.
// The Sentinels must fail r0 over to r1, end r0's FAILOVER (FAILOVER
// ABORT ahead of the SLAVEOF that demotes it) so that it follows r1, and
// agree on r1 once r2 is back, every invariant holding, seed after seed.
func TestStuckServerFailoverEnded(t *testing.T) {
	t.Parallel()
	for seed := int64(3400); seed < 3410; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			sp := masterSpec(2, 2*time.Second, 10*time.Second, 0)
			c := fleet(t, seed, 2, sp, sp, sp)
			settle(t, c, 2)
			c.Run(2 * time.Second)
			r0, r1, r2 := c.Server("r0"), c.Server("r1"), c.Server("r2")
			sentinels := c.NodeNames()
			c.Partition([]string{"r2"}, sentinels)
			down := func() bool {
				return allNodes(c, func(n *Node) bool {
					for _, r := range replicasOf(t, n) {
						if Field(r, "name") == r2.Addr.Host+":"+strconv.Itoa(r2.Addr.Port) && hasFlag(Field(r, "flags"), "s_down") {
							return true
						}
					}
					return false
				})
			}
			if !c.RunUntil(down, 30*time.Second) {
				c.Fatalf("the Sentinels do not see r2 down")
			}
			admin := c.AddClient("admin")
			admin.Connect(r0.Name)
			c.Run(100 * time.Millisecond)
			admin.Send("FAILOVER", "TO", r2.Addr.Host, strconv.Itoa(r2.Addr.Port), "TIMEOUT", "10", "FORCE")
			start := c.Now()
			if !c.RunUntil(func() bool { return r0.FailoverState() != "no-failover" }, time.Second) {
				c.Fatalf("r0 did not start the FAILOVER: %v", admin.Replies())
			}
			c.Isolate("r2")
			stuck := func() bool { return r0.FailoverState() == "failover-in-progress" }
			if !c.RunUntil(stuck, time.Second) {
				c.Fatalf("r0 is not stuck in the FAILOVER: %s", r0.FailoverState())
			}
			ended := func() bool {
				if r0.FailoverState() != "no-failover" || r0.Role != RoleReplica || r0.MasterAddr != r1.Addr || r1.Role != RoleMaster {
					return false
				}
				return allNodes(c, func(n *Node) bool { a, _ := n.Core.View().MasterAddr(masterName); return a == r1.Addr })
			}
			if !c.RunUntil(ended, time.Minute) {
				c.Fatalf("a minute after the FAILOVER: r0 %s, %s of %v; r1 %s", r0.FailoverState(), r0.Role, r0.MasterAddr, r1.Role)
			}
			took := c.Now().Sub(start)
			c.Heal()
			if m := waitAgreement(c, time.Minute); m != r1 {
				c.Fatalf("agreement on %s, want r1", m.Name)
			}
			if err := c.Err(); err != nil {
				c.Fatalf("%v", err)
			}
			t.Logf("seed %d: r0's FAILOVER ended and every Sentinel on r1 %v after the command", seed, took.Round(time.Millisecond))
		})
	}
}
