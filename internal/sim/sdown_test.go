package sim

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

var quorumRE = regexp.MustCompile(`#quorum ([0-9]+)/([0-9]+)$`)

// scenarioSDownODown crashes the master of a settled 3-Sentinel cluster
// with quorum 2 and checks, on every node: +sdown no sooner than
// down-after after the crash (less the one-way delay of a PING that was
// already on the wire: SDOWN counts from the oldest unanswered PING),
// then +odown with #quorum 2/2 or 3/2; restarting the master clears both.
// The replicas have priority 0, so the Sentinels elect a leader (which the
// invariants watch) but it aborts with no good replica and the master
// stays the master.
func scenarioSDownODown(t *testing.T, seed int64) *Cluster {
	c := Standard(t, seed, Topology{Quorum: 2, DownAfter: downAfter})
	unpromotable(c)
	settle(t, c, 2)
	c.Run(time.Duration(c.Rand().Intn(10000)) * time.Millisecond)

	crash := c.Now()
	c.KillMaster()
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool { return len(masterEvents(c, crash, n.Name, "+odown")) > 0 })
	}, 3*downAfter) {
		c.Fatalf("not every node reached ODOWN within %v of the crash", 3*downAfter)
	}
	for _, n := range c.Nodes() {
		sd := masterEvents(c, crash, n.Name, "+sdown")
		od := masterEvents(c, crash, n.Name, "+odown")
		if len(sd) != 1 || len(od) != 1 {
			c.Fatalf("%s: %d +sdown and %d +odown events for the master", n.Name, len(sd), len(od))
		}
		if early := sd[0].At.Sub(crash); early < downAfter-maxLatency {
			c.Fatalf("%s: +sdown %v after the crash, before down-after %v", n.Name, early, downAfter)
		}
		if late := sd[0].At.Sub(crash); late > downAfter+200*time.Millisecond {
			c.Fatalf("%s: +sdown only %v after the crash", n.Name, late)
		}
		if od[0].At.Before(sd[0].At) {
			c.Fatalf("%s: +odown before +sdown", n.Name)
		}
		m := quorumRE.FindStringSubmatch(od[0].Msg)
		if m == nil || (m[1] != "2" && m[1] != "3") || m[2] != "2" {
			c.Fatalf("%s: %q, want #quorum 2/2 or 3/2", n.Name, od[0].String())
		}
		if f := flagsOf(t, n); !hasFlag(f, "s_down") || !hasFlag(f, "o_down") {
			c.Fatalf("%s: master flags %q", n.Name, f)
		}
	}

	// While the master stays dead, nothing flaps: no -sdown, no -odown,
	// no second +sdown.
	c.Run(2 * downAfter)
	for _, n := range c.Nodes() {
		if sd, un := masterEvents(c, crash, n.Name, "+sdown"), masterEvents(c, crash, n.Name, "-sdown"); len(sd) != 1 || len(un) != 0 {
			c.Fatalf("%s: %d +sdown and %d -sdown while the master is dead", n.Name, len(sd), len(un))
		}
		if un := masterEvents(c, crash, n.Name, "-odown"); len(un) != 0 {
			c.Fatalf("%s: -odown while the master is dead", n.Name)
		}
	}

	back := c.Now()
	c.Restart("r0")
	// -odown may come first: once the others answer "not down" the votes
	// fall below the quorum while this node still waits for its PONG.
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool {
			return len(masterEvents(c, back, n.Name, "-odown")) == 1 && len(masterEvents(c, back, n.Name, "-sdown")) == 1
		})
	}, 5*time.Second) {
		c.Fatalf("not every node left SDOWN and ODOWN within 5 s of the master's restart")
	}
	// The new run_id shows in the next INFO, at most an INFO period later.
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool { return len(masterEvents(c, back, n.Name, "+reboot")) == 1 })
	}, 11*time.Second) {
		c.Fatalf("not every node saw the master's new run_id (+reboot)")
	}
	return c
}

func TestSDownODown(t *testing.T) {
	t.Parallel()
	c := scenarioSDownODown(t, 2)
	c.Run(30 * time.Second)
	for _, n := range c.Nodes() {
		if f := flagsOf(t, n); f != "master" {
			c.Fatalf("%s: master flags %q after recovery", n.Name, f)
		}
	}
}

