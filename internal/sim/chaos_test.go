package sim

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// chaos runs a random schedule of faults drawn from the cluster's seed,
// on a fleet whose replicas lag up to 50 ms behind, with a Writer "w"
// following a random Sentinel's address of the master all along:
// crashes and restarts of Sentinels and servers, partitions, heals,
// clock jumps, kills of the master and SENTINEL FAILOVER <m> COORDINATED
// sent to a random running Sentinel, for the given virtual time. The
// invariants are checked after every step (those reading the views after
// every third tick), among them the one of coordinated handovers: when
// a server's FAILOVER TO completes, its target holds every write w had
// acknowledged that the old master held (see checkHandovers; the other
// faults may lose writes, and nothing checks those), and the one of the
// master-following proxy every Sentinel runs: no two proxies forward to
// two reachable masters (checkProxies). Then everything is
// healed and restarted, and after a quiet period every Sentinel must
// name the same master, which must be the only server in the master
// role.
func chaos(t TB, seed int64, topo Topology, every, d time.Duration) *Cluster {
	return chaosFaults(t, seed, chaosFleet{topo: topo, every: every}, d)
}

// chaosFaults is chaos on fleet f: a fleet with oneway set also draws
// one-way cuts (CutOneWay of one endpoint's connections to another, any
// two endpoints or two Sentinels) and cuts of the master from some of
// the Sentinels (splitMaster), and re-cuts the network while elections
// run (recutDuringElections); one without draws exactly what chaos
// always drew, seed for seed.
func chaosFaults(t TB, seed int64, f chaosFleet, d time.Duration) *Cluster {
	topo, every := f.topo, f.every
	tb, campaign := t.(*seedTB)
	c := StandardWith(t, Options{Seed: seed, ViewCheckEvery: 3, NoTrace: campaign}, topo)
	if campaign {
		tb.c = c
	}
	rnd := c.Rand()
	for _, s := range c.Servers()[1:] {
		s.ReplLag = time.Duration(rnd.Intn(50)) * time.Millisecond
	}
	settle(t, c, topo.withDefaults().Replicas)
	nodes := c.NodeNames()
	c.AddWriter("w", WriterOptions{Sentinel: nodes[rnd.Intn(len(nodes))], Master: masterName})
	names := append(c.NodeNames(), c.ServerNames()...)
	end := c.Now().Add(d)
	faults := 11
	if f.oneway || f.rejoin {
		faults = 14
	}
	for c.Err() == nil && c.Now().Before(end) {
		quiet := time.Duration(1 + rnd.Int63n(int64(every)))
		if f.oneway {
			recutDuringElections(c, names, quiet)
		} else {
			c.Run(quiet)
		}
		k := rnd.Intn(faults)
		if f.rejoin && k >= 11 {
			rejoinFault(c, k-11, nodes)
			continue
		}
		switch {
		case k < 2:
			c.Crash(names[rnd.Intn(len(names))])
		case k < 4:
			c.Restart(names[rnd.Intn(len(names))])
		case k < 6:
			a := names[rnd.Intn(len(names))]
			b := names[rnd.Intn(len(names))]
			if a != b {
				c.Partition([]string{a}, []string{b})
			}
		case k < 8:
			c.Heal()
		case k < 9:
			c.ClockJump(nodes[rnd.Intn(len(nodes))], time.Duration(rnd.Intn(6000)-2000)*time.Millisecond)
		case k < 10:
			c.KillMaster()
		case k < 11:
			coordinatedFailover(c)
		case k < 12:
			cutOneWay(c, names, names)
		case k < 13:
			cutOneWay(c, nodes, nodes)
		default:
			splitMaster(c, nodes)
		}
	}
	c.Heal()
	for _, n := range c.Nodes() {
		if n.Crashed() {
			c.Restart(n.Name)
		}
	}
	for _, s := range c.Servers() {
		if s.Crashed() {
			c.Restart(s.Name)
		}
	}
	c.Note("chaos over; healed and restarted everything")
	return c
}

