package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// scaleResult is what one scale run measured.
type scaleResult struct {
	discovery   time.Duration // Sentinels started → every Sentinel knows every replica and peer
	cpu         []float64     // idle CPU per Sentinel, percent of one core
	rss         []int64       // RSS per Sentinel after the idle window, bytes
	fds         []int         // descriptors per Sentinel after the idle window
	kills       int           // K
	fail        time.Duration // kill → +switch-master for each of the K on every Sentinel; -1: not within the wait
	switched    int           // (Sentinel, master) pairs that switched, of 3·K
	tilts       int           // +tilt events during the run
	falseSDown  int           // +sdown of masters that were not killed
	falseSwitch int           // +switch-master of masters that were not killed
	driverCPU   float64       // CPU of the benchmark process (and fake instances) in the idle window
	burstCPU    []float64     // CPU per Sentinel from the kill until every pair switched (or the wait ended), percent of one core
	instances   int           // masters and replicas monitored
	sys         *syscallCount // the first Sentinel's system calls per second in the idle window; nil without perf
}

// scaleRun starts a backend of n masters, 3 Sentinels of im, waits for
// discovery, measures the idle footprint, then kills k masters at once.
func scaleRun(im impl, n, k int, downAfter time.Duration) (res scaleResult, err error) {
	res.fail, res.kills = -1, k
	if err := checkFileLimit(n, *replicas, linksPerInstance(im)); err != nil {
		return res, err
	}
	var be backend
	switch {
	case n <= *realMax:
		be, err = newRealBackend(n, *replicas)
	case n <= shardMasters:
		be, err = newFakeBackend(n, *replicas)
	default:
		be, err = newShardedBackend(n, *replicas, shardMasters)
	}
	if err != nil {
		return res, err
	}
	defer be.close()
	dir, err := os.MkdirTemp("", "bench-scale-")
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	ports, err := freePorts(4)
	if err != nil {
		return res, err
	}
	sentPorts, pprofPort := ports[:3], ports[3]
	masters := be.masters()
	fc := fleetConf{masters: masters, quorum: 2, downAfter: downAfter, failover: 60 * time.Second}
	pprofAddr := ""
	if *pprofDir != "" && im.name == "go-sentinel" {
		pprofAddr = "127.0.0.1:" + strconv.Itoa(pprofPort)
	}
	var sents []*sentinelProc
	defer func() {
		for _, s := range sents {
			s.stop()
		}
	}()
	t0 := time.Now()
	for k, p := range sentPorts {
		sd := filepath.Join(dir, "s"+strconv.Itoa(k))
		if err := os.Mkdir(sd, 0o755); err != nil {
			return res, err
		}
		pa := ""
		if k == 0 {
			pa = pprofAddr
		}
		s, err := startSentinel(im, sd, p, fc, pa)
		if err != nil {
			return res, err
		}
		sents = append(sents, s)
	}
	for _, p := range sentPorts {
		// A Sentinel busy rewriting its config for every discovered
		// instance may not answer for a long while at 1,000 masters.
		if err := waitPing(p, *discWait); err != nil {
			return res, fmt.Errorf("sentinel %d: %w", p, err)
		}
	}
	discProf := make(chan struct{})
	if pprofAddr != "" {
		// The first seconds after start, when discovery happens.
		go func() {
			defer close(discProf)
			saveProfile(pprofAddr, "profile?seconds=10", fmt.Sprintf("n%d-k%d-discovery-cpu.pprof", n, k))
		}()
	} else {
		close(discProf)
	}
	evs, err := subscribeEvents(sentPorts, "+switch-master", "+tilt", "+sdown")
	if err != nil {
		return res, err
	}
	defer evs.close()
	res.discovery = -1
	if tDisc, err := waitDiscovery(sentPorts, masters, *replicas, 200*time.Millisecond, *discWait); err != nil {
		// Measure the rest anyway: the footprint while discovering is a
		// figure too.
		fmt.Fprintf(os.Stderr, "  %s n=%d: %v\n", im.name, n, err)
	} else {
		res.discovery = tDisc.Sub(t0)
		fmt.Fprintf(os.Stderr, "  %s n=%d: discovery %.1f s\n", im.name, n, res.discovery.Seconds())
	}

	time.Sleep(5 * time.Second)
	<-discProf
	self, err := sampleFixtureCPU(be)
	if err != nil {
		return res, err
	}
	var before []cpuSample
	for _, s := range sents {
		c, err := sampleCPU(s.pid())
		if err != nil {
			return res, err
		}
		before = append(before, c)
	}
	profDone := make(chan struct{})
	if pprofAddr != "" {
		go func() {
			defer close(profDone)
			saveProfile(pprofAddr, fmt.Sprintf("profile?seconds=%d", int(idle.Seconds())), fmt.Sprintf("n%d-k%d-cpu.pprof", n, k))
		}()
	} else {
		close(profDone)
	}
	sysDone := make(chan struct{})
	go func() {
		defer close(sysDone)
		if c, ok := countSyscalls(sents[0].pid(), *idle-2*time.Second); ok {
			res.sys = &c
		}
	}()
	time.Sleep(*idle)
	<-profDone
	<-sysDone
	res.instances = n * (1 + *replicas)
	for k, s := range sents {
		c, err := sampleCPU(s.pid())
		if err != nil {
			return res, err
		}
		res.cpu = append(res.cpu, cpuPercent(before[k], c))
		r, err := rssBytes(s.pid())
		if err != nil {
			return res, err
		}
		res.rss = append(res.rss, r)
		if f, err := openFiles(s.pid()); err == nil {
			res.fds = append(res.fds, f)
		}
	}
	if pprofAddr != "" {
		saveProfile(pprofAddr, "heap", fmt.Sprintf("n%d-k%d-heap.pprof", n, k))
		saveProfile(pprofAddr, "goroutine?debug=1", fmt.Sprintf("n%d-k%d-goroutines.txt", n, k))
		saveProfile(pprofAddr, "heap?debug=1", fmt.Sprintf("n%d-k%d-heap.txt", n, k))
	}
	if selfEnd, err := sampleFixtureCPU(be); err == nil {
		res.driverCPU = cpuPercent(self, selfEnd)
	}
	fmt.Fprintf(os.Stderr, "  %s n=%d: idle CPU %.2f %% RSS %.1f MB, %v descriptors (this process, with the %s instances: %.1f %%)\n",
		im.name, n, mean(res.cpu), float64(meanInt(res.rss))/1e6, res.fds, be.kind(), res.driverCPU)

	killed := make(map[string]bool, k)
	for _, m := range masters[:k] {
		killed[m.name] = true
	}
	tKill := time.Now()
	burstProf := make(chan struct{})
	if pprofAddr != "" {
		// The burst's profile: what the first Sentinel's loop does while
		// the k deaths are detected, agreed on, elected and failed over
		// (the run waits for it before its Sentinels end).
		go func() {
			defer close(burstProf)
			secs := int((downAfter + 10*time.Second).Seconds())
			saveProfile(pprofAddr, fmt.Sprintf("profile?seconds=%d", secs), fmt.Sprintf("n%d-k%d-burst-cpu.pprof", n, k))
		}()
	} else {
		close(burstProf)
	}
	var burstStart []cpuSample
	for _, s := range sents {
		c, err := sampleCPU(s.pid())
		if err != nil {
			return res, err
		}
		burstStart = append(burstStart, c)
	}
	be.kill(k)
	done := waitUntil(downAfter+*failWait, func() bool {
		return countSwitched(evs.snapshot(), len(sentPorts), tKill, killed) == len(sentPorts)*k
	})
	for i, s := range sents {
		if c, err := sampleCPU(s.pid()); err == nil {
			res.burstCPU = append(res.burstCPU, cpuPercent(burstStart[i], c))
		}
	}
	evAll := evs.snapshot()
	res.switched = countSwitched(evAll, len(sentPorts), tKill, killed)
	if done {
		var last time.Time
		for _, m := range switchTimes(evAll, len(sentPorts), tKill) {
			for name, e := range m {
				if killed[name] && e.at.After(last) {
					last = e.at
				}
			}
		}
		res.fail = last.Sub(tKill)
	}
	for _, e := range evAll {
		name := eventMaster(e)
		switch {
		case e.channel == "+tilt":
			res.tilts++
			fmt.Fprintf(os.Stderr, "  +tilt on Sentinel %d, %.2f s after the kill\n", e.sentinel, e.at.Sub(tKill).Seconds())
		case e.channel == "+sdown" && name != "" && !killed[name]:
			res.falseSDown++
			fmt.Fprintf(os.Stderr, "  false +sdown on Sentinel %d, %.2f s after the kill: %s\n", e.sentinel, e.at.Sub(tKill).Seconds(), e.payload)
		case e.channel == "+switch-master" && !killed[strings.Fields(e.payload)[0]]:
			res.falseSwitch++
		}
	}
	fmt.Fprintf(os.Stderr, "  %s n=%d k=%d: failed over %d/%d in %v (pairs switched after the kill: %s), tilts %d\n",
		im.name, n, k, res.switched, 3*k, res.fail, switchPercentiles(evAll, len(sentPorts), tKill, killed), res.tilts)
	<-burstProf
	return res, nil
}

