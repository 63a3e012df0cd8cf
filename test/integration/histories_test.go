package integration

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/test/history"
	"github.com/redis/go-redis/v9"
)

// The histories test (make histories): clients of every route record
// each operation's call and return, a seeded schedule of faults runs on
// a go-sentinel fleet and, at the same instants, on a redis-sentinel
// fleet, and porcupine judges the record (test/history). See
// docs/reliability.md, "Histories".

// The histories fleets' timing: down-after 3 s, the proxies' lease 1.5 s
// (below down-after by more than half a lease and a PING period, so it
// delays no failover), the read port's max-lag 2 s.
const (
	histDownAfter  = 3 * time.Second
	histFenceAfter = 1500 * time.Millisecond
	histMaxLag     = 2 * time.Second
	histProxyPort  = 6390
	histReadPort   = 6391
)

// histStaleSlack is how much staler than max-lag a read of the read port
// may be: the lag is measured from the master's INFO, asked every
// second, of offsets the replicas acknowledge every second.
const histStaleSlack = 2 * time.Second

// histFault is one kind of fault of the schedule.
type histFault string

// The fault kinds. The master's faults touch the current master of each
// fleet (its process or its host); kill-master restarts it with its old
// config when the fault ends (the returning old master).
const (
	histNone          histFault = "none"
	histKillMaster    histFault = "kill-master"
	histStopMaster    histFault = "stop-master"
	histCutMaster     histFault = "cut-master"
	histOneWayMaster  histFault = "one-way-master"
	histKillSentinel  histFault = "kill-sentinel"
	histStopSentinel  histFault = "stop-sentinel"
	histStopMajority  histFault = "stop-majority"
	histKillMajority  histFault = "kill-majority"
	histLagReplica    histFault = "lag-replica"
	histClockStep     histFault = "clock-step"
	histPlanned       histFault = "failover"
	histCoordinated   histFault = "coordinated"
	histFaultsInOrder           = "kill-master stop-master cut-master one-way-master kill-sentinel stop-sentinel stop-majority kill-majority lag-replica clock-step failover coordinated"
)

// masterFault reports whether the fault takes the master away (an
// unplanned failover follows).
func (f histFault) masterFault() bool {
	return f == histKillMaster || f == histStopMaster || f == histCutMaster || f == histOneWayMaster
}

// planned reports whether the fault is an operator's failover.
func (f histFault) planned() bool { return f == histPlanned || f == histCoordinated }

// holdFor is how long the fault stays in force.
func (f histFault) holdFor() time.Duration {
	switch f {
	case histStopMajority, histStopSentinel:
		return 4500 * time.Millisecond // past the TILT trigger (2 s)
	case histClockStep:
		return 5 * time.Second
	case histNone, histPlanned, histCoordinated:
		return 0
	}
	return 8 * time.Second
}

// histFleet is one daemon's fleet and its routes.
type histFleet struct {
	kind    daemonKind
	name    string // "gs", "rs": the routes' prefix
	f       *relFleet
	g       *relGroup
	proxies []string // the master routes' addresses (proxies or HAProxies)
	reads   []string // the read ports (go-sentinel only)
	fixed   *histPinned
	// per episode
	nodeFaults []history.NodeFault
	undo       []func()
}

// newHistFleet builds a fleet of kind on three namespaced hosts.
func newHistFleet(t *testing.T, kind daemonKind, bin string, env []string) *histFleet {
	hf := &histFleet{kind: kind, name: "gs"}
	o := relFleetOpts{DownAfter: histDownAfter, SentinelBin: bin, SentinelEnv: env,
		SentinelExtraFor: func(h *relHost) string {
			return fmt.Sprintf("sentinel proxy mymaster %s %d\nsentinel proxy-protected-mode mymaster no\n"+
				"sentinel proxy-fence-after mymaster %d\nsentinel proxy-replicas mymaster %s %d\nsentinel proxy-replica-max-lag mymaster %d\n",
				h.IP, histProxyPort, histFenceAfter.Milliseconds(), h.IP, histReadPort, histMaxLag.Milliseconds())
		}}
	if kind == redisSentinel {
		hf.name = "rs"
		o = relFleetOpts{DownAfter: histDownAfter, Kinds: []daemonKind{redisSentinel, redisSentinel, redisSentinel}}
	}
	hf.f = newRelFleet(t, 3, o)
	hf.g = hf.f.groups[0]
	hf.fixed = &histPinned{addr: hf.g.nodes[0].Addr()}
	t.Cleanup(hf.fixed.close)
	for _, h := range hf.f.lab.hosts[:2] {
		addr := fmt.Sprintf("%s:%d", h.IP, histProxyPort)
		if kind == redisSentinel {
			h.startHAProxy(t, histProxyPort, hf.g.nodes)
		} else {
			hf.reads = append(hf.reads, fmt.Sprintf("%s:%d", h.IP, histReadPort))
		}
		hf.proxies = append(hf.proxies, addr)
	}
	for _, s := range hf.f.sentinels {
		if _, err := s.do("SENTINEL", "DEBUG", "tilt-period", "5000"); err != nil {
			t.Fatalf("%s: SENTINEL DEBUG tilt-period: %v", s, err)
		}
	}
	return hf
}

