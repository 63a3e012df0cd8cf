package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// tickSlack bounds how late a timer condition is noticed: one tick period
// at most, plus a millisecond for the core's truncation to milliseconds.
const tickSlack = settings.TickMaxInterval + time.Millisecond

// desync is SENTINEL_MAX_DESYNC: the random delay (below 1 s) added to a
// failover start time, when a failover starts or a vote is cast for
// another Sentinel.
const desync = time.Second

// masterSpec returns the master spec of one Sentinel's config file: `sentinel
// monitor m <r0> quorum` with down-after, failover-timeout ft and
// parallel-syncs ps (the defaults for zero ft or ps).
func masterSpec(quorum int, downAfter, ft time.Duration, ps int) settings.MasterSpec {
	sp := MonitorConfig(masterName, ServerAddr(0), quorum, downAfter).Masters[0]
	if ft > 0 {
		sp.FailoverTimeoutMs = ft.Milliseconds()
	}
	if ps > 0 {
		sp.ParallelSyncs = ps
	}
	return sp
}

// fleet builds a Cluster like Standard, with r0 the master and r1..rR its
// replicas, but gives each Sentinel s<k+1> its own master spec specs[k].
func fleet(t *testing.T, seed int64, replicas int, specs ...settings.MasterSpec) *Cluster {
	c := New(t, Options{Seed: seed})
	m := c.AddServer("r0", ServerAddr(0))
	for k := 1; k <= replicas; k++ {
		c.AddReplica(fmt.Sprintf("r%d", k), ServerAddr(k), m)
	}
	for _, sp := range specs {
		c.AddSentinel(settings.Persisted{Masters: []settings.MasterSpec{sp}})
	}
	return c
}

// waitEvent runs c until node (any node if "") emits an event of type typ
// at or after since and returns the first such event; it fails the test
// when none comes within d. It scans each event once.
func waitEvent(c *Cluster, since time.Time, node string, typ event.Type, d time.Duration) EventRecord {
	c.tb.Helper()
	var found EventRecord
	seen := 0
	scan := func() bool {
		for ; seen < len(c.events); seen++ {
			e := c.events[seen]
			if !e.At.Before(since) && (node == "" || e.Node == node) && e.Type == typ {
				found = e
				return true
			}
		}
		return false
	}
	if !scan() && !c.RunUntil(scan, d) {
		c.Fatalf("no %s from %q within %v", typ, node, d)
	}
	return found
}

// waitAllSwitched runs c until every running Sentinel emitted
// +switch-master at or after since; it fails the test after d.
func waitAllSwitched(c *Cluster, since time.Time, d time.Duration) {
	c.tb.Helper()
	switched := map[string]bool{}
	seen := 0
	all := func() bool {
		for ; seen < len(c.events); seen++ {
			if e := c.events[seen]; e.Type == "+switch-master" && !e.At.Before(since) {
				switched[e.Node] = true
			}
		}
		return allNodes(c, func(n *Node) bool { return switched[n.Name] })
	}
	if !all() && !c.RunUntil(all, d) {
		c.Fatalf("not every running Sentinel switched master within %v (switched: %v)", d, switched)
	}
}

// agreement returns nil when exactly one running server is a master,
// every other running server replicates it with its link up, and every
// running Sentinel names it as the master of m; otherwise what is off.
func agreement(c *Cluster) error {
	var m *Server
	for _, s := range c.Servers() {
		if !s.Crashed() && s.Role == RoleMaster {
			if m != nil {
				return fmt.Errorf("%s and %s are both masters", m.Name, s.Name)
			}
			m = s
		}
	}
	if m == nil {
		return errors.New("no running server is a master")
	}
	for _, s := range c.Servers() {
		if s.Crashed() || s == m {
			continue
		}
		if s.Role != RoleReplica || s.MasterAddr != m.Addr || !c.replLinkUp(s) {
			return fmt.Errorf("%s is %s of %v (link up %v), want a replica of %s", s.Name, s.Role, s.MasterAddr, c.replLinkUp(s), m.Name)
		}
	}
	for _, n := range c.Nodes() {
		if n.Crashed() {
			continue
		}
		if a, _ := n.Core.View().MasterAddr(masterName); a != m.Addr {
			return fmt.Errorf("%s names %v as the master, but %s (%v) is", n.Name, a, m.Name, m.Addr)
		}
	}
	return nil
}