// eventMaster is the master name of a "+sdown master <name> ..." event,
// "" for other events.
func eventMaster(e event) string {
	f := strings.Fields(e.payload)
	if len(f) >= 2 && f[0] == "master" {
		return f[1]
	}
	return ""
}

// countSwitched counts (Sentinel, killed master) pairs with a +switch-master.
func countSwitched(evs []event, nSentinels int, since time.Time, killed map[string]bool) int {
	n := 0
	for _, m := range switchTimes(evs, nSentinels, since) {
		for name := range m {
			if killed[name] {
				n++
			}
		}
	}
	return n
}

// saveProfile fetches /debug/pprof/<what> from addr into -pprof-dir.
func saveProfile(addr, what, file string) {
	resp, err := http.Get("http://" + addr + "/debug/pprof/" + what)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pprof %s: %v\n", what, err)
		return
	}
	defer resp.Body.Close()
	if err := os.MkdirAll(*pprofDir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "pprof: %v\n", err)
		return
	}
	f, err := os.Create(filepath.Join(*pprofDir, file))
	if err != nil {
		fmt.Fprintf(os.Stderr, "pprof: %v\n", err)
		return
	}
	defer f.Close()
	_, _ = io.Copy(f, resp.Body)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func meanInt(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	var s int64
	for _, x := range xs {
		s += x
	}
	return s / int64(len(xs))
}

