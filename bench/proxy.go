package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// proxyRig is one run of the proxy benchmark: a master with two
// replicas, three go-sentinels (quorum 2) each with a master-following
// proxy, and an HAProxy configured the usual way in front of the three
// data nodes.
type proxyRig struct {
	dir     string
	servers []*redisServer // the master first
	// plain are the master (first) and replicas of "plain", a master the
	// same Sentinels watch without a proxy (the kill trials only).
	plain     []*redisServer
	sents     []*sentinelProc
	sentPorts []int
	proxies   []int
	haproxy   *exec.Cmd
	haPort    int

	// With extras (the throughput rig): a fourth Sentinel of the
	// -baseline binary with a proxy on basePort, and the -gnet-proxy
	// prototype on gnetPort, each 0 when not asked for.
	base     *sentinelProc
	basePort int
	gnet     *exec.Cmd
	gnetPort int
}

var (
	gnetBin   = flag.String("gnet-proxy", "", "proxy: a gnet prototype of the proxy (run as BIN -listen ADDR -target ADDR) measured beside it")
	pipeline  = flag.Int("pipeline", 16, "proxy: redis-benchmark -P of the pipelined runs (0: none)")
	pipeReqs  = flag.Int("pipeline-requests", 2000000, "proxy: redis-benchmark -n of the pipelined runs")
	oneReqs   = flag.Int("single-requests", 50000, "proxy: redis-benchmark -n of the runs with one client, the unloaded latency (0: none)")
	proxyOnly = flag.Bool("proxy-throughput-only", false, "proxy: skip the master-kill trials")
	killOnly  = flag.Bool("proxy-kill-only", false, "proxy: the master-kill trials alone")
)

// haproxyConf is HAProxy as the Helm charts and guides configure it in
// front of Redis: one backend of every data node, a TCP check that sends
// PING and INFO replication and expects role:master, every second.
const haproxyConf = `global
  maxconn 5000
defaults
  mode tcp
  timeout connect 1s
  timeout client 1h
  timeout server 1h
frontend redis
  bind 127.0.0.1:%d
  default_backend redis
backend redis
  option tcp-check
  tcp-check connect
  tcp-check send PING\r\n
  tcp-check expect string +PONG
  tcp-check send info\ replication\r\n
  tcp-check expect string role:master
  tcp-check send QUIT\r\n
  tcp-check expect string +OK
%s`