// recutDuringElections runs the cluster for d, and each time a Sentinel
// (the candidate) emits +try-failover re-cuts the network 1 to 4 times
// while the election and the failover it starts run: each re-cut comes
// 1 ms to 1 s after the one before, heals everything first or not (even
// odds), then cuts, with even odds, the candidate's connections to
// another Sentinel (its vote request no longer reaches it), another
// Sentinel's connections to the candidate, one random endpoint's
// connections to another, a random pair of endpoints both ways, or the
// master from some of the Sentinels. The votes, the promotion and the
// hellos that announce it so travel over a network that changes under
// them. A burst may run past d.
func recutDuringElections(c *Cluster, names []string, d time.Duration) {
	rnd := c.Rand()
	nodes := c.NodeNames()
	end := c.Now().Add(d)
	seen := len(c.events)
	var cand string
	tried := func() bool {
		for _, e := range c.events[seen:] {
			if e.Type == event.TryFailover {
				cand = e.Node
				return true
			}
		}
		seen = len(c.events)
		return false
	}
	for c.Err() == nil && c.Now().Before(end) {
		if !c.RunUntil(tried, end.Sub(c.Now())) {
			return
		}
		c.Note("%s +try-failover: re-cutting the network during the election", cand)
		for i := 1 + rnd.Intn(4); i > 0 && c.Err() == nil; i-- {
			c.Run(time.Duration(1+rnd.Intn(1000)) * time.Millisecond)
			if rnd.Intn(2) == 0 {
				c.Heal()
			}
			switch rnd.Intn(5) {
			case 0:
				cutOneWay(c, []string{cand}, nodes)
			case 1:
				cutOneWay(c, nodes, []string{cand})
			case 2:
				cutOneWay(c, names, names)
			case 3:
				a := names[rnd.Intn(len(names))]
				if b := names[rnd.Intn(len(names))]; a != b {
					c.Partition([]string{a}, []string{b})
				}
			default:
				splitMaster(c, nodes)
			}
		}
		seen = len(c.events)
	}
}

// rejoinFault is one of the rejoin shapes' own faults (kind 0, 1 or 2):
// the first running master-role server cut off from everything until a
// Sentinel switches away from it (at most 30 s) and 0 to 5 s more, then
// the network healed; that server killed, and restarted with its old
// configuration (a master, on a new replication history) once a
// Sentinel switched, or after 30 s; or a Sentinel stalled (SIGSTOP) for
// 0.5 to 6 s. The returns come back to Sentinels that hold a newer
// configuration, whose conversion of them is what checkDemotion checks.
func rejoinFault(c *Cluster, kind int, nodes []string) {
	rnd := c.Rand()
	if kind == 2 {
		c.Stall(nodes[rnd.Intn(len(nodes))], time.Duration(500+rnd.Intn(5500))*time.Millisecond)
		return
	}
	var m *Server
	for _, s := range c.servers {
		if !s.crashed && s.Role == RoleMaster {
			m = s
			break
		}
	}
	if m == nil {
		return
	}
	seen := len(c.events)
	switched := func() bool {
		for _, e := range c.events[seen:] {
			if e.Type == event.SwitchMaster {
				return true
			}
		}
		return false
	}
	if kind == 0 {
		var rest []string
		for _, name := range append(c.NodeNames(), c.ServerNames()...) {
			if name != m.Name {
				rest = append(rest, name)
			}
		}
		c.Note("rejoin: %s cut off until a switch", m.Name)
		c.Partition([]string{m.Name}, rest)
		c.RunUntil(switched, 30*time.Second)
		c.Run(time.Duration(rnd.Intn(5000)) * time.Millisecond)
		c.Heal()
		return
	}
	c.Note("rejoin: %s killed, restarted after a switch", m.Name)
	c.Crash(m.Name)
	c.RunUntil(switched, 30*time.Second)
	c.Run(time.Duration(rnd.Intn(5000)) * time.Millisecond)
	c.Restart(m.Name)
}

// cutOneWay cuts the connections a random endpoint of from opens to a
// random endpoint of to, unless it draws the same one twice.
func cutOneWay(c *Cluster, from, to []string) {
	a := from[c.Rand().Intn(len(from))]
	if b := to[c.Rand().Intn(len(to))]; a != b {
		c.CutOneWay([]string{a}, []string{b})
	}
}

// splitMaster partitions the first running master-role server from 1 to
// len(nodes)-1 of the Sentinels nodes, drawn at random: some Sentinels
// see it down while the others still reach it, the start of every shape
// in which two proxies could forward to two masters.
func splitMaster(c *Cluster, nodes []string) {
	rnd := c.Rand()
	var m *Server
	for _, s := range c.servers {
		if !s.crashed && s.Role == RoleMaster {
			m = s
			break
		}
	}
	if m == nil || len(nodes) < 2 {
		return
	}
	perm := rnd.Perm(len(nodes))
	var cut []string
	for _, i := range perm[:1+rnd.Intn(len(nodes)-1)] {
		cut = append(cut, nodes[i])
	}
	c.Partition([]string{m.Name}, cut)
}