// runScale runs every (masters, kills) pair for each implementation,
// alternating, and prints one table per number of masters.
func runScale(out io.Writer, impls []impl, ns, ks []int, downAfter time.Duration) {
	for _, n := range ns {
		kinds := "redis-server processes"
		switch {
		case n > shardMasters:
			kinds = fmt.Sprintf("fake instances (bench/fakeredis, %d processes)", (n+shardMasters-1)/shardMasters)
		case n > *realMax:
			kinds = "fake instances (bench/fakeredis, one process)"
		}
		fmt.Fprintf(out, "## Scale: %d masters × %d replica(s) as %s, 3 Sentinels, quorum 2, down-after %d ms\n\n",
			n, *replicas, kinds, downAfter.Milliseconds())
		res := make(map[string][]scaleResult)
		var runKs []int
		for _, k := range ks {
			if k <= n {
				runKs = append(runKs, k)
			}
		}
		if len(runKs) == 0 {
			runKs = []int{n}
		}
		for t, k := range runKs {
			for j := range impls {
				im := impls[(j+t)%len(impls)]
				fmt.Fprintf(os.Stderr, "scale %s n=%d k=%d\n", im.name, n, k)
				r, err := scaleRun(im, n, k, downAfter)
				if err != nil {
					fmt.Fprintf(os.Stderr, "  %s n=%d k=%d: %v\n", im.name, n, k, err)
					continue
				}
				res[im.name] = append(res[im.name], r)
			}
		}
		printScale(out, impls, n, runKs, downAfter, res)
	}
}

