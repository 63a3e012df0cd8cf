package sim

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// scenarioFailover crashes the master of a settled standard cluster and
// checks the failover end to end: one leader is elected (the invariants
// check one leader per epoch and one vote per node and epoch after every
// step), it promotes a replica with SLAVEOF NO ONE, points the other
// replica at it, and every Sentinel ends up with the promoted address;
// when the old master comes back it is converted to a replica of the new
// one.
func scenarioFailover(t *testing.T, seed int64) *Cluster {
	c := Standard(t, seed, Topology{DownAfter: downAfter})
	settle(t, c, 2)
	c.Run(time.Duration(c.Rand().Intn(5000)) * time.Millisecond)
	crash := c.Now()
	old := c.KillMaster()

	var promoted *Server
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool { return len(c.EventsSince(crash, n.Name, "+switch-master")) > 0 })
	}, time.Minute) {
		c.Fatalf("not every Sentinel switched master within a minute of the crash")
	}
	for _, s := range c.Servers() {
		if s != old && s.Role == RoleMaster {
			if promoted != nil {
				c.Fatalf("two servers are masters: %s and %s", promoted.Name, s.Name)
			}
			promoted = s
		}
	}
	if promoted == nil {
		c.Fatalf("no replica was promoted")
	}
	elected := c.EventsSince(crash, "", "+elected-leader")
	if len(elected) == 0 {
		c.Fatalf("no +elected-leader")
	}
	want := fmt.Sprintf("m %s %d %s %d", old.Addr.Host, old.Addr.Port, promoted.Addr.Host, promoted.Addr.Port)
	for _, n := range c.Nodes() {
		sw := c.EventsSince(crash, n.Name, "+switch-master")
		if len(sw) != 1 || sw[0].Msg != want {
			c.Fatalf("%s: +switch-master %v, want %q", n.Name, sw, want)
		}
		if a, _ := n.Core.View().MasterAddr(masterName); a != promoted.Addr {
			c.Fatalf("%s: master address %v, want %v", n.Name, a, promoted.Addr)
		}
	}
	ends := c.EventsSince(crash, "", "+failover-end")
	if len(ends) != 1 || ends[0].Node != elected[len(elected)-1].Node {
		c.Fatalf("+failover-end %v, want one, from the last elected leader %s", ends, elected[len(elected)-1].Node)
	}
	c.Run(15 * time.Second) // let the other replica follow
	for _, s := range c.Servers() {
		if s != old && s != promoted && (s.Role != RoleReplica || s.MasterAddr != promoted.Addr) {
			c.Fatalf("%s replicates from %v, want %v", s.Name, s.MasterAddr, promoted.Addr)
		}
	}

	back := c.Now()
	c.Restart(old.Name)
	if !c.RunUntil(func() bool { return old.Role == RoleReplica && old.MasterAddr == promoted.Addr }, 30*time.Second) {
		c.Fatalf("the old master was not converted to a replica of %v within 30 s", promoted.Addr)
	}
	if len(c.EventsSince(back, "", "+convert-to-slave")) == 0 {
		c.Fatalf("no +convert-to-slave for the old master")
	}
	c.Run(20 * time.Second)
	for _, n := range c.Nodes() {
		if f := flagsOf(t, n); f != "master" {
			c.Fatalf("%s: new master flags %q", n.Name, f)
		}
		if got := len(replicasOf(t, n)); got != 2 {
			c.Fatalf("%s: %d replicas after the failover", n.Name, got)
		}
	}
	return c
}

// TestFailoverElectsOneLeader runs the failover scenario with 10 seeds.
func TestFailoverElectsOneLeader(t *testing.T) {
	t.Parallel()
	for seed := int64(200); seed < 210; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			scenarioFailover(t, seed)
		})
	}
}