// coordinatedFailover sends SENTINEL FAILOVER <m> COORDINATED to a
// random running Sentinel, if one runs. Its refusal (a failover already
// running, no master that can hand over, no good replica) is no fault.
func coordinatedFailover(c *Cluster) {
	var running []string
	for _, n := range c.Nodes() {
		if !n.Crashed() {
			running = append(running, n.Name)
		}
	}
	if len(running) == 0 {
		return
	}
	by := running[c.Rand().Intn(len(running))]
	_, _ = c.Command(by, msg.Failover{Name: masterName, Coordinated: true})
}

// converged reports whether every Sentinel names the single master-role
// server and every other server replicates from it.
func converged(c *Cluster) bool {
	var master *Server
	for _, s := range c.Servers() {
		if s.Role == RoleMaster {
			if master != nil {
				return false
			}
			master = s
		}
	}
	if master == nil {
		return false
	}
	for _, s := range c.Servers() {
		if s != master && s.MasterAddr != master.Addr {
			return false
		}
	}
	return allNodes(c, func(n *Node) bool { a, _ := n.Core.View().MasterAddr(masterName); return a == master.Addr })
}

// chaosFleet is one fleet shape the chaos runs use, with the longest
// quiet time between two faults. A oneway shape also draws one-way cuts
// and re-cuts the network during elections (see chaosFaults).
type chaosFleet struct {
	name   string
	topo   Topology
	every  time.Duration
	oneway bool
	// rejoin: the shape also draws the returns of an old master (cut
	// off until a failover, then healed; killed, then restarted with
	// its old configuration) and stalls of a Sentinel (rejoinFault).
	rejoin bool
}

// chaosFleets are the shapes TestChaos and the campaign run: 3 Sentinels
// with quorum 2, forget-replica-after 10 s and faults every 20 s at most,
// 5 Sentinels with quorum 3, voters 5 and forget-sentinel-after 10 s
// (partitions and crashes make them forget each other) and faults every
// 5 s at most; then the same two with one-way cuts and re-cuts during
// elections (oneway); then the same two again with returning old
// masters and stalled Sentinels (rejoin). Every Sentinel of every shape
// runs a proxy. A fleet's index is part of its seeds'
// replay names (TestChaos/<index>/<seed>): new shapes go at the end.
var chaosFleets = []chaosFleet{
	{"3 sentinels q2", Topology{DownAfter: downAfter, FailoverTimeout: 30 * time.Second, Proxy: true,
		ForgetReplicaAfter: 10 * time.Second}, 20 * time.Second, false, false},
	{"5 sentinels q3", Topology{Sentinels: 5, Replicas: 3, Quorum: 3, DownAfter: downAfter, FailoverTimeout: 30 * time.Second, Proxy: true,
		Voters: 5, ForgetSentinelAfter: 10 * time.Second}, 5 * time.Second, false, false},
	{"3 sentinels q2 one-way", Topology{DownAfter: downAfter, FailoverTimeout: 30 * time.Second, Proxy: true,
		ForgetReplicaAfter: 10 * time.Second}, 20 * time.Second, true, false},
	{"5 sentinels q3 one-way", Topology{Sentinels: 5, Replicas: 3, Quorum: 3, DownAfter: downAfter, FailoverTimeout: 30 * time.Second, Proxy: true,
		Voters: 5, ForgetSentinelAfter: 10 * time.Second}, 5 * time.Second, true, false},
	{"3 sentinels q2 rejoin", Topology{DownAfter: downAfter, FailoverTimeout: 30 * time.Second, Proxy: true,
		ForgetReplicaAfter: 10 * time.Second}, 20 * time.Second, false, true},
	{"5 sentinels q3 rejoin", Topology{Sentinels: 5, Replicas: 3, Quorum: 3, DownAfter: downAfter, FailoverTimeout: 30 * time.Second, Proxy: true,
		Voters: 5, ForgetSentinelAfter: 10 * time.Second}, 5 * time.Second, false, true},
}

// onewayOnly reports whether only the one-way shapes run
// (SIM_ONEWAY=1): `make sim-oneway SEEDS=N`.
func onewayOnly() bool { return os.Getenv("SIM_ONEWAY") == "1" }

