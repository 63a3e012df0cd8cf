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

var (
	readMaxLag  = flag.Duration("replica-max-lag", 3*time.Second, "proxy-replicas: proxy-replica-max-lag of the read port")
	readObserve = flag.Duration("replica-lag-observe", 15*time.Second, "proxy-replicas: how long a replica is held back in each lag trial (below its repl-timeout, 60 s)")
	readClients = flag.Int("replica-readers", 4, "proxy-replicas: reading connections per route in the lag trials")
)

// haproxyReadConf is HAProxy with the read backend the guides add beside
// the master's: every data node, a TCP check that expects role:slave
// every second, round robin.
const haproxyReadConf = `global
  maxconn 5000
defaults
  mode tcp
  timeout connect 1s
  timeout client 1h
  timeout server 1h
  timeout check 1s
frontend redis_read
  bind 127.0.0.1:%d
  default_backend redis_replicas
backend redis_replicas
  balance roundrobin
  option tcp-check
  tcp-check connect
  tcp-check send PING\r\n
  tcp-check expect string +PONG
  tcp-check send info\ replication\r\n
  tcp-check expect string role:slave
  tcp-check send QUIT\r\n
  tcp-check expect string +OK
%s`

// readRig is the read port benchmark's rig: a master behind a relay
// (replicaRelay: the Sentinels and both replicas reach it through it),
// two replicas, three go-sentinels (quorum 2, down-after 30 s: no
// failover) each with a read port, and HAProxy's read backend.
type readRig struct {
	dir       string
	servers   []*redisServer // the master first
	relay     *replicaRelay
	sents     []*sentinelProc
	sentPorts []int
	reads     []int
	haproxy   *exec.Cmd
	haPort    int
}

// startReadRig starts the rig and waits until the read port serves both
// replicas and HAProxy's checks settled; on error nothing is left running.
func startReadRig() (*readRig, error) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		return nil, fmt.Errorf("haproxy not installed: %w", err)
	}
	dir, err := os.MkdirTemp("", "bench-reads-")
	if err != nil {
		return nil, err
	}
	r := &readRig{dir: dir}
	ports, err := freePorts(3 + 1 + 3 + 3 + 1)
	if err != nil {
		r.close()
		return nil, err
	}
	relayPort := ports[3]
	r.sentPorts, r.reads, r.haPort = ports[4:7], ports[7:10], ports[10]
	m, err := startRedis(dir, ports[0], 0)
	if err != nil {
		r.close()
		return nil, err
	}
	r.servers = append(r.servers, m)
	if r.relay, err = startRelay(relayPort, ports[0]); err != nil {
		r.close()
		return nil, err
	}
	for _, p := range ports[1:3] {
		s, err := startRedis(dir, p, relayPort)
		if err != nil {
			r.close()
			return nil, err
		}
		r.servers = append(r.servers, s)
	}
	if err := waitReplicasUp(ports[1:3], 20*time.Second); err != nil {
		r.close()
		return nil, err
	}
	masters := []monitored{{name: "mymaster", port: relayPort}}
	fc := fleetConf{masters: masters, quorum: 2, downAfter: 30 * time.Second, failover: 180 * time.Second,
		extra: func(k int) string {
			return fmt.Sprintf("sentinel proxy-replicas mymaster 127.0.0.1 %d\nsentinel proxy-replica-max-lag mymaster %d\n",
				r.reads[k], readMaxLag.Milliseconds())
		}}
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
	if _, err := waitDiscovery(r.sentPorts, masters, 2, 50*time.Millisecond, 60*time.Second); err != nil {
		r.close()
		return nil, err
	}
	if !waitUntil(30*time.Second, func() bool { return r.serving(2) }) {
		r.close()
		return nil, fmt.Errorf("the read port never served both replicas")
	}
	var servers strings.Builder
	for k, s := range r.servers {
		fmt.Fprintf(&servers, "  server r%d 127.0.0.1:%d check inter 1s\n", k, s.port)
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(haproxyReadConf, r.haPort, servers.String())), 0o644); err != nil {
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
	// HAProxy starts with every server up: wait until its checks took
	// the master out (20 reads in a row from replicas).
	if !waitUntil(20*time.Second, func() bool { return r.haOnReplicas(20) }) {
		r.close()
		return nil, fmt.Errorf("HAProxy's read backend never settled on the replicas")
	}
	return r, nil
}