func startProxyRig(downAfter time.Duration, extras bool) (*proxyRig, error) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		return nil, fmt.Errorf("haproxy not installed (apt-get install haproxy; scripts/install-deps.sh does): %w", err)
	}
	dir, err := os.MkdirTemp("", "bench-proxy-")
	if err != nil {
		return nil, err
	}
	r := &proxyRig{dir: dir}
	ports, err := freePorts(3 + 3 + 3 + 1 + 3 + 3)
	if err != nil {
		r.close()
		return nil, err
	}
	plainPorts := ports[13:16]
	redisPorts := ports[:3]
	r.sentPorts, r.proxies, r.haPort = ports[3:6], ports[6:9], ports[9]
	baseSentPort := ports[10]
	if extras && *baseBin != "" {
		r.basePort = ports[11]
	}
	if extras && *gnetBin != "" {
		r.gnetPort = ports[12]
	}
	if r.servers, err = startDataNodes(dir, redisPorts); err != nil {
		r.close()
		return nil, err
	}
	masters := []monitored{{name: "mymaster", port: redisPorts[0]}}
	if !extras {
		// The kill trials compare a master without a proxy.
		if r.plain, err = startDataNodes(dir, plainPorts); err != nil {
			r.close()
			return nil, err
		}
		masters = append(masters, monitored{name: "plain", port: plainPorts[0]})
	}
	fc := fleetConf{masters: masters, quorum: 2, downAfter: downAfter, failover: 10 * time.Second,
		extra: func(k int) string { return fmt.Sprintf("sentinel proxy mymaster 127.0.0.1 %d\n", r.proxies[k]) }}
	for k, p := range r.sentPorts {
		sd := filepath.Join(dir, "s"+strconv.Itoa(k))
		if err := os.Mkdir(sd, 0o755); err != nil {
			r.close()
			return nil, err
		}
		s, err := startSentinelK(impl{name: "go-sentinel", bin: *goBin}, sd, p, fc, "", k)
		if err != nil {
			r.close()
			return nil, err
		}
		r.sents = append(r.sents, s)
	}
	for _, p := range r.sentPorts {
		if err := waitPing(p, 10*time.Second); err != nil {
			r.close()
			return nil, err
		}
	}
	if _, err := waitDiscovery(r.sentPorts, masters, 2, 50*time.Millisecond, 60*time.Second); err != nil {
		r.close()
		return nil, err
	}
	if r.basePort != 0 {
		// The baseline joins the fleet as a fourth Sentinel (its proxy
		// fences like the others: it needs their hellos).
		sd := filepath.Join(dir, "base")
		bfc := fc
		bfc.extra = func(int) string { return fmt.Sprintf("sentinel proxy mymaster 127.0.0.1 %d\n", r.basePort) }
		if err := os.Mkdir(sd, 0o755); err != nil {
			r.close()
			return nil, err
		}
		if r.base, err = startSentinelK(impl{name: "go-sentinel (" + *baseName + ")", bin: *baseBin}, sd, baseSentPort, bfc, "", 3); err != nil {
			r.close()
			return nil, err
		}
		if err := waitPing(baseSentPort, 10*time.Second); err != nil {
			r.close()
			return nil, err
		}
	}
	if r.gnetPort != 0 {
		r.gnet = exec.Command(*gnetBin, "-listen", "127.0.0.1:"+strconv.Itoa(r.gnetPort), "-target", "127.0.0.1:"+strconv.Itoa(redisPorts[0]))
		r.gnet.Stderr = &prefixWriter{prefix: "gnet: ", w: os.Stderr}
		r.gnet.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := r.gnet.Start(); err != nil {
			r.close()
			return nil, err
		}
	}
	var servers strings.Builder
	for k, p := range redisPorts {
		fmt.Fprintf(&servers, "  server r%d 127.0.0.1:%d check inter 1s\n", k, p)
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(haproxyConf, r.haPort, servers.String())), 0o644); err != nil {
		r.close()
		return nil, err
	}
	r.haproxy = exec.Command("haproxy", "-db", "-f", cfg)
	r.haproxy.Stderr = &prefixWriter{prefix: "haproxy: ", w: os.Stderr}
	r.haproxy.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.haproxy.Start(); err != nil {
		r.close()
		return nil, err
	}
	// Both routes must take writes before anything is measured (HAProxy
	// starts with every server up until its checks say otherwise).
	ports = append([]int{r.haPort}, r.proxies...)
	for _, p := range []int{r.basePort, r.gnetPort} {
		if p != 0 {
			ports = append(ports, p)
		}
	}
	for _, p := range ports {
		if !waitUntil(20*time.Second, func() bool { return writesOK(p, 20) }) {
			r.close()
			return nil, fmt.Errorf("no writes through port %d", p)
		}
	}
	return r, nil
}

// writesOK reports whether a SET succeeds on each of n new connections
// through port in a row (HAProxy picks a server per connection).
func writesOK(port, n int) bool {
	for k := range n {
		c := newClient(port)
		err := c.Set(context.Background(), "bench:probe", k, 0).Err()
		_ = c.Close()
		if err != nil {
			return false
		}
	}
	return true
}