// waitAgreement runs c until agreement holds and returns the master; it
// fails the test with what is still off after d.
func waitAgreement(c *Cluster, d time.Duration) *Server {
	c.tb.Helper()
	if !c.RunUntil(func() bool { return agreement(c) == nil }, d) {
		if err := agreement(c); err != nil {
			c.Fatalf("no agreement within %v: %v", d, err)
		}
	}
	for _, s := range c.Servers() {
		if !s.Crashed() && s.Role == RoleMaster {
			return s
		}
	}
	return nil
}

// assertSettledView runs c until every running Sentinel's master flags
// are plain "master" (no failover running, links up again), within 30 s,
// then checks that they all hold the same config epoch for m.
func assertSettledView(t *testing.T, c *Cluster) {
	t.Helper()
	plain := func() bool { return allNodes(c, func(n *Node) bool { return flagsOf(t, n) == "master" }) }
	if !c.RunUntil(plain, 30*time.Second) {
		for _, n := range c.Nodes() {
			if !n.Crashed() {
				if f := flagsOf(t, n); f != "master" {
					c.Fatalf("%s: master flags %q 30 s after the failover", n.Name, f)
				}
			}
		}
	}
	epoch := ""
	for _, n := range c.Nodes() {
		if n.Crashed() {
			continue
		}
		ce := Field(masterKV(t, n), "config-epoch")
		if epoch == "" {
			epoch = ce
		} else if ce != epoch {
			c.Fatalf("%s: config epoch %s, another Sentinel has %s", n.Name, ce, epoch)
		}
	}
}

// try is one +try-failover of a node and the epoch it started (the
// +new-epoch the node emitted just before).
type try struct {
	At    time.Time
	Node  string
	Epoch uint64
}

// triesSince returns the failover attempts of node (every node if "") at
// or after since, in order.
func triesSince(c *Cluster, since time.Time, node string) []try {
	var out []try
	epoch := map[string]uint64{}
	for _, e := range c.events {
		if node != "" && e.Node != node {
			continue
		}
		switch e.Type {
		case "+new-epoch":
			epoch[e.Node], _ = strconv.ParseUint(e.Msg, 10, 64)
		case "+try-failover":
			if !e.At.Before(since) {
				out = append(out, try{e.At, e.Node, epoch[e.Node]})
			}
		}
	}
	return out
}

// votesIn returns who node voted for in epoch (from +vote-for-leader), or
// "".
func votesIn(c *Cluster, node string, epoch uint64) string {
	for _, e := range c.EventsOf(node, "+vote-for-leader") {
		f := strings.Fields(e.Msg)
		if len(f) == 2 && f[1] == strconv.FormatUint(epoch, 10) {
			return f[0]
		}
	}
	return ""
}

// retryRef returns the instant node's failover start time was last set
// before t (its last +try-failover, or its last vote for another
// Sentinel, after which a new failover must wait 2 × failover-timeout),
// and false if there is none since its last +switch-master or
// +reset-master (which clear it).
func retryRef(c *Cluster, node string, t time.Time) (time.Time, bool) {
	id := c.Node(node).Core.MyID()
	var ref time.Time
	ok := false
	for _, e := range c.EventsOf(node, "") {
		if !e.At.Before(t) {
			break
		}
		switch e.Type {
		case "+try-failover":
			ref, ok = e.At, true
		case "+vote-for-leader":
			if f := strings.Fields(e.Msg); len(f) == 2 && !strings.EqualFold(f[0], id) {
				ref, ok = e.At, true
			}
		case "+switch-master", "+reset-master":
			ok = false
		}
	}
	return ref, ok
}