// TestSDownODownSeeds runs the crash scenario with 20 seeds; the
// invariants are checked after every step of each.
func TestSDownODownSeeds(t *testing.T) {
	t.Parallel()
	for seed := int64(100); seed < 120; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := scenarioSDownODown(t, seed)
			c.Run(20 * time.Second)
		})
	}
}

// TestSDownStalledMaster is the SIGSTOP case: the master's connections
// stay open but nothing comes back (a stall in both directions). Each
// Sentinel logs +sdown once, down-after after its first unanswered PING,
// and -sdown only once the master answers again after the stall ends.
func TestSDownStalledMaster(t *testing.T) {
	t.Parallel()
	for seed := int64(200); seed < 210; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := Standard(t, seed, Topology{Quorum: 2, DownAfter: downAfter})
			unpromotable(c)
			settle(t, c, 2)
			c.Run(time.Duration(c.Rand().Intn(3000)) * time.Millisecond)
			stall := c.Now()
			c.Partition([]string{"r0"}, c.NodeNames())
			c.Run(3 * downAfter)
			for _, n := range c.Nodes() {
				sd := masterEvents(c, stall, n.Name, "+sdown")
				if len(sd) != 1 || len(masterEvents(c, stall, n.Name, "-sdown")) != 0 {
					c.Fatalf("%s: %d +sdown, %d -sdown during the stall", n.Name, len(sd), len(masterEvents(c, stall, n.Name, "-sdown")))
				}
				// The first PING the stall swallows leaves within a ping
				// period (1 s) of its start.
				if d := sd[0].At.Sub(stall); d < downAfter || d > downAfter+time.Second+200*time.Millisecond {
					c.Fatalf("%s: +sdown %v after the stall began", n.Name, d)
				}
			}
			healed := c.Now()
			c.Heal()
			if !c.RunUntil(func() bool {
				return allNodes(c, func(n *Node) bool { return len(masterEvents(c, healed, n.Name, "-sdown")) == 1 })
			}, 5*time.Second) {
				c.Fatalf("SDOWN not cleared within 5 s of the end of the stall")
			}
			c.Run(2 * downAfter)
			for _, n := range c.Nodes() {
				if len(masterEvents(c, stall, n.Name, "+sdown")) != 1 || len(masterEvents(c, stall, n.Name, "-sdown")) != 1 {
					c.Fatalf("%s: more than one SDOWN for one stall", n.Name)
				}
			}
		})
	}
}

// TestNoODownWithoutQuorum: with quorum 3 and one Sentinel cut off from
// the other two, the master's crash is SDOWN everywhere but ODOWN nowhere;
// healing brings the third opinion and +odown #quorum 3/3.
func TestNoODownWithoutQuorum(t *testing.T) {
	t.Parallel()
	c := Standard(t, 3, Topology{Quorum: 3, DownAfter: downAfter})
	unpromotable(c)
	settle(t, c, 2)
	c.Run(3 * time.Second)
	c.Partition([]string{"s3"}, []string{"s1", "s2"})
	crash := c.Now()
	c.KillMaster()
	c.Run(30 * time.Second)
	for _, n := range c.Nodes() {
		if len(masterEvents(c, crash, n.Name, "+sdown")) != 1 {
			c.Fatalf("%s: master not SDOWN", n.Name)
		}
	}
	if od := masterEvents(c, crash, "", "+odown"); len(od) != 0 {
		c.Fatalf("ODOWN without quorum: %v", od)
	}
	healed := c.Now()
	c.Heal()
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool { return len(masterEvents(c, healed, n.Name, "+odown")) > 0 })
	}, 10*time.Second) {
		c.Fatalf("no ODOWN after healing")
	}
	for _, e := range masterEvents(c, healed, "", "+odown") {
		if m := quorumRE.FindStringSubmatch(e.Msg); m == nil || m[1] != "3" || m[2] != "3" {
			c.Fatalf("%s: %q, want #quorum 3/3", e.Node, e.String())
		}
	}
	back := c.Now()
	c.Restart("r0")
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool {
			return len(masterEvents(c, back, n.Name, "-sdown")) > 0 && len(masterEvents(c, back, n.Name, "-odown")) > 0
		})
	}, 5*time.Second) {
		c.Fatalf("SDOWN/ODOWN not cleared after the master came back")
	}
}

// unpromotable gives every replica priority 0, so no failover can pick one.
func unpromotable(c *Cluster) {
	for _, s := range c.Servers() {
		if s.Role == RoleReplica {
			s.Priority = 0
		}
	}
}
