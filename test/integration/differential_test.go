package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/go-sentinel/go-sentinel/test/integration/diffcanon"
)

// diffScenario is one fault applied to both fleets at the same moment.
type diffScenario struct {
	name string
	// short scenarios also run in make test (the others in make
	// differential).
	short bool
	opt   diffOptions
	// run applies the scenario's steps to every fleet and waits for the
	// conditions between steps; it returns false when a step failed
	// (recorded with fail; the recordings are still compared).
	run func(d *diffRun) bool
	// settled reports whether a fleet reached the scenario's end state;
	// the quiet period starts once every fleet has.
	settled func(f *diffFleet) bool
}

// diffRun is one attempt of a scenario in progress on its fleets.
type diffRun struct {
	t      *testing.T
	fleets []*diffFleet
	errs   []string // what went wrong in this attempt
}

// fail records a problem of this attempt (reported if it is the last).
func (d *diffRun) fail(format string, args ...any) {
	d.errs = append(d.errs, fmt.Sprintf(format, args...))
}

// each applies step to every fleet, one right after the other.
func (d *diffRun) each(step func(f *diffFleet)) {
	for _, f := range d.fleets {
		step(f)
	}
}

// waitAll polls cond on every fleet until it holds on all of them; on
// timeout it fails the test naming the fleets that did not get there.
func (d *diffRun) waitAll(timeout time.Duration, what string, cond func(f *diffFleet) bool) bool {
	deadline := time.Now().Add(timeout)
	done := make([]bool, len(d.fleets))
	for {
		all := true
		for i, f := range d.fleets {
			if !done[i] {
				done[i] = cond(f)
			}
			all = all && done[i]
		}
		if all {
			return true
		}
		if time.Now().After(deadline) {
			var late []string
			for i, f := range d.fleets {
				if !done[i] {
					late = append(late, f.String())
				}
			}
			d.fail("timed out after %v waiting for %s on %s", timeout, what, strings.Join(late, ", "))
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// diffQuiet is how long every fleet must publish nothing before a
// scenario's recordings are taken: longer than the hello period (2 s),
// so an event caused by the last hello or INFO of the scenario is in.
const diffQuiet = 3 * time.Second

// failedOver is the end state of a failover caused by a dead master:
// every Sentinel switched to the promoted replica, none is still failing
// over, and every Sentinel marked the old master, now a replica, down.
func failedOver(f *diffFleet) bool {
	return f.promoted() != nil && f.allHave("+switch-master", "", "") &&
		f.allHave("+sdown", "slave", "m") && f.failoverIdle()
}

// oldMasterConverted is the end state after the old master answers again
// after a failover: every Sentinel saw it answer and then report the
// replica role (after one of them sent +convert-to-slave), or, where the
// leader demoted it before the switch (go-sentinel, docs/compatibility.md
// hazard (c)), it replicates from the promoted one.
func oldMasterConverted(f *diffFleet) bool {
	return f.promoted() != nil && f.failoverIdle() && f.anyHas("+convert-to-slave", "slave", "m") &&
		(f.allHave("+role-change", "slave", "m") || f.oldMasterFollows())
}

// oldMasterFollows reports whether the old master reports the replica
// role with the promoted instance as its master.
func (f *diffFleet) oldMasterFollows() bool {
	p := f.promoted()
	if p == nil {
		return false
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", f.master.Port), DialTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	info, err := c.Info(context.Background(), "replication").Result()
	return err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, fmt.Sprintf("master_port:%d\r\n", p.Port))
}

var diffScenarios = []diffScenario{
	{
		name:  "kill-master",
		short: true,
		run: func(d *diffRun) bool {
			d.each(func(f *diffFleet) { killProc(f.master) })
			return true
		},
		settled: failedOver,
	},
	{
		name: "kill-replica",
		opt:  diffOptions{replicaLabels: []string{"r-killed"}},
		run: func(d *diffRun) bool {
			d.each(func(f *diffFleet) { killProc(f.replicas[0]) })
			if !d.waitAll(20*time.Second, "+sdown of the killed replica on every Sentinel", func(f *diffFleet) bool {
				return f.allHave("+sdown", "slave", "r-killed")
			}) {
				return false
			}
			d.each(func(f *diffFleet) { f.replicas[0] = f.restartRedis(f.replicas[0]) })
			return true
		},
		// The restarted replica answers (-sdown) and its next INFO (every
		// 10 s) shows a new run id (+reboot).
		settled: func(f *diffFleet) bool {
			return f.allHave("-sdown", "slave", "r-killed") && f.allHave("+reboot", "slave", "r-killed")
		},
	},
	{
		// SIGSTOP keeps the master's socket open with no replies. It is
		// continued once the failover is over and every Sentinel marked
		// the stopped old master down as a replica (at least 2× down-after
		// later): continuing it at a fixed time would race the failover in
		// redis-sentinel itself (failed over or not, converted or not).
		name: "sigstop-master",
		run: func(d *diffRun) bool {
			stopped := time.Now()
			d.each(func(f *diffFleet) { f.master.signal(syscall.SIGSTOP) })
			if !d.waitAll(40*time.Second, "the failover to end and the stopped master to be down as a replica", failedOver) {
				return false
			}
			for time.Since(stopped) < 2*diffDownAfter {
				time.Sleep(50 * time.Millisecond)
			}
			d.each(func(f *diffFleet) { f.master.signal(syscall.SIGCONT) })
			return true
		},
		settled: oldMasterConverted,
	},
	{
		// A Sentinel stopped with SIGTERM is started again on its
		// rewritten config once both others marked it down; the others
		// see it answer again (-sdown).
		name:  "restart-sentinel",
		short: true,
		run: func(d *diffRun) bool {
			d.each(func(f *diffFleet) {
				s := f.sentinels[0]
				f.labels[diffAddr(s.port)] = "s-restarted"
				s.rec.mark("stop")
				s.rec.close()
				s.proc.signal(syscall.SIGTERM)
			})
			for _, f := range d.fleets {
				if code := f.sentinels[0].proc.waitExit(20 * time.Second); code != 0 {
					d.fail("%s: sentinel exit code %d", f, code)
				}
			}
			if !d.waitAll(20*time.Second, "+sdown of the stopped Sentinel on the others", func(f *diffFleet) bool {
				return f.allHave("+sdown", "sentinel", "s-restarted", 1, 2)
			}) {
				return false
			}
			d.each(func(f *diffFleet) {
				s := f.sentinels[0]
				f.startSentinel(s)
				s.rec.mark("start")
				s.rec.subscribe(f.t, s.port)
			})
			return true
		},
		settled: func(f *diffFleet) bool {
			return f.allHave("-sdown", "sentinel", "s-restarted", 1, 2) && f.discovered()
		},
	},
	{
		// SENTINEL FAILOVER on one Sentinel of each fleet: the old master
		// is alive, so after the switch it reports the master role until
		// a Sentinel converts it (+convert-to-slave, 8 s later).
		name: "sentinel-failover",
		run: func(d *diffRun) bool {
			ok := true
			d.each(func(f *diffFleet) {
				if _, err := diffDo(f.sentinels[0].port, "SENTINEL", "FAILOVER", "mymaster"); err != nil {
					d.fail("%s: SENTINEL FAILOVER: %v", f, err)
					ok = false
				}
			})
			return ok
		},
		settled: oldMasterConverted,
	},
	{
		// SENTINEL REMOVE then MONITOR on one Sentinel: it finds the
		// replicas (INFO) and the other Sentinels (hellos) again; then
		// SET gives the master the scenario's timings and scripts back
		// (deny-scripts-reconfig no). The SETs wait for the discovery so
		// that their +set events do not race the +slave and +sentinel.
		name: "remove-monitor",
		run: func(d *diffRun) bool {
			do := func(f *diffFleet, cmd ...any) bool {
				if _, err := diffDo(f.sentinels[0].port, cmd...); err != nil {
					d.fail("%s: %v: %v", f, cmd, err)
					return false
				}
				return true
			}
			ok := true
			d.each(func(f *diffFleet) {
				ok = do(f, "SENTINEL", "REMOVE", "mymaster") &&
					do(f, "SENTINEL", "MONITOR", "mymaster", "127.0.0.1", f.master.Port, diffQuorum) && ok
			})
			if !ok || !d.waitAll(20*time.Second, "the re-monitoring Sentinel to find everything again", (*diffFleet).discovered) {
				return false
			}
			d.each(func(f *diffFleet) {
				dir := f.sentinels[0].dir
				ok = do(f, "SENTINEL", "SET", "mymaster", "down-after-milliseconds", diffDownAfter.Milliseconds(),
					"failover-timeout", diffFailoverTimeout.Milliseconds()) &&
					do(f, "SENTINEL", "SET", "mymaster", "notification-script", filepath.Join(dir, "notify.sh"),
						"client-reconfig-script", filepath.Join(dir, "reconfig.sh")) && ok
			})
			return ok
		},
		settled: func(f *diffFleet) bool {
			return f.allHave("+set", "master", "m", 0) && f.discovered()
		},
	},
	{
		// A replica with replica-priority 0 is never promoted: the other
		// one is, and the priority-0 one is reconfigured to follow it.
		name: "replica-priority-0",
		opt: diffOptions{
			replicaArgs:   [][]string{nil, {"--replica-priority", "0"}},
			replicaLabels: []string{"r", "r-prio0"},
		},
		run: func(d *diffRun) bool {
			d.each(func(f *diffFleet) { killProc(f.master) })
			return true
		},
		settled: failedOver,
	},
	{
		// The master is killed and started again at once, well within
		// down-after, which is raised to 5 s for this scenario: with 1 s
		// and a PING every second, whether a restart of a few hundred
		// milliseconds crosses down-after depends on when the last PONG
		// came, in redis-sentinel itself. No Sentinel marks it down; each
		// sees the new run id in its next INFO (every 10 s): +reboot.
		name: "master-restart-within-down-after",
		opt:  diffOptions{sentinelConf: "sentinel down-after-milliseconds mymaster 5000\n"},
		run: func(d *diffRun) bool {
			d.each(func(f *diffFleet) { killProc(f.master) })
			d.each(func(f *diffFleet) { f.master = f.restartRedis(f.master) })
			return true
		},
		settled: func(f *diffFleet) bool { return f.allHave("+reboot", "master", "m") },
	},
	{
		// Both replicas have replica-priority 0: the dead master is
		// detected (+sdown, +odown on every Sentinel) and the elected
		// leader aborts (-failover-abort-no-good-slave). Detection with no
		// switch to cut it short.
		name: "no-promotable-replica",
		opt: diffOptions{
			replicaArgs:   [][]string{{"--replica-priority", "0"}, {"--replica-priority", "0"}},
			replicaLabels: []string{"r-prio0", "r-prio0"},
		},
		run: func(d *diffRun) bool {
			d.each(func(f *diffFleet) { killProc(f.master) })
			return true
		},
		settled: func(f *diffFleet) bool {
			return f.allHave("+odown", "master", "m") && f.anyHas("-failover-abort-no-good-slave", "master", "m") && f.failoverIdle()
		},
	},
}

// diffKinds is the kind of each fleet: redis-sentinel against go-sentinel,
// or, with DIFF_SELF=1, redis-sentinel against itself (the self-check
// that the canonical form absorbs redis-sentinel's own nondeterminism).
func diffKinds() [2]diffKind {
	if os.Getenv("DIFF_SELF") == "1" {
		return [2]diffKind{diffRedis, diffRedis}
	}
	return [2]diffKind{diffRedis, diffGo}
}

// TestDifferential runs the scenarios on a redis-sentinel fleet and a
// go-sentinel fleet at once and compares what every Sentinel published
// and which scripts it ran (see diffcanon). DIFF_SCENARIOS picks them:
// unset, the short ones (make test); "all" (make differential); or a
// comma-separated list of names. DIFF_SELF=1 runs redis-sentinel against
// itself; DIFF_DUMP=dir writes every recording there.
func TestDifferential(t *testing.T) {
	only := os.Getenv("DIFF_SCENARIOS")
	for _, sc := range diffScenarios {
		sc := sc
		switch {
		case only == "" && !sc.short:
			continue
		case only != "" && only != "all" && !strings.Contains(","+only+",", ","+sc.name+","):
			continue
		}
		t.Run(sc.name, func(t *testing.T) { runDiffScenario(t, sc) })
	}
}

// diffSnapshot is what one fleet did in a scenario, taken when it had
// settled and been quiet (see settle).
type diffSnapshot struct {
	recs    []diffcanon.Recording
	labels  diffcanon.Labels
	settled time.Duration // since recording started; 0 if it never did
}

// settle waits, fleet by fleet, for the scenario's end state and then for
// diffQuiet without any event (counted from the end state and from the
// last event) with no script pending, and takes that fleet's snapshot
// then. Each fleet stops being observed at its own quiet moment, so a
// slower fleet does not let a faster one run into periodic retries (a
// failover attempt every 2× failover-timeout) the other never reaches.
// A fleet that does not get there in time is snapshot at the deadline
// and the test fails.
func (d *diffRun) settle(sc diffScenario, ok bool) []diffSnapshot {
	snaps := make([]diffSnapshot, len(d.fleets))
	taken := make([]bool, len(d.fleets))
	settledAt := make([]time.Time, len(d.fleets))
	deadline := time.Now().Add(90 * time.Second)
	for ok {
		all := true
		for i, f := range d.fleets {
			if taken[i] {
				continue
			}
			all = false
			if settledAt[i].IsZero() {
				if !sc.settled(f) {
					continue
				}
				settledAt[i] = time.Now()
				snaps[i].settled = time.Since(f.t0)
			}
			if time.Since(settledAt[i]) > diffQuiet && time.Since(f.lastEvent()) > diffQuiet && f.scriptsIdle() {
				snaps[i].recs, snaps[i].labels, taken[i] = f.recordings(), f.finalLabels(), true
			}
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			for i, f := range d.fleets {
				if !taken[i] {
					d.fail("%s did not reach the end state of %s and stay quiet for %v in time", f, sc.name, diffQuiet)
				}
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i, f := range d.fleets {
		if !taken[i] {
			snaps[i].recs, snaps[i].labels = f.recordings(), f.finalLabels()
		}
	}
	return snaps
}

// diffAllowances reads the allowance table of docs/compatibility.md.
func diffAllowances(t *testing.T) []diffcanon.Allowance {
	t.Helper()
	doc, err := os.ReadFile("../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	allow, err := diffcanon.ParseAllowances(string(doc))
	if err != nil {
		t.Fatalf("docs/compatibility.md: %v", err)
	}
	return allow
}

// diffAttempts is how many times a scenario is run when the fleets
// differ while the machine stalled (see diffStall).
const diffAttempts = 3

// diffStall is the longest the test process may go without being
// scheduled (measured by diffWatchdog) for a run to count. Past it the
// Sentinels were starved too, on a 2-core machine shared by many jobs:
// peers marked each other down, a Sentinel entered TILT, a healthy new
// master looked dead. Such a run says nothing about either
// implementation, so a difference in it is run again rather than
// reported; a difference in a run without a stall always fails.
const diffStall = 400 * time.Millisecond

// diffWatchdog measures the longest gap between the ticks of a 50 ms
// ticker: how long this process went without running.
type diffWatchdog struct {
	stop chan struct{}
	done chan struct{}
	max  time.Duration
}

func startDiffWatchdog() *diffWatchdog {
	w := &diffWatchdog{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				now := time.Now()
				if gap := now.Sub(last) - 50*time.Millisecond; gap > w.max {
					w.max = gap
				}
				last = now
			}
		}
	}()
	return w
}

// Stop ends the watch and returns the longest gap seen.
func (w *diffWatchdog) Stop() time.Duration {
	close(w.stop)
	<-w.done
	return w.max
}

func runDiffScenario(t *testing.T, sc diffScenario) {
	drop := diffcanon.Dropper(diffAllowances(t), sc.name)
	for attempt := 1; ; attempt++ {
		began := time.Now()
		errs, rep, stall, again := runDiffAttempt(t, sc, drop)
		t.Logf("scenario %s attempt %d took %v; the test process stalled at most %v",
			sc.name, attempt, time.Since(began).Round(100*time.Millisecond), stall.Round(time.Millisecond))
		if len(errs) == 0 && rep == "" {
			return
		}
		if again != "" && attempt < diffAttempts {
			t.Logf("attempt %d of %s differs, but %s failed the healthy new master over again (hazard (b), docs/compatibility.md): running it again:\n%s\n%s",
				attempt, sc.name, again, strings.Join(errs, "\n"), rep)
			continue
		}
		if stall > diffStall && attempt < diffAttempts {
			t.Logf("attempt %d of %s differs, but the machine stalled for %v (over %v): running it again:\n%s\n%s",
				attempt, sc.name, stall.Round(time.Millisecond), diffStall, strings.Join(errs, "\n"), rep)
			continue
		}
		for _, e := range errs {
			t.Error(e)
		}
		if rep != "" {
			t.Errorf("%s: the fleets differ (not allowed in docs/compatibility.md; the test process stalled at most %v):\n%s",
				sc.name, stall.Round(time.Millisecond), rep)
		}
		return
	}
}

// runDiffAttempt runs the scenario once on fresh fleets, stops them, and
// returns the problems of the run, the comparison report ("" if equal)
// with the recordings, the longest stall of the test process, and the
// redis-sentinel that carried hazard (b) through to a second switch (""
// if none did).
func runDiffAttempt(t *testing.T, sc diffScenario, drop func(string) bool) ([]string, string, time.Duration, string) {
	kinds := diffKinds()
	d := &diffRun{t: t}
	defer func() {
		for _, f := range d.fleets {
			f.stop()
		}
	}()
	for i, k := range kinds {
		d.fleets = append(d.fleets, startDiffFleet(t, k, string(rune('A'+i)), sc.opt))
	}
	if !d.waitAll(30*time.Second, "discovery", (*diffFleet).discovered) {
		return d.errs, "", 0, ""
	}
	d.waitAll(30*time.Second, "the scripts of the start to finish", (*diffFleet).scriptsIdle)
	watch := startDiffWatchdog()
	t0 := time.Now()
	d.each(func(f *diffFleet) { f.record(t0) })
	ok := sc.run(d)
	snaps := d.settle(sc, ok)
	stall := watch.Stop()

	var sides []diffcanon.Side
	var raw strings.Builder
	again := ""
	for i, f := range d.fleets {
		side := diffcanon.Side{Name: f.String(), Facts: diffcanon.Facts(snaps[i].recs, snaps[i].labels, drop)}
		recs := append([]diffcanon.Recording(nil), snaps[i].recs...)
		for k := range recs {
			recs[k].Redis = f.kind == diffRedis
		}
		if s, ok := diffcanon.RedisSwitchedAgain(recs); ok {
			again = f.String() + " " + s
		}
		kept, n := diffcanon.DropRedisRefailovers(recs)
		if n > 0 {
			t.Logf("%s: %d events of redis-sentinel's refailover hazard (b) absorbed", f, n)
		}
		for k, r := range recs {
			side.Sentinels = append(side.Sentinels, diffcanon.Canonicalize(kept[k], snaps[i].labels, drop))
			for _, p := range diffcanon.CheckNotify(r) {
				d.fail("%s %s: %s", f, r.Sentinel, p)
			}
			fmt.Fprintf(&raw, "%s %s:\n", f, r.Sentinel)
			for _, e := range r.Events {
				fmt.Fprintf(&raw, "  %6.2fs %-40s %s\n", e.At.Seconds(), diffcanon.Parse(e, snaps[i].labels), e.Msg)
			}
			for _, l := range r.Notify {
				fmt.Fprintf(&raw, "  notify %s\n", l)
			}
			for _, l := range r.Reconfig {
				fmt.Fprintf(&raw, "  reconfig %s\n", l)
			}
		}
		sides = append(sides, side)
		t.Logf("%s: settled %.1fs after the fault; canonical:\n%s", f, snaps[i].settled.Seconds(), diffcanon.Format(side))
	}
	if dir := os.Getenv("DIFF_DUMP"); dir != "" {
		os.MkdirAll(dir, 0o755)
		name := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.txt", sc.name, kinds[1], time.Now().UnixNano()))
		os.WriteFile(name, []byte(fmt.Sprintf("stall %v\n", stall)+raw.String()+"\n"+diffcanon.Format(sides[0])+diffcanon.Format(sides[1])), 0o644)
	}
	rep := diffcanon.Compare(sides[0], sides[1])
	if rep != "" || len(d.errs) > 0 {
		rep += "\nrecorded:\n" + raw.String()
	}
	return d.errs, rep, stall, again
}