// checkRetryDelay checks §8.3's retry delay on every attempt at or before
// until: no Sentinel starts a failover less than 2 × ft after its previous
// start or its last vote for another Sentinel (compared in milliseconds,
// as the core does). Nodes must not have restarted before until.
func checkRetryDelay(c *Cluster, ft time.Duration, until time.Time) {
	c.tb.Helper()
	for _, tr := range triesSince(c, time.Time{}, "") {
		if tr.At.After(until) {
			continue
		}
		ref, ok := retryRef(c, tr.Node, tr.At)
		if ok && tr.At.UnixMilli()-ref.UnixMilli() < (2*ft).Milliseconds() {
			c.Fatalf("%s started a failover (epoch %d) %v after %v, less than 2 × failover-timeout (%v)",
				tr.Node, tr.Epoch, tr.At.Sub(ref), ref.Sub(c.start), 2*ft)
		}
	}
}

// addrOf is how instance events name a server: "<ip>:<port>".
func addrOf(s *Server) string { return fmt.Sprintf("%s:%d", s.Addr.Host, s.Addr.Port) }

// TestSplitVoteElectsNobodyThenOne: s1 and s2 (quorum 1, down-after 2 s)
// see the master die at the same time, each on its side of a partition
// {s1 s3 r1} | {s2 s4 r2}, while s3 and s4 (quorum 3, down-after 1 min)
// only vote. Both candidates start epoch E, s3 votes for s1 and s4 for
// s2: 2 votes each of the 3 needed (a majority of 4), so no leader is
// elected in E and both log -failover-abort-not-elected within
// min(election-timeout, failover-timeout) + 1 s (the start desync) + a
// tick. After healing, a later epoch elects exactly one leader (the
// invariants check one per epoch after every step), every attempt
// respects the 2 × failover-timeout retry delay, and the fleet agrees on
// one master with one config epoch.
func TestSplitVoteElectsNobodyThenOne(t *testing.T) {
	t.Parallel()
	const ft = 10 * time.Second
	for seed := int64(700); seed < 705; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			// down-after stays above ping period + a tick: with 1 s, a
			// Sentinel that just switched masters may see the new one
			// SDOWN before its reconnect (rate-limited to one per ping
			// period, as in Redis) has pinged it, and with quorum 1 and
			// the failover start time reset it fails it over again.
			eager := masterSpec(1, 2*time.Second, ft, 0)
			voter := masterSpec(3, time.Minute, ft, 0)
			c := fleet(t, seed, 2, eager, eager, voter, voter)
			settle(t, c, 2)
			c.Partition([]string{"s1", "s3", "r1"}, []string{"s2", "s4", "r2"})
			crash := c.Now()
			c.Crash("r0")
			waitEvent(c, crash, "s1", "-failover-abort-not-elected", time.Minute)
			waitEvent(c, crash, "s2", "-failover-abort-not-elected", time.Minute)

			t1, t2 := triesSince(c, crash, "s1"), triesSince(c, crash, "s2")
			if len(t1) != 1 || len(t2) != 1 || t1[0].Epoch != t2[0].Epoch {
				c.Fatalf("want one attempt each in the same epoch: s1 %v, s2 %v", t1, t2)
			}
			split := t1[0].Epoch
			if e := c.EventsSince(crash, "", "+elected-leader"); len(e) != 0 {
				c.Fatalf("a leader was elected in the split epoch: %v", e)
			}
			id1, id2 := c.Node("s1").Core.MyID(), c.Node("s2").Core.MyID()
			for _, v := range []struct{ voter, want string }{{"s1", id1}, {"s3", id1}, {"s2", id2}, {"s4", id2}} {
				if got := votesIn(c, v.voter, split); !strings.EqualFold(got, v.want) {
					c.Fatalf("%s voted %q in epoch %d, want %s", v.voter, got, split, v.want)
				}
			}
			et := time.Duration(c.Node("s1").Core.Timing().ElectionTimeoutMs) * time.Millisecond
			if ft < et {
				et = ft
			}
			for _, tr := range []try{t1[0], t2[0]} {
				ab := c.EventsSince(crash, tr.Node, "-failover-abort-not-elected")[0]
				if d := ab.At.Sub(tr.At); d <= et || d > et+desync+tickSlack {
					c.Fatalf("%s aborted %v after starting, want in (%v, %v]", tr.Node, d, et, et+desync+tickSlack)
				}
			}
			t.Logf("seed %d: epoch %d split 2-2 (s1+s3 | s2+s4), both aborted by +%v", seed, split, c.Elapsed())

			c.Heal()
			waitAllSwitched(c, crash, 3*time.Minute)
			m := waitAgreement(c, time.Minute)
			c.Run(20 * time.Second)
			if err := agreement(c); err != nil {
				c.Fatalf("agreement lost: %v", err)
			}
			assertSettledView(t, c)
			checkRetryDelay(c, ft, c.Now())
			var won []string
			for k, who := range c.inv.leaders {
				if k.master != masterName {
					continue
				}
				if k.epoch <= split {
					c.Fatalf("%s elected in epoch %d, not after the split epoch %d", who, k.epoch, split)
				}
				won = append(won, fmt.Sprintf("%s@%d", who, k.epoch))
			}
			if len(won) == 0 {
				c.Fatalf("no leader was ever elected")
			}
			if got := Field(masterKV(t, c.Node("s1")), "config-epoch"); got == "0" || got == strconv.FormatUint(split, 10) {
				c.Fatalf("config epoch %s, want the epoch of a later election", got)
			}
			t.Logf("seed %d: elected %v; %s is the master at +%v", seed, won, m.Name, c.Elapsed())
		})
	}
}