// serving reports whether Sentinel 0's read port serves n replicas.
func (r *readRig) serving(n int) bool {
	c := newClient(r.sentPorts[0])
	defer c.Close()
	v, err := c.Do(context.Background(), "SENTINEL", "MASTER", "mymaster").Result()
	if err != nil {
		return false
	}
	kv, _ := v.([]any)
	for k := 0; k+1 < len(kv); k += 2 {
		if fmt.Sprint(kv[k]) == "proxy-replicas-state" {
			s := fmt.Sprint(kv[k+1])
			return strings.HasPrefix(s, "replicas: ") && len(strings.Fields(s))-1 == 2*n
		}
	}
	return false
}

// haOnReplicas reports whether n connections in a row through HAProxy
// reach a replica.
func (r *readRig) haOnReplicas(n int) bool {
	for range n {
		c := newClient(r.haPort)
		v, err := c.Do(context.Background(), "ROLE").Slice()
		_ = c.Close()
		if err != nil || len(v) == 0 || fmt.Sprint(v[0]) != "slave" {
			return false
		}
	}
	return true
}

// close ends every process of the rig and removes its directory.
func (r *readRig) close() {
	if r.haproxy != nil && r.haproxy.Process != nil {
		_ = r.haproxy.Process.Kill()
		_ = r.haproxy.Wait()
	}
	for _, s := range r.sents {
		s.stop()
	}
	if r.relay != nil {
		r.relay.close()
	}
	for _, s := range r.servers {
		s.kill()
	}
	removeAll(r.dir)
}

// benchmarkGet runs redis-benchmark -t get against port and returns its
// requests per second.
func benchmarkGet(port, n int) (float64, error) {
	out, err := exec.Command("redis-benchmark", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-c", strconv.Itoa(*conns),
		"-n", strconv.Itoa(n), "-t", "get", "--csv").Output()
	if err != nil {
		return math.NaN(), fmt.Errorf("redis-benchmark: %w", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, ",")
		if len(f) > 1 && strings.Trim(f[0], `"`) == "GET" {
			return strconv.ParseFloat(strings.Trim(f[1], `"`), 64)
		}
	}
	return math.NaN(), fmt.Errorf("redis-benchmark: no GET line in %q", out)
}

// staleReader reads bench:lag (a write time, Unix ns) through one port
// on its own connection, reconnecting after every error, and records the
// last time it read a value older than the threshold, and how many.
type staleReader struct {
	cancel    context.CancelFunc
	done      chan struct{}
	mu        sync.Mutex
	lastStale time.Time
	stale     int
	reads     int
}

