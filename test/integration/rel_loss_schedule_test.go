package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// relLossStep is one step of the fixed schedule: a fault applied to
// every group at once, each time to the node of that group that holds
// the role (its master, or its first replica in host order), held for
// hold and undone.
type relLossStep struct {
	label string
	kind  relFaultKind
	role  string // "master", "replica" or "" (a Sentinel fault)
	hold  time.Duration
}

// relLossSchedule is the fixed schedule of TestRelLossSchedule: every
// kind of data-node fault of the soak, on the master and on a replica,
// and the Sentinel faults that can stall a failover.
var relLossSchedule = []relLossStep{
	{"SIGKILL of the master", relFaultKill, "master", 6 * time.Second},
	{"master cut off", relFaultIsolate, "master", 8 * time.Second},
	{"SIGSTOP of the master", relFaultStop, "master", 6 * time.Second},
	{"SIGKILL of a replica", relFaultKill, "replica", 6 * time.Second},
	{"replica cut off", relFaultIsolate, "replica", 8 * time.Second},
	{"SIGSTOP of a replica", relFaultStop, "replica", 6 * time.Second},
	{"SIGSTOP of h1's Sentinel", relFaultSentinel, "", 6 * time.Second},
	{"master cut off, short", relFaultIsolate, "master", 3 * time.Second},
	{"SIGSTOP of the master, short", relFaultStop, "master", 2 * time.Second},
}

// relIsolate cuts the node's port off from every other host in both
// directions (Sentinels, replicas and masters elsewhere), leaving the
// host's other ports and the test process (the writers) alone.
func relIsolate(n *relNode) {
	h := n.host
	others := h.lab.prefix + "2-" + h.lab.prefix + "254"
	p := strconv.Itoa(n.Port)
	for _, dir := range []string{"--dport", "--sport"} {
		h.dropIn("-m", "iprange", "--src-range", others, "-p", "tcp", dir, p)
		h.dropOut("-m", "iprange", "--dst-range", others, "-p", "tcp", dir, p)
	}
}

// relRoleNode returns g's node that holds role now: the master, or the
// first replica in host order.
func relRoleNode(t *testing.T, g *relGroup, role string) *relNode {
	for _, n := range g.nodes {
		if r, _ := relRole(t, n.Addr()); (role == "master") == (r == "master") && r != "" {
			return n
		}
	}
	return nil
}

// TestRelLossSchedule applies one fixed schedule of faults to a data set
// without a guard ("mymaster") and one with min-replicas-to-write 1 /
// min-replicas-max-lag 2 ("guarded"), each fault to both at the same
// moment, on three namespaced hosts with a go-sentinel each and a writer
// per data set on h1's side. After each step both must converge. At the
// end every lost write is classified (relLedger.classify) and the tables
// printed: no write may be lost because a replica with less data was
// promoted (class b) or for no fault (class d), and a guarded master
// cut off may acknowledge writes that are lost only up to relGuardBy
// after the cut. Each cut of a master is printed: the writes lost, when
// the guard bit and when the writer moved to the new master. The same schedule then runs on a fleet of
// redis-sentinels, whose tables are printed for comparison only.
// REL_LOSS_ROUNDS repeats the schedule (1 by default).
func TestRelLossSchedule(t *testing.T) {
	rounds := 1
	if v, err := strconv.Atoi(os.Getenv("REL_LOSS_ROUNDS")); err == nil && v > 0 {
		rounds = v
	} else if os.Getenv("REL_SOAK") == "" && os.Getenv("REL_LOSS_ROUNDS") == "" {
		t.Skip("the fixed loss schedule runs with the soak: make soak (REL_LOSS_ROUNDS=N)")
	}
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) { relLossScheduleRun(t, kind, rounds) })
	}
}