// TestFailoverWithPartitionedSentinel cuts s3 off before the master
// crashes: s1 and s2 (a majority with quorum 2) fail over without it; once
// healed, s3 learns the new configuration from their hellos
// (+config-update-from, +switch-master) and all three agree.
func TestFailoverWithPartitionedSentinel(t *testing.T) {
	t.Parallel()
	for seed := int64(300); seed < 305; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := Standard(t, seed, Topology{DownAfter: downAfter})
			settle(t, c, 2)
			c.Run(2 * time.Second)
			c.Isolate("s3")
			crash := c.Now()
			c.KillMaster()
			if !c.RunUntil(func() bool {
				return len(c.EventsSince(crash, "s1", "+switch-master")) > 0 && len(c.EventsSince(crash, "s2", "+switch-master")) > 0
			}, time.Minute) {
				c.Fatalf("the majority did not fail over")
			}
			for _, e := range c.EventsSince(crash, "s3", "") {
				switch e.Type {
				case "+elected-leader", "+switch-master", "+odown":
					c.Fatalf("isolated s3 emitted %s", e)
				}
			}
			newAddr, _ := c.Node("s1").Core.View().MasterAddr(masterName)
			healed := c.Now()
			c.Heal()
			if !c.RunUntil(func() bool { a, _ := c.Node("s3").Core.View().MasterAddr(masterName); return a == newAddr }, 20*time.Second) {
				c.Fatalf("s3 did not adopt the new master %v after healing", newAddr)
			}
			if !c.HasEvent(healed, "s3", "+config-update-from", "sentinel ") {
				c.Fatalf("s3 switched without +config-update-from")
			}
			epoch := Field(masterKV(t, c.Node("s1")), "config-epoch")
			for _, n := range c.Nodes() {
				if got := Field(masterKV(t, n), "config-epoch"); got != epoch {
					c.Fatalf("%s: config epoch %s, want %s", n.Name, got, epoch)
				}
			}
			c.Run(10 * time.Second)
		})
	}
}

// TestLeaderCrashesAfterPromotion: every Sentinel is set to crash right
// after promoting a replica (SENTINEL SIMULATE-FAILURE
// crash-after-promotion); the first leader does, before telling anyone.
// The two survivors must fail over again in a later epoch (after the
// failover-timeout delays) and settle on one master; the crashed leader
// restarts from its disk and agrees.
func TestLeaderCrashesAfterPromotion(t *testing.T) {
	t.Parallel()
	for seed := int64(400); seed < 405; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := Standard(t, seed, Topology{DownAfter: downAfter, FailoverTimeout: 20 * time.Second})
			settle(t, c, 2)
			for _, n := range c.Nodes() {
				if _, err := c.Command(n.Name, msg.SimulateFailure{Names: []string{"crash-after-promotion"}}); err != nil {
					t.Fatal(err)
				}
			}
			crash := c.Now()
			old := c.KillMaster()
			if !c.RunUntil(func() bool {
				for _, n := range c.Nodes() {
					if n.Crashed() {
						return true
					}
				}
				return false
			}, time.Minute) {
				c.Fatalf("no leader crashed after promotion")
			}
			var leader *Node
			for _, n := range c.Nodes() {
				if n.Crashed() {
					leader = n
				} else if _, err := c.Command(n.Name, msg.SimulateFailure{Names: nil}); err != nil {
					t.Fatal(err)
				}
			}
			c.Note("leader %s crashed after promotion", leader.Name)
			if !c.RunUntil(func() bool {
				return allNodes(c, func(n *Node) bool { return len(c.EventsSince(crash, n.Name, "+switch-master")) > 0 })
			}, 3*time.Minute) {
				c.Fatalf("the survivors never switched master")
			}
			c.Restart(leader.Name)
			c.Restart(old.Name)
			c.Run(time.Minute)
			var masters []*Server
			for _, s := range c.Servers() {
				if s.Role == RoleMaster {
					masters = append(masters, s)
				}
			}
			if len(masters) != 1 {
				c.Fatalf("%d servers are masters", len(masters))
			}
			for _, n := range c.Nodes() {
				if a, _ := n.Core.View().MasterAddr(masterName); a != masters[0].Addr {
					c.Fatalf("%s: master %v, but %s is the master", n.Name, a, masters[0].Name)
				}
			}
			for _, s := range c.Servers() {
				if s != masters[0] && s.MasterAddr != masters[0].Addr {
					c.Fatalf("%s replicates from %v", s.Name, s.MasterAddr)
				}
			}
		})
	}
}