func printScale(out io.Writer, impls []impl, n int, ks []int, downAfter time.Duration, res map[string][]scaleResult) {
	tb := &table{head: tableHead(impls)}
	// series returns, per implementation, f over every run of it.
	series := func(f func(scaleResult) []float64) []summary {
		var sums []summary
		for _, im := range impls {
			var xs []float64
			for _, r := range res[im.name] {
				xs = append(xs, f(r)...)
			}
			sums = append(sums, summarize(xs))
		}
		return sums
	}
	relative := func(sums []summary, factor float64) string {
		if !hasRedis || sums[1].n == 0 {
			return "no data"
		}
		if sums[0].n == 0 {
			return "no" // go-sentinel did not get there at all
		}
		if sums[0].med <= factor*sums[1].med {
			return "yes"
		}
		return "no"
	}
	row := func(label, goal string, sums []summary, format func(summary) string, met string) {
		cells := []string{label, goal}
		for _, s := range sums {
			cells = append(cells, format(s))
		}
		tb.add(append(cells, ratioCell(sums), met)...)
	}
	goalAt100 := func(goal string) string {
		if n == 100 {
			return goal
		}
		return ""
	}
	cpu := series(func(r scaleResult) []float64 { return r.cpu })
	row("idle CPU per Sentinel (% of a core)", goalAt100("≤ redis-sentinel's"), cpu,
		func(s summary) string { return fmtNum(s, 2, " %") }, pick(n == 100, relative(cpu, 1)))
	perInst := series(func(r scaleResult) []float64 {
		var xs []float64
		for _, c := range r.cpu {
			xs = append(xs, c*1e4/float64(max(r.instances, 1)))
		}
		return xs
	})
	row("  idle CPU per instance per second (µs)", "", perInst, func(s summary) string { return fmtNum(s, 1, " µs") }, "")
	sysRow := func(label string, f func(syscallCount) float64) {
		row(label, "", series(func(r scaleResult) []float64 {
			if r.sys == nil {
				return nil
			}
			return []float64{f(*r.sys) / float64(max(r.instances, 1))}
		}), func(s summary) string { return fmtNum(s, 2, "") }, "")
	}
	sysRow("  system calls per instance per second (perf, Sentinel 1)", func(c syscallCount) float64 { return c.total })
	sysRow("  of them writes (write, writev, sendto, sendmsg)", func(c syscallCount) float64 { return c.writes })
	sysRow("  of them reads (read, readv, recvfrom, recvmsg)", func(c syscallCount) float64 { return c.reads })
	rss := series(func(r scaleResult) []float64 {
		var xs []float64
		for _, b := range r.rss {
			xs = append(xs, float64(b)/1e6)
		}
		return xs
	})
	row("RSS per Sentinel", goalAt100("≤ 1.5× redis-sentinel's"), rss,
		func(s summary) string { return fmtNum(s, 1, " MB") }, pick(n == 100, relative(rss, 1.5)))
	fds := series(func(r scaleResult) []float64 {
		var xs []float64
		for _, f := range r.fds {
			xs = append(xs, float64(f))
		}
		return xs
	})
	row("open descriptors per Sentinel", "", fds, func(s summary) string { return fmtNum(s, 0, "") }, "")
	disc := series(func(r scaleResult) []float64 { return []float64{seconds(r.discovery)} })
	row("start → every Sentinel knows every replica and peer", goalAt100("≤ redis-sentinel's"), disc,
		func(s summary) string {
			if s.n == 0 {
				return fmt.Sprintf("> %.0f s", discWait.Seconds())
			}
			return fmtSec(s)
		}, pick(n == 100, relative(disc, 1)))
	for _, k := range slices.Compact(slices.Sorted(slices.Values(ks))) {
		// A K given more than once (-kills 1,1,1: rounds) is one row
		// over its runs.
		fail := series(func(r scaleResult) []float64 {
			if r.kills != k {
				return nil
			}
			return []float64{seconds(r.fail)}
		})
		goal, met := "", ""
		if n >= 1000 && k == 100 {
			limit := downAfter.Seconds() + 5
			goal = fmt.Sprintf("≤ down-after + 5 s = %.0f s", limit)
			met = verdict(fail[0], limit)
		}
		row(fmt.Sprintf("%d simultaneous master deaths → `+switch-master` for each on every Sentinel", k), goal, fail, fmtSec, met)
		done := series(func(r scaleResult) []float64 {
			if r.kills != k {
				return nil
			}
			return []float64{float64(r.switched)}
		})
		row(fmt.Sprintf("  switched (Sentinel, master) pairs of %d", 3*k), "", done, func(s summary) string { return fmtNum(s, 0, "") }, "")
		burst := series(func(r scaleResult) []float64 {
			if r.kills != k {
				return nil
			}
			return r.burstCPU
		})
		row("  CPU per Sentinel from the kill to the last switch (% of a core)", "", burst,
			func(s summary) string { return fmtNum(s, 1, " %") }, "")
	}
	if n > *realMax {
		drv := series(func(r scaleResult) []float64 { return []float64{r.driverCPU} })
		row("(CPU of the benchmark process, fake instances included)", "", drv,
			func(s summary) string { return fmtNum(s, 1, " %") }, "")
	}
	tilts := series(func(r scaleResult) []float64 { return []float64{float64(r.tilts)} })
	row("`+tilt` events per run", pick(n >= 1000, "0"), tilts, func(s summary) string { return fmtNum(s, 0, "") },
		pick(n >= 1000, verdict(tilts[0], 0)))
	fs := series(func(r scaleResult) []float64 { return []float64{float64(r.falseSDown)} })
	row("`+sdown` of masters not killed, per run", "0", fs, func(s summary) string { return fmtNum(s, 0, "") }, verdict(fs[0], 0))
	fw := series(func(r scaleResult) []float64 { return []float64{float64(r.falseSwitch)} })
	row("failovers of masters not killed, per run", "0", fw, func(s summary) string { return fmtNum(s, 0, "") }, verdict(fw[0], 0))
	tb.print(out)
	if cost, err := syscallCost(); err == nil {
		fmt.Fprintf(out, "\nThe system-call floor on this machine: %.1f messages per instance per second (a PING and its reply, an INFO and its reply every 10 s, a hello published and two received every 2 s) at one call each of %.2f µs (a small loopback write and its read, measured now) = %.1f µs per instance per second, %.2f %% of a core for %d instances.\n",
			floorMessagesPerInstance, float64(cost.Nanoseconds())/1e3, floorMessagesPerInstance*float64(cost.Nanoseconds())/1e3,
			floorMessagesPerInstance*float64(cost.Nanoseconds())/1e3*float64(n*(1+*replicas))/1e4, n*(1+*replicas))
	}
}

// pick returns s when cond holds, "" otherwise.
func pick(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}