// TestLeaderDiesMidFailover crashes the failover leader (3 Sentinels,
// quorum 2, 3 replicas, parallel-syncs 1, failover-timeout 10 s) at one of
// three points:
//
//   - +promoted-slave: in the step that confirmed the promotion, before any
//     hello carried the new configuration;
//   - +slave-reconf-sent (the first): in the tick that also sent the
//     forced hellos, which die with its connections;
//   - +slave-reconf-done (the first): its hellos with the new config epoch
//     have been delivered, two replicas are not reconfigured yet.
//
// The survivors must not start a failover before 2 × failover-timeout
// after their own start or their vote for the dead leader. In the first
// case (and the second, when no hello got through) the first survivor
// starts at most 1 s (desync) + a tick after that bound and finishes the
// failover in a later epoch; in the third nobody starts one: they adopt
// the promoted master from the hellos' higher config epoch
// (+config-update-from) and fix the replicas left behind
// (+fix-slave-config). Either way every running Sentinel and server ends
// agreeing on one master, and so does the dead leader once restarted from
// its disk.
func TestLeaderDiesMidFailover(t *testing.T) {
	t.Parallel()
	const ft = 10 * time.Second
	for _, at := range []event.Type{"+promoted-slave", "+slave-reconf-sent", "+slave-reconf-done"} {
		for seed := int64(800); seed < 803; seed++ {
			t.Run(string(at)+"/"+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				c := Standard(t, seed, Topology{Replicas: 3, DownAfter: downAfter, FailoverTimeout: ft})
				settle(t, c, 3)
				crash := c.Now()
				c.KillMaster()
				ev := waitEvent(c, crash, "", at, time.Minute)
				leader := c.Node(ev.Node)
				var epoch uint64
				for k, who := range c.inv.leaders {
					if who == leader.Name && k.epoch > epoch {
						epoch = k.epoch
					}
				}
				c.Crash(leader.Name)
				died := c.Now()

				earliest := time.Time{}
				var survivors []*Node
				for _, n := range c.Nodes() {
					if n == leader {
						continue
					}
					survivors = append(survivors, n)
					// ok is false for a survivor that already switched to
					// the promoted master: nothing delays its next failover.
					if ref, ok := retryRef(c, n.Name, died); ok {
						if b := ref.Add(2 * ft); earliest.IsZero() || b.Before(earliest) {
							earliest = b
						}
					}
				}
				waitAllSwitched(c, crash, 3*time.Minute)
				switched := c.Now()
				checkRetryDelay(c, ft, switched)

				tries := triesSince(c, died, "")
				adopted := 0
				for _, n := range survivors {
					if c.HasEvent(died, n.Name, "+config-update-from", "") || c.HasEvent(crash, n.Name, "+config-update-from", "") {
						adopted++
					}
				}
				switch {
				case at == "+promoted-slave" && len(tries) == 0:
					c.Fatalf("no survivor took over, yet the leader died before telling anyone")
				case at == "+slave-reconf-done" && len(tries) != 0:
					c.Fatalf("survivors started failovers %v although the leader's hellos had reached them", tries)
				}
				if len(tries) > 0 {
					first := tries[0]
					if earliest.IsZero() {
						c.Fatalf("%s took over although every survivor had switched before the leader died", first.Node)
					}
					if first.At.Before(earliest) || first.At.After(earliest.Add(desync+tickSlack)) {
						c.Fatalf("%s took over at +%v, want within [+%v, +%v]", first.Node, first.At.Sub(c.start),
							earliest.Sub(c.start), earliest.Add(desync+tickSlack).Sub(c.start))
					}
					if first.Epoch <= epoch {
						c.Fatalf("take-over in epoch %d, not after the dead leader's %d", first.Epoch, epoch)
					}
					if len(c.EventsSince(died, "", "+failover-end")) == 0 {
						c.Fatalf("the take-over never ended")
					}
					t.Logf("%s seed %d: leader %s died at +%v (epoch %d); %s took over in epoch %d after %v (bound %v); all switched by +%v",
						at, seed, leader.Name, died.Sub(c.start), epoch, first.Node, first.Epoch, first.At.Sub(died),
						earliest.Sub(died), switched.Sub(c.start))
				} else {
					if adopted != len(survivors) {
						c.Fatalf("no take-over, but only %d survivors adopted the new configuration", adopted)
					}
					for _, n := range survivors {
						if got := Field(masterKV(t, n), "config-epoch"); got != strconv.FormatUint(epoch, 10) {
							c.Fatalf("%s: config epoch %s, want the dead leader's %d", n.Name, got, epoch)
						}
					}
					t.Logf("%s seed %d: leader %s died at +%v (epoch %d); survivors adopted its hellos, all switched by +%v",
						at, seed, leader.Name, died.Sub(c.start), epoch, switched.Sub(c.start))
				}
				waitAgreement(c, 2*time.Minute)
				if len(tries) == 0 && len(c.EventsSince(died, "", "+fix-slave-config")) == 0 {
					c.Fatalf("the replicas the dead leader left behind were not fixed by +fix-slave-config")
				}
				agreed := c.Now()
				c.Restart(leader.Name)
				c.Run(30 * time.Second)
				if err := agreement(c); err != nil {
					c.Fatalf("after the leader restarted: %v", err)
				}
				assertSettledView(t, c)
				t.Logf("%s seed %d: agreement %v after the leader died", at, seed, agreed.Sub(died))
			})
		}
	}
}