// TestLeaderRestartsDuringReconf restarts the failover leader from its
// disk while it reconfigures the replicas (state reconf_slaves, after the
// promotion was confirmed and the new config epoch taken). What it
// persisted must name the promoted replica as the master, as Redis's
// rewrite does (`sentinel monitor` uses the current master address), or
// it comes back holding the new config epoch for the old master, and the
// invariant "one master address per config epoch" breaks.
func TestLeaderRestartsDuringReconf(t *testing.T) {
	t.Parallel()
	c := Standard(t, 600, Topology{DownAfter: downAfter})
	settle(t, c, 2)
	crash := c.Now()
	c.KillMaster()
	if !c.RunUntil(func() bool { return len(c.EventsSince(crash, "", "+failover-state-reconf-slaves")) > 0 }, time.Minute) {
		c.Fatalf("no failover reached reconf_slaves")
	}
	leader := c.Node(c.EventsSince(crash, "", "+failover-state-reconf-slaves")[0].Node)
	promoted, _ := leader.Core.View().MasterAddr(masterName)
	if d := leader.Disk.Masters[0]; d.Addr != promoted {
		c.Note("leader %s persisted master %v with config epoch %d, promoted is %v", leader.Name, d.Addr, d.ConfigEpoch, promoted)
	}
	c.Restart(leader.Name)
	c.Run(time.Minute)
	for _, n := range c.Nodes() {
		if a, _ := n.Core.View().MasterAddr(masterName); a != promoted {
			c.Fatalf("%s: master %v, want the promoted %v", n.Name, a, promoted)
		}
	}
}

// TestSimulatedCrashStopsAtOnce: SENTINEL SIMULATE-FAILURE makes Redis
// call exit(99) right after +elected-leader (crash-after-election) or
// +promoted-slave (crash-after-promotion): nothing the Sentinel would have
// done after that point may happen, in particular no further event.
func TestSimulatedCrashStopsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag string
		last event.Type
	}{
		{"crash-after-election", "+elected-leader"},
		{"crash-after-promotion", "+promoted-slave"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			t.Parallel()
			c := Standard(t, 410, Topology{DownAfter: downAfter, FailoverTimeout: 20 * time.Second})
			settle(t, c, 2)
			for _, n := range c.Nodes() {
				if _, err := c.Command(n.Name, msg.SimulateFailure{Names: []string{tc.flag}}); err != nil {
					t.Fatal(err)
				}
			}
			c.KillMaster()
			var crashed *Node
			if !c.RunUntil(func() bool {
				for _, n := range c.Nodes() {
					if n.Crashed() {
						crashed = n
						return true
					}
				}
				return false
			}, time.Minute) {
				c.Fatalf("no Sentinel crashed")
			}
			ev := c.EventsOf(crashed.Name, "")
			if last := ev[len(ev)-1]; last.Type != tc.last {
				c.Fatalf("%s crashed with %s %s as its last event, want %s", crashed.Name, last.Type, last.Msg, tc.last)
			}
			c.Run(time.Second)
			if n := len(c.EventsOf(crashed.Name, "")); n != len(ev) {
				c.Fatalf("%s emitted events after its crash", crashed.Name)
			}
		})
	}
}

// TestFailoverTimeline: the leader ends its failover with one
// +failover-timeline event listing the phases in order with their
// durations; the observers keep a timeline of what they followed.
func TestFailoverTimeline(t *testing.T) {
	t.Parallel()
	c := Standard(t, 420, Topology{DownAfter: downAfter})
	settle(t, c, 2)
	kill := c.Now()
	c.KillMaster()
	if !c.RunUntil(func() bool { return len(c.EventsSince(kill, "", "+failover-timeline")) > 0 }, time.Minute) {
		c.Fatalf("no +failover-timeline")
	}
	tl := c.EventsSince(kill, "", "+failover-timeline")
	if len(tl) != 1 {
		c.Fatalf("%d +failover-timeline events", len(tl))
	}
	re := regexp.MustCompile(`^master m \S+ 6379 sdown\+[0-9.]+s odown\+[0-9.]+s try-failover\+[0-9.]+s elected\+[0-9.]+s selected\+[0-9.]+s promoted\+[0-9.]+s failover-end\+[0-9.]+s switched total [0-9.]+s$`)
	if !re.MatchString(tl[0].Msg) {
		c.Fatalf("timeline %q", tl[0].Msg)
	}
	for _, n := range c.Nodes() {
		e, err := n.Core.Explain(n.Now(), masterName)
		if err != nil || e.LastFailover == nil {
			c.Fatalf("%s: no last failover (%v)", n.Name, err)
		}
		led := n.Name == tl[0].Node
		if e.LastFailover.Led != led || e.LastFailover.Phases[len(e.LastFailover.Phases)-1].Phase != "switched" {
			c.Fatalf("%s: last failover %+v", n.Name, e.LastFailover)
		}
	}
}