// chaosRun runs one seed of a fleet: 5 minutes of random faults with the
// invariants checked all along, then healing and at most 5 minutes for
// every Sentinel to name the one master, then at most 2 minutes more for
// every Sentinel to list exactly the other servers as its replicas (none
// lost for good, forget-replica-after or not). It returns the cluster.
func chaosRun(t TB, seed int64, f chaosFleet) *Cluster {
	c := chaosFaults(t, seed, f, 5*time.Minute)
	if !c.RunUntil(func() bool { return converged(c) }, 5*time.Minute) {
		var state string
		for _, s := range c.Servers() {
			state += " " + s.Name + "=" + s.Role.String() + "(" + s.MasterAddr.Host + ")"
		}
		for _, n := range c.Nodes() {
			a, _ := n.Core.View().MasterAddr(masterName)
			state += " " + n.Name + "→" + a.Host
		}
		c.Fatalf("no convergence 5 min after the chaos ended:%s", state)
	}
	// The truth is read at every step: a coordinated failover started
	// just before the chaos ended may still switch the master after the
	// fleet first looked converged.
	var want []string
	if !c.RunUntil(func() bool {
		replicas, _, ok := replicasTruth(c)
		want = replicas
		return ok && everyNodeKnows(c, want)
	}, 2*time.Minute) {
		var state string
		for _, n := range c.Nodes() {
			state += fmt.Sprintf(" %s:%v", n.Name, knownReplicas(n))
		}
		c.Fatalf("the Sentinels do not list exactly the replicas %v 2 min after converging:%s", want, state)
	}
	return c
}

// TestChaos runs random fault schedules on every fleet shape (the
// one-way ones alone with SIM_ONEWAY=1): SIM_CHAOS_SEEDS seeds (5 by
// default) from SIM_CHAOS_FIRST (500 by default), and logs each seed's
// coordinated handovers. A failing seed replays exactly with
// SIM_CHAOS_FIRST=<seed> SIM_CHAOS_SEEDS=1 (add SIM_TRACE=all for the
// whole trace).
func TestChaos(t *testing.T) {
	t.Parallel()
	first, n := envInt("SIM_CHAOS_FIRST", 500), envInt("SIM_CHAOS_SEEDS", 5)
	for i, f := range chaosFleets {
		if onewayOnly() && !f.oneway {
			continue
		}
		for seed := first; seed < first+n; seed++ {
			t.Run(strconv.Itoa(i)+"/"+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				h := chaosRun(t, seed, f).Handovers()
				t.Logf("%d coordinated failovers completed, %d acknowledged writes checked on their new masters, %d lost in them",
					h.Completed, h.WritesChecked, h.WritesLost)
			})
		}
	}
}

// chaosRegressions are campaign seeds that once broke an invariant,
// replayed on every run: fleet index and seed.
var chaosRegressions = []struct {
	fleet int
	seed  int64
	why   string
}{
	{1, 7495, "s2 elected in epoch 15 with two peers' votes of 15 and its own of 14, its failover's"},
	{1, 8923, "s3 elected in epoch 4 with two peers' votes of 4 and its own of 3, its failover's"},
	{4, 5421, "s2 converted the returning r0, had no INFO of it for 10 s while a coordinated failover promoted it, and converted it again by Redis's wait counted from its first report"},
	{4, 6946, "s2, restarted alone on an older configuration (the others crashed), converted the master of the newest by Redis's wait, with no peer to tell it"},
	{4, 9090, "s3, alone after a stall (the others crashed), converted the master of the newest by Redis's wait, with no peer to tell it"},
	{5, 338, "the simulator ran s5's timer during a second stall that extended the first (CloseLink of a link it had dropped)"},
	{5, 370, "the simulator ran s3's timer during a stall that extended another"},
	{5, 399, "the simulator ran s3's timer during a stall that extended another (link-pending-commands off)"},
	{5, 454, "the views of s1 checked at its resumption before it took the link closures its stall had put off"},
	{5, 3601, "s4, resumed, took a hello that switched the master and closed a link whose closure its stall had put off (CloseLink of a link the simulator had dropped)"},
	{5, 5423, "the same as 3601, on s2"},
	{5, 8812, "the same as 3601, on s4"},
}

// TestChaosRegressions replays chaosRegressions.
func TestChaosRegressions(t *testing.T) {
	t.Parallel()
	for _, r := range chaosRegressions {
		t.Run(strconv.Itoa(r.fleet)+"/"+strconv.FormatInt(r.seed, 10), func(t *testing.T) {
			t.Parallel()
			t.Logf("once: %s", r.why)
			chaosRun(t, r.seed, chaosFleets[r.fleet])
		})
	}
}

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}