// TestReplicaNeverPromotes: r1 has the best offset but ignores SLAVEOF NO
// ONE. The leader selects it, sends the command, and after
// failover-timeout in wait_promotion (within a tick) emits
// -failover-abort-slave-timeout: the failover ends, r1 loses its
// promoted flag, nothing was promoted. The next attempt (after the retry
// delay) picks r1 again, since selection has no memory of failures, and
// times out again; once r1 is made priority 0 the attempt after picks r2
// and succeeds, and r1 replicates r2.
func TestReplicaNeverPromotes(t *testing.T) {
	t.Parallel()
	const ft = 10 * time.Second
	for seed := int64(900); seed < 903; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := Standard(t, seed, Topology{DownAfter: downAfter, FailoverTimeout: ft})
			r0, r1, r2 := c.Server("r0"), c.Server("r1"), c.Server("r2")
			r0.ReplOffset, r1.ReplOffset, r2.ReplOffset = 1000, 1000, 900
			r1.IgnoreSlaveOfNoOne = true
			settle(t, c, 2)
			crash := c.Now()
			c.Crash("r0")

			since := crash
			for attempt := 1; attempt <= 2; attempt++ {
				ab := waitEvent(c, since, "", "-failover-abort-slave-timeout", 2*time.Minute)
				leader := c.Node(ab.Node)
				sel := c.EventsSince(since, leader.Name, "+selected-slave")
				wp := c.EventsSince(since, leader.Name, "+failover-state-wait-promotion")
				if len(sel) != 1 || !strings.Contains(sel[0].Msg, addrOf(r1)) || len(wp) != 1 {
					c.Fatalf("attempt %d: %s selected %v, wait-promotion %v; want r1 once", attempt, leader.Name, sel, wp)
				}
				if d := ab.At.Sub(wp[0].At); d <= ft || d > ft+tickSlack {
					c.Fatalf("attempt %d: aborted %v after wait-promotion, want in (%v, %v]", attempt, d, ft, ft+tickSlack)
				}
				mkv := masterKV(t, leader)
				if hasFlag(Field(mkv, "flags"), "failover_in_progress") || Field(mkv, "failover-state") != "" {
					c.Fatalf("attempt %d: failover still running after the abort: %v", attempt, mkv)
				}
				for _, kv := range replicasOf(t, leader) {
					if hasFlag(Field(kv, "flags"), "promoted") {
						c.Fatalf("attempt %d: %s still flagged promoted after the abort", attempt, Field(kv, "name"))
					}
				}
				if r1.Role != RoleReplica || len(c.EventsSince(crash, "", "+promoted-slave")) != 0 || len(c.EventsSince(crash, "", "+switch-master")) != 0 {
					c.Fatalf("attempt %d: something was promoted", attempt)
				}
				t.Logf("seed %d attempt %d: %s selected r1, aborted at +%v", seed, attempt, leader.Name, ab.At.Sub(c.start))
				since = ab.At.Add(time.Nanosecond)
			}
			r1.Priority = 0
			c.Note("r1 is now replica-priority 0")
			waitAllSwitched(c, since, 2*time.Minute)
			if m := waitAgreement(c, time.Minute); m != r2 {
				c.Fatalf("%s was promoted, want r2", m.Name)
			}
			checkRetryDelay(c, ft, c.Now())
			assertSettledView(t, c)
			t.Logf("seed %d: r2 promoted, agreement at +%v", seed, c.Elapsed())
		})
	}
}