func (hf *histFleet) route(r string) string { return hf.name + "-" + r }

// sentinelAddrs is every Sentinel's address.
func (hf *histFleet) sentinelAddrs() []string {
	var a []string
	for _, s := range hf.f.sentinels {
		a = append(a, s.Addr())
	}
	return a
}

// startClients starts the fleet's clients: two Sentinel-aware clients,
// one per proxy (or HAProxy), one pinned to the master's address at each
// episode's start,
// and (go-sentinel) a writer and two readers per read port.
func (hf *histFleet) startClients(t *testing.T, wg *sync.WaitGroup, ctx context.Context, rec *histRecorder, seed int64) {
	startHistClients(t, wg, ctx, rec, hf.route("sentinel"), histFailover(hf.sentinelAddrs()), 2, 0, seed)
	for i, p := range hf.proxies {
		startHistClients(t, wg, ctx, rec, hf.route("proxy"), histPlain(p), 1, 10+i, seed)
	}
	fc := &histClient{id: 20, route: hf.route("fixed"), pin: hf.fixed, rec: rec, rng: rand.New(rand.NewSource(seed + 20))}
	wg.Add(1)
	go func() { defer wg.Done(); fc.run(ctx) }()
	if len(hf.reads) == 0 {
		return
	}
	w := &histSeqWriter{route: hf.route("read"), c: histFailover(hf.sentinelAddrs()), rec: rec}
	t.Cleanup(func() { w.c.Close() })
	wg.Add(1)
	go func() { defer wg.Done(); w.run(ctx) }()
	for i, addr := range hf.reads {
		for j := 0; j < 2; j++ {
			r := &histReader{id: 31 + 2*i + j, route: hf.route("read"), c: histPlain(addr), rec: rec, rng: rand.New(rand.NewSource(seed + int64(31+2*i+j)))}
			t.Cleanup(func() { r.c.Close() })
			wg.Add(1)
			go func() { defer wg.Done(); r.run(ctx) }()
		}
	}
}

// master is the node the Sentinels agree on (the fleet has converged).
func (hf *histFleet) master() *relNode {
	return hf.g.node(hf.f.waitConverged(hf.g, 90*time.Second))
}

// inject puts the fault in force on the fleet; heal undoes it. The
// master's faults are recorded for the loss classifier.
func (hf *histFleet) inject(t *testing.T, rec *histRecorder, f histFault, rng *rand.Rand) {
	m := hf.master()
	var mh *relHost
	if m != nil {
		mh = m.host
	}
	hf.undo = nil
	addNodeFault := func() {
		hf.nodeFaults = append(hf.nodeFaults, history.NodeFault{Node: m.Addr(), Start: rec.now(), End: history.Never})
		i := len(hf.nodeFaults) - 1
		hf.undo = append(hf.undo, func() { hf.nodeFaults[i].End = rec.now() })
	}
	others := func() []*relSentinel { // the Sentinels off the master's host
		var o []*relSentinel
		for _, s := range hf.f.sentinels {
			if s.host != mh {
				o = append(o, s)
			}
		}
		return o
	}
	switch f {
	case histKillMaster:
		addNodeFault()
		m.kill()
		hf.undo = append([]func(){m.restart}, hf.undo...)
	case histStopMaster:
		addNodeFault()
		relStop(m.p)
		hf.undo = append([]func(){func() { relCont(m.p) }}, hf.undo...)
	case histCutMaster:
		addNodeFault()
		mh.cutOff()
		hf.undo = append([]func(){mh.heal}, hf.undo...)
	case histOneWayMaster:
		addNodeFault()
		ppOneWay.cut(mh, []int{m.Port, mh.SentinelPort, histProxyPort, histReadPort})
		hf.undo = append([]func(){mh.heal}, hf.undo...)
	case histKillSentinel, histStopSentinel:
		s := hf.f.sentinels[rng.Intn(len(hf.f.sentinels))]
		if f == histKillSentinel {
			s.kill()
			hf.undo = append(hf.undo, s.restart)
		} else {
			relStop(s.p)
			hf.undo = append(hf.undo, func() { relCont(s.p) })
		}
	case histStopMajority, histKillMajority:
		for _, s := range others() {
			if f == histKillMajority {
				s.kill()
				hf.undo = append(hf.undo, s.restart)
			} else {
				relStop(s.p)
				hf.undo = append(hf.undo, func() { relCont(s.p) })
			}
		}
	case histLagReplica:
		for _, n := range hf.g.nodes {
			if n != m {
				n.host.cutReplication(mh)
				hf.undo = append(hf.undo, n.host.heal)
				break
			}
		}
	case histPlanned, histCoordinated:
		args := []any{"SENTINEL", "FAILOVER", "mymaster"}
		if f == histCoordinated && hf.kind == goSentinel {
			args = append(args, "COORDINATED")
		}
		if _, err := hf.f.sentinels[0].do(args...); err != nil {
			t.Errorf("%s: %v: %v", hf.f.sentinels[0], args, err)
		}
	}
}

