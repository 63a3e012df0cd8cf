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

// TestStuckLeaderSwitchesToNewerConfig is Redis hazard (a) of
// docs/compatibility.md, which Redis 7.0.15 has (sentinelProcessHelloMessage
// compares a newer config with master->addr, not with the address the
// Sentinel announces):
//
//  1. r0 crashes; leader L (epoch 1) promotes replica P and enters
//     reconf_slaves; the observers switch to P.
//  2. P crashes: L's failover is stuck (its end is not even checked while
//     the promoted replica is SDOWN), and L's master->addr is still r0's.
//  3. r0 comes back; the observers fail P over in epoch 2 and promote r0.
//  4. Redis: L receives the epoch-2 hello naming r0 = its master->addr, so
//     it takes config epoch 2 but does not switch: it holds epoch 2 for P,
//     and Sentinels holding different masters under one config epoch never
//     converge. go-sentinel: L aborts its superseded failover and switches
//     from P to r0.
//
// The invariants (one master address per config epoch, no failover acting
// on an epoch older than a persisted config epoch) watch every step.
func TestStuckLeaderSwitchesToNewerConfig(t *testing.T) {
	t.Parallel()
	c := Standard(t, 700, Topology{DownAfter: downAfter, FailoverTimeout: 30 * time.Second})
	settle(t, c, 2)
	crash := c.Now()
	c.KillMaster()
	if !c.RunUntil(func() bool { return len(c.EventsSince(crash, "", "+failover-state-reconf-slaves")) > 0 }, time.Minute) {
		c.Fatalf("no failover reached reconf_slaves")
	}
	leader := c.Node(c.EventsSince(crash, "", "+failover-state-reconf-slaves")[0].Node)
	promotedAddr, _ := leader.Core.View().MasterAddr(masterName)
	if !c.RunUntil(func() bool { return len(c.EventsSince(crash, "", "+switch-master")) >= 2 }, 5*time.Second) {
		c.Fatalf("the observers did not switch")
	}
	for _, s := range c.Servers()[1:] {
		if s.Addr == promotedAddr {
			c.Crash(s.Name)
		} else {
			s.Priority = 0 // so that epoch 2 promotes the old master
		}
	}
	c.Restart("r0")
	r0 := c.Server("r0").Addr
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool { a, _ := n.Core.View().MasterAddr(masterName); return a == r0 })
	}, 3*time.Minute) {
		c.Fatalf("the Sentinels did not converge on r0")
	}
	if len(c.EventsSince(crash, leader.Name, "-failover-abort-superseded")) != 1 {
		c.Fatalf("%s did not abort its superseded failover", leader.Name)
	}
	want := masterName + " " + promotedAddr.Host + " " + strconv.Itoa(promotedAddr.Port) + " " + r0.Host + " " + strconv.Itoa(r0.Port)
	found := false
	for _, e := range c.EventsSince(crash, leader.Name, "+switch-master") {
		found = found || e.Msg == want
	}
	if !found {
		c.Fatalf("%s did not switch from the replica it promoted to r0 (+switch-master %s)", leader.Name, want)
	}
	c.Run(time.Minute)
}