// reconfRun fails over a fleet of 3 Sentinels whose master has 4
// replicas, each taking syncDelay to sync after SLAVEOF, with
// parallel-syncs ps. It samples the leader's SENTINEL REPLICAS view after
// every step of reconf_slaves and returns the most replicas it saw in
// reconf_sent or reconf_inprog at once and how long reconf_slaves lasted
// (+failover-state-reconf-slaves to +failover-end).
func reconfRun(t *testing.T, seed int64, ps int, syncDelay time.Duration) (busiest int, took time.Duration) {
	sp := masterSpec(2, downAfter, time.Minute, ps)
	c := fleet(t, seed, 4, sp, sp, sp)
	for _, s := range c.Servers()[1:] {
		s.SyncDelay = syncDelay
	}
	settle(t, c, 4)
	crash := c.Now()
	c.KillMaster()
	start := waitEvent(c, crash, "", "+failover-state-reconf-slaves", time.Minute)
	leader := c.Node(start.Node)
	sample := func() bool {
		busy := 0
		for _, kv := range replicasOf(t, leader) {
			f := Field(kv, "flags")
			if hasFlag(f, "reconf_sent") || hasFlag(f, "reconf_inprog") {
				busy++
			}
		}
		if busy > busiest {
			busiest = busy
		}
		return len(c.EventsSince(start.At, leader.Name, "+failover-end")) > 0
	}
	if !c.RunUntil(sample, 2*time.Minute) {
		c.Fatalf("ps %d: reconf_slaves never ended", ps)
	}
	took = c.Now().Sub(start.At)
	for _, typ := range []event.Type{event.FailoverEndForTimeout, event.SlaveReconfSentTimeout} {
		if e := c.EventsSince(crash, "", typ); len(e) != 0 {
			c.Fatalf("ps %d: %v", ps, e)
		}
	}
	if sent, done := c.EventsSince(crash, leader.Name, "+slave-reconf-sent"), c.EventsSince(crash, leader.Name, "+slave-reconf-done"); len(sent) != 3 || len(done) != 3 {
		c.Fatalf("ps %d: %d +slave-reconf-sent and %d +slave-reconf-done, want 3 each", ps, len(sent), len(done))
	}
	waitAllSwitched(c, crash, time.Minute)
	waitAgreement(c, time.Minute)
	assertSettledView(t, c)
	return busiest, took
}