// heal ends the fault.
func (hf *histFleet) heal() {
	for _, u := range hf.undo {
		u()
	}
	hf.undo = nil
}

// settle waits until the fleet has converged and no Sentinel is in TILT.
func (hf *histFleet) settle(t *testing.T) {
	hf.f.waitConverged(hf.g, 90*time.Second)
	waitFor(t, 60*time.Second, hf.name+"'s Sentinels out of TILT", func() bool {
		for _, s := range hf.f.sentinels {
			if relInfoField(t, s.Addr(), "sentinel_tilt") != "0" {
				return false
			}
		}
		return true
	})
}

// switches is every +switch-master any Sentinel of the fleet published,
// on the recorder's clock: the first announcement of each switch (the
// same pair announced again within 10 s is the same switch, told by
// another Sentinel; a pair can switch again in a later episode).
func (hf *histFleet) switches(rec *histRecorder) []history.Switch {
	type ann struct {
		from, to string
		at       int64
	}
	var all []ann
	for _, s := range hf.f.sentinels {
		s.events.mu.Lock()
		for i, e := range s.events.events {
			f := strings.Fields(e)
			if len(f) < 6 || f[0] != "+switch-master" {
				continue
			}
			all = append(all, ann{from: f[2] + ":" + f[3], to: f[4] + ":" + f[5], at: rec.at(s.events.at[i])})
		}
		s.events.mu.Unlock()
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at < all[j].at })
	var out []history.Switch
	last := map[string]int64{}
	for _, a := range all {
		k := a.from + ">" + a.to
		if at, ok := last[k]; ok && a.at-at < 10_000_000_000 {
			continue
		}
		last[k] = a.at
		out = append(out, history.Switch{From: a.from, To: a.to, At: a.at})
	}
	return out
}

// finalLists reads the episode's lists (every key an RPUSH of the
// episode named) from the fleet's master.
func (hf *histFleet) finalLists(t *testing.T, rec *histRecorder, episode int64) map[string][]string {
	out := map[string][]string{}
	m := hf.master()
	for _, r := range []string{"sentinel", "proxy", "fixed"} {
		for _, o := range rec.opsOf(histKey(hf.route(r), episode)) {
			if o.Kind != history.RPush {
				continue
			}
			if _, done := out[o.Key]; done {
				continue
			}
			v, err := relDo(t, m.Addr(), "LRANGE", o.Key, 0, -1)
			if err != nil {
				t.Errorf("LRANGE %s on %s: %v", o.Key, m, err)
				continue
			}
			items := []string{}
			for _, x := range v.([]any) {
				items = append(items, fmt.Sprint(x))
			}
			out[o.Key] = items
		}
	}
	return out
}

// histQuiet silences go-redis's log (every Sentinel lookup).
type histQuiet struct{}

func (histQuiet) Printf(context.Context, string, ...any) {}

// histEpisode is one fault of the schedule, as run.
type histEpisode struct {
	n          int64
	fault      histFault
	start, end int64 // the fault in force (recorder's clock)
	over       int64 // the episode's end (converged, traffic after it)
}

// histGate reads the environment: the run's length, the seed, the
// artifacts directory.
func histGate(t *testing.T) (d time.Duration, seed int64, dir string) {
	switch {
	case os.Getenv("GS_HISTORIES") != "":
		var err error
		if d, err = time.ParseDuration(os.Getenv("GS_HISTORIES")); err != nil {
			t.Fatalf("GS_HISTORIES=%q: %v", os.Getenv("GS_HISTORIES"), err)
		}
	default:
		t.Skip("make histories runs it (GS_HISTORIES=<duration>, as root)")
	}
	seed = time.Now().UnixNano()
	if s, err := strconv.ParseInt(os.Getenv("HIST_SEED"), 10, 64); err == nil {
		seed = s
	}
	dir = os.Getenv("HIST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "go-sentinel-histories")
	}
	os.MkdirAll(dir, 0o755)
	return d, seed, dir
}