// relLossScheduleRun runs the fixed schedule rounds times on a fleet
// whose three Sentinels are of kind.
func relLossScheduleRun(t *testing.T, kind daemonKind, rounds int) {
	groups := []*relGroup{{Name: "mymaster", Port: 6379}, {Name: "guarded", Port: 6380, Extra: relGuard}}
	f := newRelFleet(t, 3, relFleetOpts{Groups: groups, DownAfter: time.Second, FailoverTimeout: 5 * time.Second,
		Kinds: []daemonKind{kind, kind, kind}})
	if dir := os.Getenv("REL_ARTIFACTS"); dir != "" {
		t.Cleanup(func() { relSaveLogs(t, f, filepath.Join(dir, "loss-"+string(kind))) })
	}
	began := time.Now()
	writers := map[*relGroup]*relWriter{}
	ledgers := map[*relGroup]*relLedger{}
	for _, g := range f.groups {
		w, _ := startRelWriter(t, "loss-"+g.Name, relFollowH1(f, g))
		writers[g], ledgers[g] = w, newRelLedger(t, g, w)
	}
	waitFor(t, 10*time.Second, "both writers to write", func() bool {
		for _, w := range writers {
			if w.acks() < 50 {
				return false
			}
		}
		return true
	})
	for round := 0; round < rounds; round++ {
		for _, st := range relLossSchedule {
			var undo []func()
			var names []string
			for _, g := range f.groups {
				rec := relFaultRec{kind: st.kind, label: st.label}
				var n *relNode
				if st.role != "" {
					if n = relRoleNode(t, g, st.role); n == nil {
						t.Fatalf("%s: no %s in %s: %s", st.label, st.role, g.Name, f.topology(g))
					}
					rec.nodes = []string{n.Addr()}
					rec.name = st.label + " " + n.String()
				} else {
					rec.name = st.label
				}
				end := ledgers[g].begin(rec)
				switch st.kind {
				case relFaultKill:
					n.kill()
					undo = append(undo, n.restart)
				case relFaultStop:
					relStop(n.p)
					undo = append(undo, func() { relCont(n.p) })
				case relFaultIsolate:
					relIsolate(n)
					undo = append(undo, n.host.heal)
				case relFaultSentinel:
					if g == f.groups[0] {
						s := f.sentinels[0]
						relStop(s.p)
						undo = append(undo, func() { relCont(s.p) })
					}
				}
				names = append(names, rec.name)
				undo = append(undo, end)
			}
			t.Logf("%8s round %d: %s for %v", time.Since(began).Round(time.Second), round+1, strings.Join(names, " + "), st.hold)
			time.Sleep(st.hold)
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
			for _, g := range f.groups {
				f.waitConverged(g, 2*time.Minute)
			}
			time.Sleep(3 * time.Second) // the writers find the master; the replicas catch up
		}
	}
	total := map[string]int{}
	for _, g := range f.groups {
		final := f.waitConverged(g, 30*time.Second)
		lost, acked := writers[g].lost(t, final)
		ledgers[g].finish()
		losses := ledgers[g].classify(lost)
		total[g.Name] = len(lost)
		guard := "no guard"
		if g.Extra != nil {
			guard = fmt.Sprintf("min-replicas-to-write 1, max-lag %d", relGuardLag)
		}
		t.Logf("LOSS SCHEDULE %s: %s (%s), %d rounds: %d writes acknowledged, %d lost (%.3f%%), refused %v; by class and fault:%s",
			kind, g.Name, guard, rounds, acked, len(lost), 100*float64(len(lost))/float64(max(acked, 1)), writers[g].refusals(), relLossTable(losses))
		relLogTraces(t, g.Name, losses)
		for _, c := range relCuts(ledgers[g], writers[g], losses) {
			t.Logf("CUT %s: %s: %s", kind, g.Name, c)
			if g.Extra != nil && c.last > relGuardBy && kind == goSentinel {
				t.Errorf("%s: the cut-off master acknowledged a write lost %v after the cut, past the guard's bound %v", g.Name, c.last, relGuardBy)
			}
		}
		if kind != goSentinel {
			continue
		}
		if n := relLossCount(losses, relLossStale); n > 0 {
			t.Errorf("%s: %d writes lost because a replica with less data was promoted (class b)", g.Name, n)
		}
		if n := relLossCount(losses, relLossOther); n > 0 {
			t.Errorf("%s: %d lost writes no fault explains (class d)", g.Name, n)
		}
	}
	t.Logf("LOSS SCHEDULE %s: lost without a guard %d, with the guard %d", kind, total["mymaster"], total["guarded"])
}

// relGuardBy bounds how long after its cut a guarded master still
// acknowledges writes: min-replicas-max-lag, plus the replicas'
// once-a-second REPLCONF ACK and the master's once-a-second check, plus
// the second-granularity clock the lag is measured with.
const relGuardBy = (relGuardLag + 4) * time.Second