// startStaleReader starts reading through port; a read is stale when its
// value is older than threshold.
func startStaleReader(port int, threshold time.Duration) *staleReader {
	ctx, cancel := context.WithCancel(context.Background())
	sr := &staleReader{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sr.done)
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1, PoolSize: 1,
			DialTimeout: 200 * time.Millisecond, ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond})
		defer c.Close()
		for ctx.Err() == nil {
			v, err := c.Get(ctx, "bench:lag").Int64()
			now := time.Now()
			if err == nil {
				sr.mu.Lock()
				sr.reads++
				if now.Sub(time.Unix(0, v)) > threshold {
					sr.stale++
					sr.lastStale = now
				}
				sr.mu.Unlock()
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return sr
}

// stop ends the reader and returns the time of its last stale read, the
// stale reads and all reads.
func (sr *staleReader) stop() (last time.Time, stale, reads int) {
	sr.cancel()
	<-sr.done
	return sr.lastStale, sr.stale, sr.reads
}

// readLagTrial holds back replica 0's stream for readObserve while a
// writer sets bench:lag on the master every 5 ms and readClients
// connections per route read it: it returns, per route, how long after
// the replica's lag passed max-lag the last read older than max-lag came
// (0: none), and the reads older than max-lag.
func (r *readRig) readLagTrial(routes []proxyRoute) (after []float64, stale []int, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		c := newClient(r.servers[0].port)
		defer c.Close()
		for ctx.Err() == nil {
			_ = c.Set(ctx, "bench:lag", time.Now().UnixNano(), 0).Err()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer func() { cancel(); <-wdone }()
	time.Sleep(*settle)
	readers := make([][]*staleReader, len(routes))
	for k, rt := range routes {
		for range *readClients {
			readers[k] = append(readers[k], startStaleReader(rt.port, *readMaxLag))
		}
	}
	time.Sleep(*settle)
	t0 := time.Now()
	r.relay.hold(r.servers[1].port, true)
	time.Sleep(*readObserve)
	over := t0.Add(*readMaxLag)
	for k := range routes {
		var last time.Time
		n := 0
		for _, sr := range readers[k] {
			l, s, _ := sr.stop()
			if l.After(last) {
				last = l
			}
			n += s
		}
		a := 0.0
		if last.After(over) {
			a = last.Sub(over).Seconds()
		}
		after, stale = append(after, a), append(stale, n)
	}
	r.relay.hold(r.servers[1].port, false)
	if !waitUntil(30*time.Second, func() bool { return r.serving(2) }) {
		return after, stale, fmt.Errorf("replica 0 was not served again after it caught up")
	}
	return after, stale, nil
}

// runProxyReplicas prints the read port benchmark: GET throughput
// through it, HAProxy's read backend and a replica directly; then the
// lag trials.
func runProxyReplicas(out io.Writer, trials int) {
	r, err := startReadRig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy-replicas:", err)
		return
	}
	defer r.close()
	routes := []proxyRoute{{"go-sentinel read port", r.reads[0], r.sents[0].pid()}, {"HAProxy (role:slave)", r.haPort, r.haproxy.Process.Pid}}
	all := append(append([]proxyRoute(nil), routes...), proxyRoute{"direct (one replica)", r.servers[1].port, 0})
	rps := make([][]float64, len(all))
	for k := range *rounds {
		for j := range all {
			i := (j + k) % len(all)
			v, err := benchmarkGet(all[i].port, *requests)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", all[i].name, err)
			}
			fmt.Fprintf(os.Stderr, "%s: GET %.0f/s\n", all[i].name, v)
			rps[i] = append(rps[i], v)
		}
	}
	fmt.Fprintf(out, "## Reads to replicas: `redis-benchmark -c %d -n %d -t get`, %d rounds each, alternating (a master, two replicas, three go-sentinels with a read port, HAProxy's read backend checking role:slave every second)\n\n",
		*conns, *requests, *rounds)
	tb := &table{head: []string{"figure"}}
	for _, rt := range all {
		tb.head = append(tb.head, rt.name)
	}
	tb.head = append(tb.head, "read port / HAProxy", "read port / direct")
	row := []string{"`GET` requests/s (median, min–max)"}
	for k := range all {
		row = append(row, fmtNum(summarize(rps[k]), 0, ""))
	}
	tb.add(append(row, ratio(summarize(rps[0]), summarize(rps[1])), ratio(summarize(rps[0]), summarize(rps[2])))...)
	tb.print(out)

	after := make([][]float64, len(routes))
	stale := make([][]float64, len(routes))
	for range trials {
		a, s, err := r.readLagTrial(routes)
		if err != nil {
			fmt.Fprintln(os.Stderr, "proxy-replicas lag:", err)
		}
		for k := range a {
			after[k] = append(after[k], a[k])
			stale[k] = append(stale[k], float64(s[k]))
		}
		fmt.Fprintf(os.Stderr, "lag trial: last read older than max-lag, after the lag passed it: %v s; such reads: %v\n", a, s)
	}
	fmt.Fprintf(out, "\nOne replica's replication stream held back (it still answers reads, role:slave, link up) for %s, max-lag %s, %d readers per route each reading a key the master rewrites every 5 ms, %d trials:\n\n",
		*readObserve, *readMaxLag, *readClients, trials)
	tb = &table{head: []string{"figure"}}
	for _, rt := range routes {
		tb.head = append(tb.head, rt.name)
	}
	row = []string{fmt.Sprintf("last read older than max-lag, after the replica's lag passed it (of %.0f s watched)", (*readObserve - *readMaxLag).Seconds())}
	for k := range routes {
		row = append(row, fmtSec(summarize(after[k])))
	}
	tb.add(row...)
	row = []string{"reads older than max-lag"}
	for k := range routes {
		row = append(row, fmtNum(summarize(stale[k]), 0, ""))
	}
	tb.add(row...)
	tb.print(out)
}