// TestParallelSyncs fails the same fleet (4 replicas, 3 s to sync) over
// with parallel-syncs 1 and 2: the leader never has more than
// parallel-syncs replicas in reconf_sent/reconf_inprog at once (and
// reaches that many), the 3 replicas to move take at least ⌈3/ps⌉ sync
// delays, reconfiguration finishes sooner in virtual time with 2, and
// every replica ends replicating the promoted one with its link up.
func TestParallelSyncs(t *testing.T) {
	t.Parallel()
	const syncDelay = 3 * time.Second
	for seed := int64(1000); seed < 1003; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			took := map[int]time.Duration{}
			for _, ps := range []int{1, 2} {
				busiest, d := reconfRun(t, seed, ps, syncDelay)
				if busiest != ps {
					t.Fatalf("parallel-syncs %d: up to %d replicas were being reconfigured at once", ps, busiest)
				}
				if min := time.Duration((3+ps-1)/ps) * syncDelay; d < min {
					t.Fatalf("parallel-syncs %d: reconfiguration took %v, less than %v", ps, d, min)
				}
				took[ps] = d
			}
			if took[2] >= took[1] {
				t.Fatalf("parallel-syncs 2 took %v, not less than parallel-syncs 1 (%v)", took[2], took[1])
			}
			t.Logf("seed %d: reconf_slaves took %v with parallel-syncs 1, %v with 2", seed, took[1], took[2])
		})
	}
}

// TestReplicaSelectionOrder fails over masters whose replicas differ in
// replica-priority and offset, end to end through INFO: the lowest
// non-zero priority wins whatever the offsets; at equal priority the
// highest offset; at equal offset the smallest run id; a priority-0
// replica is never selected, and with only priority-0 replicas every
// attempt ends in -failover-abort-no-good-slave with nothing promoted.
func TestReplicaSelectionOrder(t *testing.T) {
	t.Parallel()
	const ft = 10 * time.Second
	type rep struct {
		prio int
		off  int64
	}
	tests := []struct {
		name string
		reps []rep
		want string // "" = the smallest run id, "-" = none
	}{
		{"priority-beats-offset", []rep{{100, 300}, {10, 100}, {0, 500}}, "r2"},
		{"higher-offset", []rep{{100, 100}, {100, 300}, {100, 200}}, "r2"},
		{"smaller-run-id", []rep{{100, 100}, {100, 100}, {100, 100}}, ""},
		{"priority-0-skipped", []rep{{0, 900}, {100, 10}}, "r2"},
		{"only-priority-0", []rep{{0, 100}, {0, 100}}, "-"},
	}
	for i, tt := range tests {
		for seed := int64(1100 + 10*i); seed < int64(1102+10*i); seed++ {
			t.Run(tt.name+"/"+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				c := Standard(t, seed, Topology{Replicas: len(tt.reps), DownAfter: downAfter, FailoverTimeout: ft})
				c.Server("r0").ReplOffset = 1000
				want := tt.want
				for k, r := range tt.reps {
					s := c.Server(fmt.Sprintf("r%d", k+1))
					s.Priority, s.ReplOffset = r.prio, r.off
					if tt.want == "" && (want == "" || strings.ToLower(s.RunID) < strings.ToLower(c.Server(want).RunID)) {
						want = s.Name
					}
				}
				settle(t, c, len(tt.reps))
				crash := c.Now()
				c.KillMaster()
				if want == "-" {
					first := waitEvent(c, crash, "", "-failover-abort-no-good-slave", time.Minute)
					waitEvent(c, first.At.Add(time.Nanosecond), "", "-failover-abort-no-good-slave", 2*time.Minute)
					for _, typ := range []event.Type{"+selected-slave", "+promoted-slave", "+switch-master", "-failover-abort-slave-timeout"} {
						if e := c.EventsSince(crash, "", typ); len(e) != 0 {
							c.Fatalf("%s with only priority-0 replicas: %v", typ, e)
						}
					}
					for _, s := range c.Servers()[1:] {
						if s.Role != RoleReplica {
							c.Fatalf("%s was promoted", s.Name)
						}
					}
					checkRetryDelay(c, ft, c.Now())
					t.Logf("seed %d: no good slave, twice, by +%v", seed, c.Elapsed())
					return
				}
				waitAllSwitched(c, crash, 2*time.Minute)
				if m := waitAgreement(c, time.Minute); m.Name != want {
					c.Fatalf("%s was promoted, want %s", m.Name, want)
				}
				sel := c.EventsSince(crash, "", "+selected-slave")
				if len(sel) != 1 || !strings.Contains(sel[0].Msg, addrOf(c.Server(want))) {
					c.Fatalf("+selected-slave %v, want one naming %s", sel, want)
				}
				assertSettledView(t, c)
			})
		}
	}
}

