package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// failoverResult is what one kill of a master measured; a negative duration
// was not reached.
type failoverResult struct {
	first     time.Duration // kill → first +switch-master
	every     time.Duration // kill → +switch-master on every Sentinel
	addrFirst time.Duration // kill → first GET-MASTER-ADDR-BY-NAME with the new address
	addrEvery time.Duration // kill → every Sentinel answers the new address
	gap       time.Duration // longest write gap of the FailoverClient
	phases    phaseTimes    // kill → each phase, first Sentinel
	leader    string        // the implementation of the Sentinel that led ("" unknown)
}

// failoverSentinels is how many Sentinels a failover trial runs.
const failoverSentinels = 3

// failoverTrial builds 1 master + 2 replicas (redis-server) and 3 Sentinels
// of im (for a mixed fleet, Sentinel k runs im.member(k)) with quorum 2,
// kills the master with SIGKILL and measures.
func failoverTrial(im impl, downAfter time.Duration) (res failoverResult, err error) {
	dir, err := os.MkdirTemp("", "bench-failover-")
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	ports, err := freePorts(3 + failoverSentinels)
	if err != nil {
		return res, err
	}
	redisPorts, sentPorts := ports[:3], ports[3:]
	servers, err := startDataNodes(dir, redisPorts)
	if err != nil {
		return res, err
	}
	defer func() {
		for _, s := range servers {
			s.kill()
		}
	}()
	const name = "mymaster"
	masters := []monitored{{name: name, port: redisPorts[0]}}
	fc := fleetConf{masters: masters, quorum: 2, downAfter: downAfter, failover: 10 * time.Second}
	var sents []*sentinelProc
	defer func() {
		for _, s := range sents {
			s.stop()
		}
	}()
	for k, p := range sentPorts {
		sd := filepath.Join(dir, "s"+strconv.Itoa(k))
		if err := os.Mkdir(sd, 0o755); err != nil {
			return res, err
		}
		s, err := startSentinel(im.member(k), sd, p, fc, "")
		if err != nil {
			return res, err
		}
		sents = append(sents, s)
	}
	for _, p := range sentPorts {
		if err := waitPing(p, 10*time.Second); err != nil {
			return res, fmt.Errorf("sentinel %d: %w", p, err)
		}
	}
	if _, err := waitDiscovery(sentPorts, masters, 2, 50*time.Millisecond, 60*time.Second); err != nil {
		return res, err
	}
	w := startWriter(name, sentPorts)
	defer w.stop()
	if !waitUntil(10*time.Second, func() bool { return !w.lastOK().IsZero() }) {
		return res, fmt.Errorf("the FailoverClient never wrote")
	}
	evs, err := subscribeEvents(sentPorts, append([]string{"+switch-master"}, phaseChannels...)...)
	if err != nil {
		return res, err
	}
	defer evs.close()
	time.Sleep(*settle)

	// One poller per Sentinel records when GET-MASTER-ADDR-BY-NAME first
	// answers another port than the old master's.
	addrAt := make([]time.Time, len(sentPorts))
	var mu sync.Mutex
	pollCtx, stopPoll := context.WithCancel(context.Background())
	var pollWG sync.WaitGroup
	defer func() { stopPoll(); pollWG.Wait() }()
	for k, p := range sentPorts {
		c := newClient(p)
		pollWG.Add(1)
		go func() {
			defer pollWG.Done()
			defer c.Close()
			for pollCtx.Err() == nil {
				v, err := c.Do(pollCtx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
				if err == nil && len(v) == 2 && v[1] != strconv.Itoa(redisPorts[0]) {
					mu.Lock()
					addrAt[k] = time.Now()
					mu.Unlock()
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}

	t0 := time.Now()
	servers[0].kill()
	ok := waitUntil(60*time.Second, func() bool {
		st := switchTimes(evs.snapshot(), len(sentPorts), t0)
		for _, m := range st {
			if _, ok := m[name]; !ok {
				return false
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, a := range addrAt {
			if a.IsZero() {
				return false
			}
		}
		return w.lastOK().After(t0.Add(downAfter))
	})
	time.Sleep(100 * time.Millisecond)
	res = failoverResult{first: -1, every: -1, addrFirst: -1, addrEvery: -1, gap: w.longestGap(t0)}
	snap := evs.snapshot()
	res.phases = failoverPhases(snap, name, t0)
	if res.phases.leader >= 0 {
		res.leader = im.member(res.phases.leader).name
	}
	st := switchTimes(snap, len(sentPorts), t0)
	switched := make([]time.Time, len(st))
	for k, m := range st {
		switched[k] = m[name].at // zero when it never came
	}
	res.first, res.every = spread(t0, switched)
	mu.Lock()
	res.addrFirst, res.addrEvery = spread(t0, addrAt)
	mu.Unlock()
	if !ok {
		return res, fmt.Errorf("failover not complete within 60 s: %+v", res)
	}
	return res, nil
}

// spread returns the time from t0 to the earliest and to the latest of ts;
// the latest is -1 when one of ts is zero (never happened), the earliest
// when all are.
func spread(t0 time.Time, ts []time.Time) (first, last time.Duration) {
	first, last = -1, 0
	for _, t := range ts {
		if t.IsZero() {
			last = -1
			continue
		}
		d := t.Sub(t0)
		if first < 0 || d < first {
			first = d
		}
		if last >= 0 && d > last {
			last = d
		}
	}
	return first, last
}

// runFailover alternates trials of each implementation (and of the mixed
// fleets -mixed asks for) and prints the medians.
func runFailover(out io.Writer, impls []impl, trials int, downAfter time.Duration) {
	impls = append(impls[:len(impls):len(impls)], mixedFleets(impls)...)
	fmt.Fprintf(out, "## Failover: 1 master + 2 replicas (redis-server), %d Sentinels, quorum 2, down-after %d ms, failover-timeout 10 s, SIGKILL of the master, %d trials each, A/B alternating\n\n",
		failoverSentinels, downAfter.Milliseconds(), trials)
	res := make(map[string][]failoverResult)
	for t := range trials {
		for k := range impls {
			im := impls[(k+t)%len(impls)] // who goes first alternates too
			r, err := failoverTrial(im, downAfter)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s trial %d: %v\n", im.name, t+1, err)
			}
			fmt.Fprintf(os.Stderr, "%s trial %d: first %v every %v addr %v/%v gap %v; %v; leader %q\n",
				im.name, t+1, r.first, r.every, r.addrFirst, r.addrEvery, r.gap, r.phases, r.leader)
			res[im.name] = append(res[im.name], r)
		}
	}
	col := func(name string, f func(failoverResult) time.Duration, minus time.Duration) summary {
		var xs []float64
		for _, r := range res[name] {
			d := f(r)
			if d < 0 {
				xs = append(xs, math.NaN())
				continue
			}
			xs = append(xs, seconds(d-minus))
		}
		return summarize(xs)
	}
	da := downAfter.Seconds()
	rows := []struct {
		label string
		f     func(failoverResult) time.Duration
		minus time.Duration
		goal  string
		limit float64 // go-sentinel's median must be ≤ limit; NaN: no goal
	}{
		{"kill → first `+switch-master`", func(r failoverResult) time.Duration { return r.first }, 0, "", math.NaN()},
		{"kill → `+switch-master` on every Sentinel", func(r failoverResult) time.Duration { return r.every }, 0, "", math.NaN()},
		{"same, beyond down-after", func(r failoverResult) time.Duration { return r.every }, downAfter, "≤ 0.25 s", 0.25},
		{"kill → GET-MASTER-ADDR-BY-NAME new address, first Sentinel", func(r failoverResult) time.Duration { return r.addrFirst }, 0, "", math.NaN()},
		{"kill → GET-MASTER-ADDR-BY-NAME new address, every Sentinel", func(r failoverResult) time.Duration { return r.addrEvery }, 0, "", math.NaN()},
		{"FailoverClient longest write gap", func(r failoverResult) time.Duration { return r.gap }, 0, fmt.Sprintf("≤ down-after + 0.4 s = %.1f s", da+0.4), da + 0.4},
	}
	tb := &table{head: tableHead(impls)}
	for _, row := range rows {
		cells := []string{row.label, row.goal}
		var sums []summary
		for _, im := range impls {
			s := col(im.name, row.f, row.minus)
			sums = append(sums, s)
			cells = append(cells, fmtSec(s))
		}
		cells = append(cells, ratioCell(sums), verdict(sums[0], row.limit))
		tb.add(cells...)
	}
	tb.print(out)
	printPhases(out, impls, res)
}

// printPhases prints the median time from the kill to each phase of the
// failover (the first Sentinel that reached it) and, for the mixed fleets,
// which implementation led.
func printPhases(out io.Writer, impls []impl, res map[string][]failoverResult) {
	fmt.Fprintf(out, "Failover phases, from the kill (first Sentinel to publish each event; median, min–max):\n\n")
	rows := []struct {
		label string
		f     func(failoverResult) time.Duration
	}{
		{"`+sdown` of the master", func(r failoverResult) time.Duration { return r.phases.sdown }},
		{"`+odown`", func(r failoverResult) time.Duration { return r.phases.odown }},
		{"`+try-failover`", func(r failoverResult) time.Duration { return r.phases.start }},
		{"`+elected-leader`", func(r failoverResult) time.Duration { return r.phases.elected }},
		{"`+promoted-slave`", func(r failoverResult) time.Duration { return r.phases.promoted }},
		{"GET-MASTER-ADDR-BY-NAME new address, every Sentinel", func(r failoverResult) time.Duration { return r.addrEvery }},
		{"FailoverClient longest write gap", func(r failoverResult) time.Duration { return r.gap }},
	}
	head := []string{"phase"}
	for _, im := range impls {
		head = append(head, im.name)
	}
	tb := &table{head: head}
	for _, row := range rows {
		cells := []string{row.label}
		for _, im := range impls {
			var xs []float64
			for _, r := range res[im.name] {
				xs = append(xs, seconds(row.f(r)))
			}
			cells = append(cells, fmtSec(summarize(xs)))
		}
		tb.add(cells...)
	}
	cells := []string{"led by a redis-sentinel (trials)"}
	for _, im := range impls {
		n := 0
		for _, r := range res[im.name] {
			if r.leader == "redis-sentinel" {
				n++
			}
		}
		cells = append(cells, fmt.Sprintf("%d of %d", n, len(res[im.name])))
	}
	tb.add(cells...)
	tb.print(out)
}

// mixedFleets are the mixed fleets -mixed asks for (each count of
// redis-sentinels among the failoverSentinels), given go-sentinel and
// redis-sentinel as impls[0] and impls[1].
func mixedFleets(impls []impl) []impl {
	if *mixedFlag == "" {
		return nil
	}
	if !hasRedis {
		fmt.Fprintln(os.Stderr, "bench: -mixed needs redis-sentinel; no mixed fleet measured")
		return nil
	}
	var out []impl
	for _, n := range ints(*mixedFlag) {
		if n >= failoverSentinels {
			fmt.Fprintf(os.Stderr, "bench: -mixed %d: a mixed fleet of %d Sentinels has 1 to %d redis-sentinels\n", n, failoverSentinels, failoverSentinels-1)
			os.Exit(2)
		}
		out = append(out, mixedFleet(impls[0], impls[1], n))
	}
	return out
}

// tableHead is the header of a comparison table.
func tableHead(impls []impl) []string {
	h := []string{"figure", "goal"}
	for _, im := range impls {
		h = append(h, im.name)
	}
	return append(h, "ratio to redis-sentinel", "goal met")
}

// ratioCell is go-sentinel's median over redis-sentinel's, when both ran.
func ratioCell(sums []summary) string {
	if !hasRedis {
		return "n/a"
	}
	return ratio(sums[0], sums[1])
}

// verdict says whether go-sentinel's median is at most limit.
func verdict(s summary, limit float64) string {
	switch {
	case math.IsNaN(limit):
		return ""
	case s.n == 0:
		return "no data"
	case s.med <= limit:
		return "yes"
	default:
		return "no"
	}
}
