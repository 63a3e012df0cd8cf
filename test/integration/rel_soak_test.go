package integration

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// relSoakFor is how long TestRelSoak runs: REL_SOAK (a Go duration, set
// by make soak DURATION=...); 0 skips it.
func relSoakFor(t *testing.T) time.Duration {
	v := os.Getenv("REL_SOAK")
	if v == "" {
		t.Skip("a soak runs only when asked: make soak DURATION=30m (REL_SOAK=30m)")
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("REL_SOAK=%q: %v", v, err)
	}
	return d
}

// relFault is one fault the soak injects: apply does it, undo ends it;
// rec says what it touches, for the loss classifier.
type relFault struct {
	name  string
	apply func()
	undo  func()
	rec   relFaultRec
}

// relEpochWatch polls every Sentinel and checks the epoch invariants as
// they happen: for every group, each config epoch names one master
// address, in every Sentinel, for the whole run; a Sentinel's config
// epoch of a group, and its current epoch (from its config file), never
// go back, across its restarts too. A leader takes the epoch of its
// failover as config epoch when the replica is promoted but switches to
// the replica's address only at the end, as Redis does: the address it
// reports while its failover is in progress is not taken into account.
type relEpochWatch struct {
	t *testing.T
	f *relFleet

	mu         sync.Mutex
	addrOf     map[string]string          // group/config-epoch → master address
	firstSaid  map[string]string          // who said it first, when
	configSeen map[string]uint64          // sentinel/group → highest config epoch it reported
	currSeen   map[*relSentinel]uint64    // highest current epoch in its config file
	broken     []string                   // invariant violations
	epochs     map[string]map[uint64]bool // group → config epochs seen
	seen       map[string]bool            // violations already reported
}

func newRelEpochWatch(t *testing.T, f *relFleet) *relEpochWatch {
	return &relEpochWatch{t: t, f: f, addrOf: map[string]string{}, firstSaid: map[string]string{}, configSeen: map[string]uint64{},
		currSeen: map[*relSentinel]uint64{}, epochs: map[string]map[uint64]bool{}, seen: map[string]bool{}}
}