// TestForcedFailover runs SENTINEL FAILOVER on s1 while the master is
// healthy: no other Sentinel sees it down or votes, yet s1 is elected at
// once (force_failover), promotes a replica and every Sentinel switches;
// the old master, still alive, is converted to a replica. A second
// SENTINEL FAILOVER while the first runs, right away and again in
// reconf_slaves, returns ErrFailoverInProgress.
func TestForcedFailover(t *testing.T) {
	t.Parallel()
	for seed := int64(1200); seed < 1203; seed++ {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			c := Standard(t, seed, Topology{DownAfter: downAfter})
			settle(t, c, 2)
			c.Run(time.Duration(c.Rand().Intn(3000)) * time.Millisecond)
			failover := msg.Failover{Name: masterName}
			start := c.Now()
			if _, err := c.Command("s1", failover); err != nil {
				c.Fatalf("SENTINEL FAILOVER: %v", err)
			}
			if _, err := c.Command("s1", failover); !errors.Is(err, monitor.ErrFailoverInProgress) {
				c.Fatalf("second SENTINEL FAILOVER: %v, want ErrFailoverInProgress", err)
			}
			epoch := c.Node("s1").Core.CurrentEpoch()
			el := waitEvent(c, start, "s1", "+elected-leader", time.Minute)
			if d := el.At.Sub(start); d > tickSlack {
				c.Fatalf("forced leader elected %v after the command, want within a tick", d)
			}
			waitEvent(c, start, "s1", "+failover-state-reconf-slaves", time.Minute)
			if _, err := c.Command("s1", failover); !errors.Is(err, monitor.ErrFailoverInProgress) {
				c.Fatalf("SENTINEL FAILOVER in reconf_slaves: %v, want ErrFailoverInProgress", err)
			}
			waitAllSwitched(c, start, time.Minute)
			end := c.Now()
			m := waitAgreement(c, time.Minute)
			if m.Name == "r0" {
				c.Fatalf("r0 is still the master")
			}
			if len(c.EventsSince(start, "", "+convert-to-slave")) == 0 {
				c.Fatalf("the old master was not converted to a replica")
			}
			for _, n := range []string{"s2", "s3"} {
				if v := votesIn(c, n, epoch); v != "" {
					c.Fatalf("%s voted for %s in the forced epoch %d", n, v, epoch)
				}
				for _, typ := range []event.Type{"+sdown", "+odown", "+try-failover", "+elected-leader"} {
					if e := masterEvents(c, start, n, typ); len(e) != 0 {
						c.Fatalf("%s: %v", n, e)
					}
				}
			}
			for _, typ := range []event.Type{"-failover-abort-not-elected", "-failover-abort-no-good-slave", "-failover-abort-slave-timeout"} {
				if e := c.EventsSince(start, "", typ); len(e) != 0 {
					c.Fatalf("%v", e)
				}
			}
			if e := c.EventsSince(start, "s1", "+failover-end"); len(e) != 1 {
				c.Fatalf("+failover-end %v, want one", e)
			}
			assertSettledView(t, c)
			if got := Field(masterKV(t, c.Node("s2")), "config-epoch"); got != strconv.FormatUint(epoch, 10) {
				c.Fatalf("config epoch %s, want the forced epoch %d", got, epoch)
			}
			t.Logf("seed %d: forced failover to %s in epoch %d, every Sentinel switched %v after the command", seed, m.Name, epoch, end.Sub(start))
		})
	}
}