func (r *proxyRig) close() {
	for _, c := range []*exec.Cmd{r.haproxy, r.gnet} {
		if c != nil && c.Process != nil {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	if r.base != nil {
		r.base.stop()
	}
	for _, s := range r.sents {
		s.stop()
	}
	for _, s := range append(r.servers, r.plain...) {
		s.kill()
	}
	removeAll(r.dir)
}

// benchResult is one redis-benchmark test: requests per second and the
// latency percentiles in milliseconds.
type benchResult struct{ rps, p50, p99 float64 }

// benchmarkSetGet runs redis-benchmark -t set,get with c clients against
// port (with -P when pipe > 1) and returns the SET and GET results.
func benchmarkSetGet(port, c, pipe, n int) (set, get benchResult, err error) {
	args := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-c", strconv.Itoa(c),
		"-n", strconv.Itoa(n), "-t", "set,get", "--csv"}
	if pipe > 1 {
		args = append(args, "-P", strconv.Itoa(pipe))
	}
	nan := benchResult{math.NaN(), math.NaN(), math.NaN()}
	set, get = nan, nan
	out, err := exec.Command("redis-benchmark", args...).Output()
	if err != nil {
		return set, get, fmt.Errorf("redis-benchmark: %w", err)
	}
	// "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
	// "p95_latency_ms","p99_latency_ms","max_latency_ms"
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, ",")
		if len(f) < 7 {
			continue
		}
		num := func(k int) float64 {
			v, err := strconv.ParseFloat(strings.Trim(f[k], `"`), 64)
			if err != nil {
				return math.NaN()
			}
			return v
		}
		r := benchResult{num(1), num(4), num(6)}
		switch strings.Trim(f[0], `"`) {
		case "SET":
			set = r
		case "GET":
			get = r
		}
	}
	return set, get, nil
}

// procCost is the CPU time and context switches of a process (all its
// threads) at one moment.
type procCost struct {
	cpu               time.Duration
	vol, nonvoluntary int64
}

// sampleCost reads pid's CPU time and context switches; ok false when
// pid is 0 or gone.
func sampleCost(pid int) (procCost, bool) {
	if pid == 0 {
		return procCost{}, false
	}
	cs, err := sampleCPU(pid)
	if err != nil {
		return procCost{}, false
	}
	c := procCost{cpu: cs.cpu}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return procCost{}, false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				c.vol += n
			} else if v, ok := strings.CutPrefix(l, "nonvoluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				c.nonvoluntary += n
			}
		}
	}
	return c, true
}

// ackWriter writes through one port, reconnecting after every error, and
// records when each write was acknowledged.
type ackWriter struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	acks   []time.Time
}