// fail records a violation; key identifies it, so that one is reported
// once however many polls see it again.
func (w *relEpochWatch) fail(key, format string, args ...any) {
	msg := time.Now().Format("15:04:05.000 ") + fmt.Sprintf(format, args...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen[key] {
		w.seen[key] = true
		w.broken = append(w.broken, msg)
	}
}

var relCurrentEpochRE = regexp.MustCompile(`(?m)^sentinel current-epoch (\d+)$`)

// poll checks every Sentinel once, in parallel (a stopped one times out).
func (w *relEpochWatch) poll() {
	var wg sync.WaitGroup
	for _, s := range w.f.sentinels {
		wg.Add(1)
		go func(s *relSentinel) {
			defer wg.Done()
			if b, err := os.ReadFile(s.conf); err == nil {
				if m := relCurrentEpochRE.FindSubmatch(b); m != nil {
					e, _ := strconv.ParseUint(string(m[1]), 10, 64)
					w.mu.Lock()
					if e < w.currSeen[s] {
						w.mu.Unlock()
						w.fail(fmt.Sprintf("current %s %d", s, e), "%s: current epoch in its config went back from %d to %d", s, w.currSeen[s], e)
						w.mu.Lock()
					}
					w.currSeen[s] = max(w.currSeen[s], e)
					w.mu.Unlock()
				}
			}
			for _, g := range w.f.groups {
				m := s.masterFields(g.Name)
				if m == nil {
					continue
				}
				ce, err := strconv.ParseUint(m["config-epoch"], 10, 64)
				if err != nil {
					w.fail("parse "+s.String(), "%s: config-epoch %q of %s", s, m["config-epoch"], g.Name)
					continue
				}
				inFailover := strings.Contains(m["flags"], "failover_in_progress")
				addr := m["ip"] + ":" + m["port"]
				key := fmt.Sprintf("%s/%d", g.Name, ce)
				sk := s.String() + "/" + g.Name
				w.mu.Lock()
				prev, had := w.addrOf[key]
				if !had && !inFailover {
					w.addrOf[key] = addr
					w.firstSaid[key] = s.String() + " at " + time.Now().Format("15:04:05.000")
				}
				back := ce < w.configSeen[sk]
				was := w.configSeen[sk]
				w.configSeen[sk] = max(was, ce)
				if w.epochs[g.Name] == nil {
					w.epochs[g.Name] = map[uint64]bool{}
				}
				w.epochs[g.Name][ce] = true
				first := w.firstSaid[key]
				w.mu.Unlock()
				if had && prev != addr && !inFailover {
					w.fail(key+" "+addr, "%s: config epoch %d of %s names %s, but %s said %s", s, ce, g.Name, addr, first, prev)
				}
				if back {
					w.fail(fmt.Sprintf("back %s %d", sk, ce), "%s: config epoch of %s went back from %d to %d", s, g.Name, was, ce)
				}
			}
		}(s)
	}
	wg.Wait()
}

// relElections checks, from the Sentinels' log files (which span their
// restarts), that one epoch of one group elected at most one leader, and
// that no Sentinel voted for two run ids in one epoch (votes are logged
// without their master, so two groups failing over in one epoch would
// show here too: they are reported, not counted as broken, when the
// votes name different groups' leaders in their +elected-leader lines).
// It returns the failovers each leader completed (+failover-end) and the
// elections per group.
func relElections(t *testing.T, f *relFleet, ids map[*relSentinel]string) (ends, elected map[string]int, broken []string) {
	ends, elected = map[string]int{}, map[string]int{}
	leaderOf := map[string]string{} // group/epoch → sentinel
	for _, s := range f.sentinels {
		pending := map[string]uint64{} // group → epoch of its last own attempt
		lastTry := ""
		votes := map[uint64]map[string]bool{}
		for _, l := range s.logLines(t) {
			fs := strings.Fields(l.text)
			switch {
			case fs[0] == "+try-failover" && len(fs) > 2:
				lastTry = fs[2]
			case fs[0] == "+vote-for-leader" && len(fs) == 3:
				e, _ := strconv.ParseUint(fs[2], 10, 64)
				if votes[e] == nil {
					votes[e] = map[string]bool{}
				}
				votes[e][fs[1]] = true
				if fs[1] == ids[s] && lastTry != "" {
					pending[lastTry] = e
					lastTry = ""
				}
			case fs[0] == "+elected-leader" && len(fs) > 2:
				g := fs[2]
				key := fmt.Sprintf("%s/%d", g, pending[g])
				if other, ok := leaderOf[key]; ok && other != s.String() {
					broken = append(broken, fmt.Sprintf("epoch %s elected both %s and %s", key, other, s))
				}
				leaderOf[key] = s.String()
				elected[g]++
			case fs[0] == "+failover-end" && len(fs) > 2: // after +failover-end-for-timeout too
				ends[fs[2]]++
			}
		}
		for e, ids := range votes {
			if len(ids) > 1 {
				t.Logf("%s voted for %d run ids in epoch %d: %v (votes are logged without their master)", s, len(ids), e, relKeys(ids))
			}
		}
	}
	return ends, elected, broken
}

// TestRelSoak runs a fleet of three namespaced hosts, each with a
// go-sentinel and a node of two data sets: "mymaster" (no guard) and
// "guarded" (min-replicas-to-write 1, min-replicas-max-lag 2). A client
// per data set writes unique keys to the master that the Sentinel of
// host h1 names (the next one when it does not answer), like a client on
// h1. For REL_SOAK, a random schedule (seed logged) injects faults one or
// two at a time, holds them for a while, undoes them and pauses: SIGKILL
// and restart of a data node, of a current master or of a Sentinel, a host
// cut off, two hosts cut apart, a Sentinel cut from its peers, SIGSTOP of
// a data node or of a Sentinel. Throughout, the epoch invariants are
// checked (relEpochWatch); at the end everything is healed, continued and
// restarted, every Sentinel must name the same master of each data set,
// exactly one node must be its master, and the elections must be sound
// (relElections). It prints the failovers done, the faults injected and
// the acknowledged writes lost per data set.
func TestRelSoak(t *testing.T) {
	soakFor := relSoakFor(t)
	groups := []*relGroup{{Name: "mymaster", Port: 6379}, {Name: "guarded", Port: 6380, Extra: relGuard}}
	f := newRelFleet(t, 3, relFleetOpts{Groups: groups, DownAfter: time.Second, FailoverTimeout: 5 * time.Second})
	seed := time.Now().UnixNano()
	if v := os.Getenv("REL_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("soak of %v, seed %d (REL_SEED replays the schedule)", soakFor, seed)
	ids := map[*relSentinel]string{}
	for _, s := range f.sentinels {
		ids[s] = s.myID()
	}
	if dir := os.Getenv("REL_ARTIFACTS"); dir != "" {
		t.Cleanup(func() { relSaveLogs(t, f, dir) })
	}
	began := time.Now()
	logf := func(format string, args ...any) {
		t.Logf("%8s %s "+format, append([]any{time.Since(began).Round(time.Second), time.Now().Format("15:04:05.000")}, args...)...)
	}

	// The writers, one per data set, on h1's side.
	writers := map[*relGroup]*relWriter{}
	ledgers := map[*relGroup]*relLedger{}
	stops := []func(){}
	for _, g := range f.groups {
		target := relFollowH1(f, g)
		w, stop := startRelWriter(t, "soak-"+g.Name, target)
		writers[g], stops = w, append(stops, stop)
		ledgers[g] = newRelLedger(t, g, w)
	}

	watch := newRelEpochWatch(t, f)
	pollDone := make(chan struct{})
	pollStop := make(chan struct{})
	go func() {
		defer close(pollDone)
		for {
			select {
			case <-pollStop:
				return
			case <-time.After(500 * time.Millisecond):
				watch.poll()
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-pollStop:
		default:
			close(pollStop)
		}
		<-pollDone
	})

	// The fault kinds, drawn at random.
	hosts := f.lab.hosts
	pickNode := func() *relNode {
		g := f.groups[rng.Intn(len(f.groups))]
		return g.nodes[rng.Intn(len(g.nodes))]
	}
	pickSentinel := func() *relSentinel { return f.sentinels[rng.Intn(len(f.sentinels))] }
	kinds := []struct {
		label string
		make  func() relFault
	}{
		{"SIGKILL of a data node", func() relFault {
			n := pickNode()
			return relFault{"SIGKILL " + n.String(), n.kill, n.restart, relFaultRec{kind: relFaultKill, nodes: []string{n.Addr()}}}
		}},
		{"SIGKILL of a master", func() relFault {
			g := f.groups[rng.Intn(len(f.groups))]
			var n *relNode
			for _, x := range g.nodes {
				if r, _ := relRole(t, x.Addr()); r == "master" {
					n = x
				}
			}
			if n == nil {
				n = g.nodes[0]
			}
			return relFault{"SIGKILL of the master " + n.String(), n.kill, n.restart, relFaultRec{kind: relFaultKill, nodes: []string{n.Addr()}}}
		}},
		{"SIGKILL of a Sentinel", func() relFault {
			s := pickSentinel()
			return relFault{"SIGKILL " + s.String(), s.kill, s.restart, relFaultRec{kind: relFaultSentinel}}
		}},
		{"host cut off", func() relFault {
			h := hosts[rng.Intn(len(hosts))]
			return relFault{"cut off " + h.Name, h.cutOff, h.heal, relFaultRec{kind: relFaultHostCut, hosts: []string{h.Name}}}
		}},
		{"two hosts cut apart", func() relFault {
			i := rng.Intn(len(hosts))
			a, b := hosts[i], hosts[(i+1+rng.Intn(len(hosts)-1))%len(hosts)]
			return relFault{"cut " + a.Name + " from " + b.Name, func() { a.cutFrom(b) }, a.heal,
				relFaultRec{kind: relFaultCutApart, hosts: []string{a.Name, b.Name}}}
		}},
		{"Sentinel cut from its peers", func() relFault {
			h := hosts[rng.Intn(len(hosts))]
			return relFault{"Sentinel of " + h.Name + " cut from its peers", func() {
				for _, p := range hosts {
					if p != h {
						h.cutPort(p, p.SentinelPort)
					}
				}
			}, h.heal, relFaultRec{kind: relFaultSentinel}}
		}},
		{"SIGSTOP of a data node", func() relFault {
			n := pickNode()
			return relFault{"SIGSTOP " + n.String(), func() { relStop(n.p) }, func() { relCont(n.p) }, relFaultRec{kind: relFaultStop, nodes: []string{n.Addr()}}}
		}},
		{"SIGSTOP of a Sentinel", func() relFault {
			s := pickSentinel()
			return relFault{"SIGSTOP " + s.String(), func() { relStop(s.p) }, func() { relCont(s.p) }, relFaultRec{kind: relFaultSentinel}}
		}},
	}
	injected := map[string]int{}
	faults := 0
	var windows []relFaultWindow
	for end := began.Add(soakFor); time.Now().Before(end); {
		n := 1
		if rng.Intn(5) == 0 {
			n = 2
		}
		var fs []relFault
		used := map[string]bool{}
		for len(fs) < n {
			k := kinds[rng.Intn(len(kinds))]
			fl := k.make()
			if used[fl.name] {
				continue
			}
			used[fl.name] = true
			fl.rec.label, fl.rec.name = k.label, fl.name
			fs = append(fs, fl)
			injected[k.label]++
		}
		hold := time.Duration(1000+rng.Intn(11000)) * time.Millisecond
		var names []string
		var ends []func()
		for _, fl := range fs {
			for _, l := range ledgers {
				ends = append(ends, l.begin(fl.rec))
			}
			fl.apply()
			names = append(names, fl.name)
			faults++
		}
		logf("%s for %v", strings.Join(names, " + "), hold)
		windows = append(windows, relFaultWindow{name: strings.Join(names, " + "), at: time.Now(), offset: time.Since(began).Round(time.Second)})
		time.Sleep(hold)
		for i := len(fs) - 1; i >= 0; i-- {
			fs[i].undo()
		}
		for _, end := range ends {
			end()
		}
		time.Sleep(time.Duration(2000+rng.Intn(8000)) * time.Millisecond)
	}

	// Everything healed, continued and running again: the fleet must
	// converge.
	f.lab.healAll()
	for _, g := range f.groups {
		for _, n := range g.nodes {
			relCont(n.p)
		}
	}
	for _, s := range f.sentinels {
		relCont(s.p)
	}
	logf("faults over; waiting for the fleet to converge")
	finals := map[*relGroup]string{}
	for _, g := range f.groups {
		finals[g] = f.waitConverged(g, 2*time.Minute)
	}
	time.Sleep(3 * time.Second) // let the last writes replicate
	for _, stop := range stops {
		stop()
	}
	close(pollStop)
	<-pollDone
	watch.poll()
	for _, g := range f.groups {
		if m, ok := f.converged(g); !ok || m != finals[g] {
			t.Errorf("%s did not stay converged on %s: %s", g.Name, finals[g], f.topology(g))
		}
	}

	ends, elected, broken := relElections(t, f, ids)
	broken = append(broken, watch.broken...)
	for _, b := range broken {
		t.Errorf("invariant broken: %s", b)
	}
	var kindsDone []string
	for k, v := range injected {
		kindsDone = append(kindsDone, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(kindsDone)
	t.Logf("SOAK %v seed %d: %d faults injected (%s)", soakFor, seed, faults, strings.Join(kindsDone, ", "))
	for _, g := range f.groups {
		w := writers[g]
		lost, acked := w.lost(t, finals[g])
		if len(lost) > 0 {
			t.Logf("SOAK %s: lost writes by the fault last injected when they were acknowledged: %s", g.Name, relAttribute(lost, windows))
		}
		ledgers[g].finish()
		losses := ledgers[g].classify(lost)
		t.Logf("SOAK %s: lost writes by class and fault:%s", g.Name, relLossTable(losses))
		relLogTraces(t, g.Name, losses)
		for _, c := range relCuts(ledgers[g], w, losses) {
			if c.lost > 0 {
				t.Logf("SOAK CUT %s: %s", g.Name, c)
			}
		}
		if n := relLossCount(losses, relLossStale); n > 0 {
			t.Errorf("SOAK %s: %d writes lost because a replica with less data was promoted (class b, Sentinel's fault)", g.Name, n)
		}
		guard := "no guard"
		if g.Extra != nil {
			guard = fmt.Sprintf("min-replicas-to-write 1, max-lag %d", relGuardLag)
		}
		var epochs []uint64
		for e := range watch.epochs[g.Name] {
			epochs = append(epochs, e)
		}
		sort.Slice(epochs, func(i, j int) bool { return epochs[i] < epochs[j] })
		t.Logf("SOAK %s (%s): failovers done %d (elections won %d, config epochs seen %v), final master %s; writes acknowledged %d, lost %d (%.2f%%; %s); refused %v",
			g.Name, guard, ends[g.Name], elected[g.Name], epochs, finals[g], acked, len(lost), 100*float64(len(lost))/float64(max(acked, 1)),
			relLostSummary(lost), w.refusals())
	}
	t.Logf("SOAK invariants broken: %d", len(broken))
}

// relSaveLogs copies the Sentinels' log files and the final config files
// into dir (REL_ARTIFACTS), for a look after the run.
func relSaveLogs(t *testing.T, f *relFleet, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("artifacts: %v", err)
		return
	}
	for _, s := range f.sentinels {
		for src, ext := range map[string]string{s.log: ".log", s.conf: ".conf"} {
			if b, err := os.ReadFile(src); err == nil {
				os.WriteFile(filepath.Join(dir, s.host.Name+ext), b, 0o644)
			}
		}
	}
	t.Logf("Sentinel logs and configs saved in %s", dir)
}

// relFaultWindow is when the soak injected a fault (one or two at once).
type relFaultWindow struct {
	name   string
	at     time.Time
	offset time.Duration // since the soak began
}

// relAttribute counts lost writes by the fault injected last before each
// was acknowledged (or up to 1 s after it: a write acknowledged just
// before a master is killed or cut off is lost with it).
func relAttribute(lost []relAck, windows []relFaultWindow) string {
	by := map[string]int{}
	for _, a := range lost {
		name := "before any fault"
		for _, w := range windows {
			if w.at.After(a.at.Add(time.Second)) {
				break
			}
			name = fmt.Sprintf("%s (at %v)", w.name, w.offset)
		}
		by[name]++
	}
	type row struct {
		name string
		n    int
	}
	var rows []row
	for k, v := range by {
		rows = append(rows, row{k, v})
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].n > rows[j].n || (rows[i].n == rows[j].n && rows[i].name < rows[j].name)
	})
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d after %s", r.n, r.name))
	}
	return strings.Join(out, "; ")
}