// histSchedule is the seeded order of faults: every kind once in a
// shuffled round, round after round.
func histSchedule(rng *rand.Rand, n int) []histFault {
	kinds := strings.Fields(histFaultsInOrder)
	var out []histFault
	for len(out) < n {
		rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		for _, k := range kinds {
			out = append(out, histFault(k))
		}
	}
	return out[:n]
}

// stepClock steps this machine's wall clock by d (every process's: the
// Sentinels of both fleets see the same step).
func stepClock(t *testing.T, d time.Duration) {
	out, err := exec.Command("date", "-s", fmt.Sprintf("@%.6f", float64(time.Now().Add(d).UnixMicro())/1e6)).CombinedOutput()
	if err != nil {
		t.Errorf("date -s: %v: %s", err, out)
	}
}

// TestHistories: a go-sentinel fleet and a redis-sentinel fleet, each on
// three namespaced hosts (a master and two replicas, quorum 2,
// down-after 3 s), under clients of every route (histFleet.startClients);
// the schedule (HIST_SEED replays it) runs episodes of one fault each on
// both fleets at the same instants, each on keys of its own: 2 s of
// traffic, the fault for its hold, the heal, convergence and TILT's end,
// 3 s more. Then porcupine and the loss classifier judge every episode's
// keys per route (histJudge), the summary goes to HIST_ARTIFACTS, and
// the go-sentinel claims are asserted.
func TestHistories(t *testing.T) {
	d, seed, dir := histGate(t)
	var faults []histFault // HIST_FAULTS: these, in order, instead of the schedule
	for _, f := range strings.FieldsFunc(os.Getenv("HIST_FAULTS"), func(r rune) bool { return r == ',' || r == ' ' }) {
		faults = append(faults, histFault(f))
	}
	j := runHistories(t, d, seed, dir, sentinelBin, nil, faults, os.Getenv("HIST_REDIS_SENTINEL") != "0")
	for _, f := range j.failures {
		t.Errorf("broken: %s", f)
	}
}

// runHistories runs the schedule for d (or the faults given) and judges
// it; withRS adds the redis-sentinel fleet. It returns the judgement.
func runHistories(t *testing.T, d time.Duration, seed int64, dir, bin string, env []string, faults []histFault, withRS bool) *histJudgement {
	redis.SetLogger(histQuiet{})
	t.Logf("histories: seed %d (HIST_SEED=%d replays the schedule), %v, artifacts in %s", seed, seed, d, dir)
	rng := rand.New(rand.NewSource(seed))
	fleets := []*histFleet{newHistFleet(t, goSentinel, bin, env)}
	if withRS {
		fleets = append(fleets, newHistFleet(t, redisSentinel, "", nil))
	}
	rec := newHistRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for _, hf := range fleets {
		hf.startClients(t, &wg, ctx, rec, seed)
	}
	if faults == nil {
		faults = histSchedule(rng, 1000)
	}
	deadline := time.Now().Add(d)
	var eps []*histEpisode
	for i, f := range faults {
		if i > 0 && time.Now().After(deadline) {
			break
		}
		ep := &histEpisode{n: int64(i + 1), fault: f}
		for _, hf := range fleets {
			hf.fixed.pin(hf.master().Addr())
		}
		rec.episode.Store(ep.n)
		time.Sleep(2 * time.Second) // traffic on the new keys first
		ep.start = rec.now()
		for _, hf := range fleets {
			hf.inject(t, rec, f, rng)
		}
		if f == histClockStep {
			stepClock(t, 30*time.Second)
		}
		time.Sleep(f.holdFor())
		if f == histClockStep {
			stepClock(t, -30*time.Second)
		}
		for _, hf := range fleets {
			hf.heal()
		}
		ep.end = rec.now()
		for _, hf := range fleets {
			if f.planned() {
				old := hf.fixed.addr
				waitFor(t, 60*time.Second, hf.name+"'s planned failover", func() bool {
					m, ok := hf.f.converged(hf.g)
					return ok && m != old
				})
			}
			hf.settle(t)
		}
		time.Sleep(3 * time.Second)
		ep.over = rec.now()
		t.Logf("episode %d: %s, in force at %.3f s for %.1f s, over %.1f s after it began", ep.n, f, float64(ep.start)/1e9, float64(ep.end-ep.start)/1e9, float64(ep.over-ep.start)/1e9)
		eps = append(eps, ep)
	}
	rec.episode.Store(int64(len(eps) + 1))
	time.Sleep(2 * time.Second) // the last operations on the episodes' keys return or time out
	j := &histJudgement{dir: dir, seed: seed}
	for _, hf := range fleets {
		for _, ep := range eps {
			j.judge(t, rec, hf, ep, hf.finalLists(t, rec, ep.n))
		}
	}
	cancel()
	wg.Wait()
	j.report(t, fleets)
	return j
}