func startAckWriter(port int) *ackWriter {
	ctx, cancel := context.WithCancel(context.Background())
	w := &ackWriter{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1, PoolSize: 1,
			DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		defer c.Close()
		for n := 0; ctx.Err() == nil; n++ {
			if c.Set(ctx, "bench:ack", n, 0).Err() == nil {
				w.mu.Lock()
				w.acks = append(w.acks, time.Now())
				w.mu.Unlock()
			} else {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	return w
}

// firstAfter is the first acknowledgement after t, zero if none.
func (w *ackWriter) firstAfter(t time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.acks {
		if a.After(t) {
			return a
		}
	}
	return time.Time{}
}

func (w *ackWriter) stop() {
	w.cancel()
	<-w.done
}

// proxyKill is one kill trial: the master is SIGKILLed while one client
// writes through go-sentinel's proxy and one through HAProxy.
type proxyKill struct {
	switched, proxyAck, haAck float64 // seconds after the kill
	// plainSwitched is kill → +switch-master for the master without a
	// proxy, killed alone before the proxied one.
	plainSwitched float64
}

func proxyKillTrial(downAfter time.Duration) (res proxyKill, err error) {
	res = proxyKill{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	r, err := startProxyRig(downAfter, false)
	if err != nil {
		return res, err
	}
	defer r.close()
	evs, err := subscribeEvents(r.sentPorts[:1], "+switch-master")
	if err != nil {
		return res, err
	}
	defer evs.close()
	switchedAt := func(name string, after time.Time) time.Duration {
		for _, e := range evs.snapshot() {
			if e.channel == "+switch-master" && e.at.After(after) && strings.HasPrefix(e.payload, name+" ") {
				return e.at.Sub(after)
			}
		}
		return 0
	}
	// The master without a proxy first, alone: its failover is not
	// delayed by any lease.
	time.Sleep(*settle)
	tPlain := time.Now()
	r.plain[0].kill()
	waitUntil(downAfter+30*time.Second, func() bool { return switchedAt("plain", tPlain) > 0 })
	if d := switchedAt("plain", tPlain); d > 0 {
		res.plainSwitched = d.Seconds()
	}
	wp, wh := startAckWriter(r.proxies[0]), startAckWriter(r.haPort)
	defer wp.stop()
	defer wh.stop()
	time.Sleep(*settle)
	tKill := time.Now()
	r.servers[0].kill()
	waitUntil(downAfter+30*time.Second, func() bool {
		return !wp.firstAfter(tKill.Add(downAfter)).IsZero() && !wh.firstAfter(tKill.Add(downAfter)).IsZero()
	})
	if d := switchedAt("mymaster", tKill); d > 0 {
		res.switched = d.Seconds()
	}
	// A write acknowledged before down-after went to the old master in
	// its last moments: what counts is the first one through the new.
	if a := wp.firstAfter(tKill.Add(downAfter)); !a.IsZero() {
		res.proxyAck = a.Sub(tKill).Seconds()
	}
	if a := wh.firstAfter(tKill.Add(downAfter)); !a.IsZero() {
		res.haAck = a.Sub(tKill).Seconds()
	}
	fmt.Fprintf(os.Stderr, "proxy kill: without a proxy +switch-master %.3f s; with one +switch-master %.3f s, first write through the proxy %.3f s, through HAProxy %.3f s\n",
		res.plainSwitched, res.switched, res.proxyAck, res.haAck)
	return res, nil
}

// proxyRoute is one way to the master that the benchmark measures.
type proxyRoute struct {
	name string
	port int
	pid  int // the process whose cost per request is measured; 0: none
}

// routeRuns are a route's results of one mode (-c alone, or -P): by
// command, one per round.
type routeRuns struct {
	rps, p50, p99  map[string][]float64
	cpu, vcs, ivcs []float64 // per request, of the route's process
}

func newRouteRuns() *routeRuns {
	return &routeRuns{rps: map[string][]float64{}, p50: map[string][]float64{}, p99: map[string][]float64{}}
}

// runProxy prints the proxy benchmark: throughput and latency through
// go-sentinel's proxy, its baseline's, the gnet prototype, HAProxy and
// direct, without and with pipelining, then the master killed.
func runProxy(out io.Writer, trials int, downAfter time.Duration) {
	if *killOnly {
		runProxyKills(out, trials, downAfter)
		return
	}
	r, err := startProxyRig(downAfter, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		return
	}
	routes := []proxyRoute{{"go-sentinel proxy", r.proxies[0], r.sents[0].pid()}}
	if r.base != nil {
		routes = append(routes, proxyRoute{"go-sentinel (" + *baseName + ") proxy", r.basePort, r.base.pid()})
	}
	if r.gnet != nil {
		routes = append(routes, proxyRoute{"gnet prototype", r.gnetPort, r.gnet.Process.Pid})
	}
	routes = append(routes, proxyRoute{"HAProxy", r.haPort, r.haproxy.Process.Pid}, proxyRoute{"direct", r.servers[0].port, 0})
	// A mode is one redis-benchmark setting; the one-client mode measures
	// the latency a route adds when nothing queues behind it (with 50
	// closed-loop clients on a saturated machine, latency is 50 / rate).
	type mode struct {
		name       string
		c, pipe, n int
	}
	modes := []mode{{fmt.Sprintf("-c %d", *conns), *conns, 1, *requests}}
	if *pipeline > 1 {
		modes = append(modes, mode{fmt.Sprintf("-c %d -P %d", *conns, *pipeline), *conns, *pipeline, *pipeReqs})
	}
	if *oneReqs > 0 {
		modes = append(modes, mode{"-c 1", 1, 1, *oneReqs})
	}
	fmt.Fprintf(out, "## Proxy: `redis-benchmark -t set,get` (%s) through go-sentinel's proxy, beside HAProxy 2.6 (tcp-check role:master, inter 1s) and direct, %d rounds each, alternating\n\n",
		strings.Join(func() []string {
			var v []string
			for _, m := range modes {
				v = append(v, fmt.Sprintf("`%s -n %d`", m.name, m.n))
			}
			return v
		}(), ", "), *rounds)
	res := map[string]map[string]*routeRuns{}
	for _, m := range modes {
		res[m.name] = map[string]*routeRuns{}
		for _, rt := range routes {
			res[m.name][rt.name] = newRouteRuns()
		}
	}
	for k := range *rounds {
		for _, m := range modes {
			for j := range routes {
				rt := routes[(j+k)%len(routes)]
				c0, ok0 := sampleCost(rt.pid)
				set, get, err := benchmarkSetGet(rt.port, m.c, m.pipe, m.n)
				c1, ok1 := sampleCost(rt.pid)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", rt.name, err)
				}
				rr := res[m.name][rt.name]
				for cmd, b := range map[string]benchResult{"SET": set, "GET": get} {
					rr.rps[cmd] = append(rr.rps[cmd], b.rps)
					rr.p50[cmd] = append(rr.p50[cmd], b.p50)
					rr.p99[cmd] = append(rr.p99[cmd], b.p99)
				}
				var cost string
				if ok0 && ok1 {
					n := float64(2 * m.n)
					rr.cpu = append(rr.cpu, float64(c1.cpu-c0.cpu)/float64(time.Microsecond)/n)
					rr.vcs = append(rr.vcs, float64(c1.vol-c0.vol)/n)
					rr.ivcs = append(rr.ivcs, float64(c1.nonvoluntary-c0.nonvoluntary)/n)
					cost = fmt.Sprintf(", %.2f µs CPU and %.3f+%.3f context switches per request",
						rr.cpu[len(rr.cpu)-1], rr.vcs[len(rr.vcs)-1], rr.ivcs[len(rr.ivcs)-1])
				}
				fmt.Fprintf(os.Stderr, "%s %s: SET %.0f/s p50 %.3f p99 %.3f ms, GET %.0f/s p50 %.3f p99 %.3f ms%s\n",
					rt.name, m.name, set.rps, set.p50, set.p99, get.rps, get.p50, get.p99, cost)
			}
		}
	}
	r.close()
	head := []string{"figure", "goal"}
	for _, rt := range routes {
		head = append(head, rt.name)
	}
	head = append(head, "proxy / HAProxy", "proxy / direct", "met")
	tb := &table{head: head}
	for _, m := range modes {
		mr := res[m.name]
		for _, cmd := range []string{"SET", "GET"} {
			goal := "≥ 1.1 × HAProxy's, ≥ 0.7 × direct"
			if m.c == 1 {
				goal = "" // one client: a latency run, its rate is 1 / latency
			}
			row := []string{fmt.Sprintf("`%s` `%s` requests/s", m.name, cmd), goal}
			for _, rt := range routes {
				row = append(row, fmtNum(summarize(mr[rt.name].rps[cmd]), 0, ""))
			}
			p, h, d := summarize(mr["go-sentinel proxy"].rps[cmd]), summarize(mr["HAProxy"].rps[cmd]), summarize(mr["direct"].rps[cmd])
			met := ""
			if goal != "" {
				met = "no"
				if p.med >= 1.1*h.med && p.med >= 0.7*d.med {
					met = "yes"
				}
			}
			tb.add(append(row, ratio(p, h), ratio(p, d), met)...)
		}
	}
	tb.print(out)

	// Added latency: a route's percentile less direct's, medians of the
	// rounds.
	fmt.Fprintf(out, "\nLatency added to direct's (redis-benchmark's percentiles, median of %d rounds, ms):\n\n", *rounds)
	head = []string{"figure", "goal"}
	for _, rt := range routes[:len(routes)-1] {
		head = append(head, rt.name)
	}
	head = append(head, "direct (itself)", "met")
	tb = &table{head: head}
	for _, m := range modes {
		mr := res[m.name]
		for _, cmd := range []string{"SET", "GET"} {
			for _, pc := range []string{"p50", "p99"} {
				get := func(name string) float64 {
					if pc == "p50" {
						return summarize(mr[name].p50[cmd]).med
					}
					return summarize(mr[name].p99[cmd]).med
				}
				d := get("direct")
				row := []string{fmt.Sprintf("`%s` `%s` added %s", m.name, cmd, pc), "≤ HAProxy's"}
				for _, rt := range routes[:len(routes)-1] {
					row = append(row, fmt.Sprintf("%+.3f", get(rt.name)-d))
				}
				met := "no"
				if get("go-sentinel proxy") <= get("HAProxy") {
					met = "yes"
				}
				tb.add(append(row, fmt.Sprintf("%.3f", d), met)...)
			}
		}
	}
	tb.print(out)

	fmt.Fprintf(out, "\nCost per request of the process in the path (CPU of all its threads from /proc/<pid>/stat, voluntary + involuntary context switches of all its threads; a go-sentinel's includes its Sentinel work):\n\n")
	head = []string{"mode"}
	for _, rt := range routes[:len(routes)-1] {
		head = append(head, rt.name)
	}
	tb = &table{head: head}
	for _, m := range modes {
		row := []string{"`" + m.name + "`"}
		for _, rt := range routes[:len(routes)-1] {
			rr := res[m.name][rt.name]
			row = append(row, fmt.Sprintf("%.2f µs, %.3f + %.3f cs", summarize(rr.cpu).med, summarize(rr.vcs).med, summarize(rr.ivcs).med))
		}
		tb.add(row...)
	}
	tb.print(out)
	if *proxyOnly {
		return
	}
	runProxyKills(out, trials, downAfter)
}

// runProxyKills prints the master-kill trials: a master without a proxy
// and then the one with it killed, each alone, kill → +switch-master,
// and kill → the first write acknowledged through the proxy and through
// HAProxy.
func runProxyKills(out io.Writer, trials int, downAfter time.Duration) {

	fmt.Fprintf(out, "\n## Proxy: master SIGKILLed (2 replicas, 3 go-sentinels, quorum 2, down-after %d ms, proxy-fence-after 2000 ms), %d trials\n\n",
		downAfter.Milliseconds(), trials)
	var sw, pa, ha, margin, plain []float64
	for range trials {
		k, err := proxyKillTrial(downAfter)
		if err != nil {
			fmt.Fprintln(os.Stderr, "proxy kill:", err)
			continue
		}
		sw, pa, ha = append(sw, k.switched), append(pa, k.proxyAck), append(ha, k.haAck)
		plain = append(plain, k.plainSwitched)
		margin = append(margin, k.proxyAck-k.switched)
	}
	tb := &table{head: []string{"figure", "goal", "go-sentinel proxy", "HAProxy", "met"}}
	m, ps, hs := summarize(margin), summarize(pa), summarize(ha)
	met := "no"
	if m.n > 0 && m.max <= 0.05 && (hs.n == 0 || ps.max < hs.min) {
		met = "yes"
	}
	tb.add("kill → `+switch-master` (first Sentinel), a master without a proxy", "", fmtSec(summarize(plain)), "", "")
	tb.add("kill → `+switch-master` (first Sentinel), the master with the proxy", "≤ without + fence-after + 0.3 s", fmtSec(summarize(sw)), "", "")
	tb.add("kill → first acknowledged write through it", "≤ `+switch-master` + 50 ms, ahead of HAProxy", fmtSec(ps), fmtSec(hs), met)
	tb.add("same, after `+switch-master`", "≤ 50 ms", fmtMs(m), "", "")
	tb.print(out)
}

// fmtMs formats a summary of seconds in milliseconds.
func fmtMs(s summary) string {
	if s.n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f ms (%.0f–%.0f)", 1000*s.med, 1000*s.min, 1000*s.max)
}

// prefixWriter passes lines on with a prefix (HAProxy's alerts).
type prefixWriter struct {
	prefix string
	w      io.Writer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" && !strings.Contains(l, "[NOTICE]") {
			if _, err := io.WriteString(p.w, p.prefix+l); err != nil {
				return 0, err
			}
		}
	}
	return len(b), nil
}
