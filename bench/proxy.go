package main

import (
	"context"
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
	dir       string
	servers   []*redisServer // the master first
	sents     []*sentinelProc
	sentPorts []int
	proxies   []int
	haproxy   *exec.Cmd
	haPort    int
}

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

func startProxyRig(downAfter time.Duration) (*proxyRig, error) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		return nil, fmt.Errorf("haproxy not installed (apt-get install haproxy; scripts/install-deps.sh does): %w", err)
	}
	dir, err := os.MkdirTemp("", "bench-proxy-")
	if err != nil {
		return nil, err
	}
	r := &proxyRig{dir: dir}
	ports, err := freePorts(3 + 3 + 3 + 1)
	if err != nil {
		r.close()
		return nil, err
	}
	redisPorts := ports[:3]
	r.sentPorts, r.proxies, r.haPort = ports[3:6], ports[6:9], ports[9]
	if r.servers, err = startDataNodes(dir, redisPorts); err != nil {
		r.close()
		return nil, err
	}
	masters := []monitored{{name: "mymaster", port: redisPorts[0]}}
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
	for _, p := range append([]int{r.haPort}, r.proxies...) {
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
	if r.haproxy != nil && r.haproxy.Process != nil {
		_ = r.haproxy.Process.Kill()
		_ = r.haproxy.Wait()
	}
	for _, s := range r.sents {
		s.stop()
	}
	for _, s := range r.servers {
		s.kill()
	}
	removeAll(r.dir)
}

// benchmarkSetGet runs redis-benchmark -t set,get against port and
// returns the SET and GET requests per second.
func benchmarkSetGet(port int) (set, get float64, err error) {
	out, err := exec.Command("redis-benchmark", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-c", strconv.Itoa(*conns),
		"-n", strconv.Itoa(*requests), "-t", "set,get", "--csv").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("redis-benchmark: %w", err)
	}
	set, get = math.NaN(), math.NaN()
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, ",")
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(strings.Trim(f[1], `"`), 64)
		if err != nil {
			continue
		}
		switch strings.Trim(f[0], `"`) {
		case "SET":
			set = v
		case "GET":
			get = v
		}
	}
	return set, get, nil
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
}

func proxyKillTrial(downAfter time.Duration) (res proxyKill, err error) {
	res = proxyKill{math.NaN(), math.NaN(), math.NaN()}
	r, err := startProxyRig(downAfter)
	if err != nil {
		return res, err
	}
	defer r.close()
	evs, err := subscribeEvents(r.sentPorts[:1], "+switch-master")
	if err != nil {
		return res, err
	}
	defer evs.close()
	wp, wh := startAckWriter(r.proxies[0]), startAckWriter(r.haPort)
	defer wp.stop()
	defer wh.stop()
	time.Sleep(*settle)
	tKill := time.Now()
	r.servers[0].kill()
	waitUntil(downAfter+30*time.Second, func() bool {
		return !wp.firstAfter(tKill.Add(downAfter)).IsZero() && !wh.firstAfter(tKill.Add(downAfter)).IsZero()
	})
	for _, e := range evs.snapshot() {
		if e.channel == "+switch-master" && e.at.After(tKill) {
			res.switched = e.at.Sub(tKill).Seconds()
			break
		}
	}
	// A write acknowledged before down-after went to the old master in
	// its last moments: what counts is the first one through the new.
	if a := wp.firstAfter(tKill.Add(downAfter)); !a.IsZero() {
		res.proxyAck = a.Sub(tKill).Seconds()
	}
	if a := wh.firstAfter(tKill.Add(downAfter)); !a.IsZero() {
		res.haAck = a.Sub(tKill).Seconds()
	}
	fmt.Fprintf(os.Stderr, "proxy kill: +switch-master %.3f s, first write through the proxy %.3f s, through HAProxy %.3f s\n",
		res.switched, res.proxyAck, res.haAck)
	return res, nil
}

// runProxy prints the proxy benchmark: throughput through go-sentinel's
// proxy, through HAProxy and direct, then the master killed.
func runProxy(out io.Writer, trials int, downAfter time.Duration) {
	fmt.Fprintf(out, "## Proxy: `redis-benchmark -c %d -n %d -t set,get` through go-sentinel's proxy, HAProxy 2.6 (tcp-check role:master, inter 1s) and direct, %d rounds each, alternating\n\n",
		*conns, *requests, *rounds)
	r, err := startProxyRig(downAfter)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		return
	}
	routes := []struct {
		name string
		port int
	}{{"go-sentinel proxy", r.proxies[0]}, {"HAProxy", r.haPort}, {"direct", r.servers[0].port}}
	res := map[string]map[string][]float64{}
	for _, rt := range routes {
		res[rt.name] = map[string][]float64{}
	}
	for k := range *rounds {
		for j := range routes {
			rt := routes[(j+k)%len(routes)]
			set, get, err := benchmarkSetGet(rt.port)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", rt.name, err)
			}
			fmt.Fprintf(os.Stderr, "%s: SET %.0f/s GET %.0f/s\n", rt.name, set, get)
			res[rt.name]["SET"] = append(res[rt.name]["SET"], set)
			res[rt.name]["GET"] = append(res[rt.name]["GET"], get)
		}
	}
	r.close()
	tb := &table{head: []string{"figure", "goal", "go-sentinel proxy", "HAProxy", "direct", "proxy / HAProxy", "proxy / direct", "met"}}
	for _, cmd := range []string{"SET", "GET"} {
		p, h, d := summarize(res["go-sentinel proxy"][cmd]), summarize(res["HAProxy"][cmd]), summarize(res["direct"][cmd])
		met := "no"
		if p.med >= h.med && p.med >= 0.8*d.med {
			met = "yes"
		}
		tb.add("`"+cmd+"` requests/s", "≥ HAProxy's, ≥ 0.8 × direct", fmtNum(p, 0, ""), fmtNum(h, 0, ""), fmtNum(d, 0, ""),
			fmt.Sprintf("%.2f", p.med/h.med), fmt.Sprintf("%.2f", p.med/d.med), met)
	}
	tb.print(out)

	fmt.Fprintf(out, "\n## Proxy: master SIGKILLed (2 replicas, 3 go-sentinels, quorum 2, down-after %d ms, proxy-fence-after 2000 ms), %d trials\n\n",
		downAfter.Milliseconds(), trials)
	var sw, pa, ha, margin []float64
	for range trials {
		k, err := proxyKillTrial(downAfter)
		if err != nil {
			fmt.Fprintln(os.Stderr, "proxy kill:", err)
			continue
		}
		sw, pa, ha = append(sw, k.switched), append(pa, k.proxyAck), append(ha, k.haAck)
		margin = append(margin, k.proxyAck-k.switched)
	}
	tb = &table{head: []string{"figure", "goal", "go-sentinel proxy", "HAProxy", "met"}}
	m, ps, hs := summarize(margin), summarize(pa), summarize(ha)
	met := "no"
	if m.n > 0 && m.max <= 0.05 && (hs.n == 0 || ps.max < hs.min) {
		met = "yes"
	}
	tb.add("kill → `+switch-master` (first Sentinel)", "", fmtSec(summarize(sw)), "", "")
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
