package main

import (
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// idleGoal is issue 31's bound on the memory of an idle client
// connection, 3 s after connecting and still after 5 minutes.
const idleGoal = 1.4 // KiB

// idleSettle is how long a Sentinel runs before its memory is sampled
// the first time: past the 5 s of quiet after which go-sentinel gives
// back its executable's idle pages (internal/node/pages.go) and runs on
// one P.
const idleSettle = 7 * time.Second

// idleResult is what one idle run measured: the Sentinel's growth of
// resident memory of its own (RssAnon) per connection 3 s after the last
// one connected and after the hold, in KiB,
// and how many of the connections a PING still reached at the end.
type idleResult struct {
	early, late float64
	alive       int
}

// runIdle opens -idle-clients connections to one Sentinel of each
// implementation (monitoring one redis-server master), each sending one
// PING first with -idle-ping, then leaves them idle, and prints the
// Sentinel's growth of resident memory per connection (RssAnon: its heap
// and stacks; the kernel's socket buffers are not counted, as they are
// not in RSS) 3 s after they all connected and -idle-hold later. Without -idle-ping a connection has sent nothing;
// with it, redis-sentinel holds a 16 KiB query buffer per client until
// its cron shrinks it, seconds later.
func runIdle(out io.Writer, impls []impl) {
	how := "connected"
	if *idlePing {
		how = "each after one PING"
	}
	fmt.Fprintf(out, "## Idle clients: %d connections to one Sentinel (%s), growth of its resident memory (RssAnon) per connection\n\n", *idleClients, how)
	if err := raiseFileLimit(*idleClients + 256); err != nil {
		fmt.Fprintln(os.Stderr, "idle:", err)
		return
	}
	res := make(map[string]idleResult)
	for _, im := range impls {
		r, err := idleRun(im)
		if err != nil {
			fmt.Fprintf(os.Stderr, "idle: %s: %v\n", im.name, err)
			r = idleResult{early: math.NaN(), late: math.NaN()}
		}
		res[im.name] = r
	}
	tb := &table{head: tableHead(impls)}
	for _, row := range []struct {
		name string
		val  func(idleResult) float64
	}{
		{"memory per idle connection, 3 s after connecting", func(r idleResult) float64 { return r.early }},
		{fmt.Sprintf("same, %s later", *idleHold), func(r idleResult) float64 { return r.late }},
	} {
		cells := []string{row.name, fmt.Sprintf("≤ %.1f KiB", idleGoal)}
		var sums []summary
		for _, im := range impls {
			s := summarize([]float64{row.val(res[im.name])})
			sums = append(sums, s)
			cells = append(cells, fmtNum(s, 2, " KiB"))
		}
		met := "no data"
		if sums[0].n > 0 {
			met = pick(sums[0].med <= idleGoal, "yes")
			if met == "" {
				met = "no"
			}
		}
		tb.add(append(cells, ratioCell(sums), met)...)
	}
	cells := []string{"connections still answering PING at the end", fmt.Sprint(*idleClients)}
	for _, im := range impls {
		cells = append(cells, strconv.Itoa(res[im.name].alive))
	}
	tb.add(append(cells, "", "")...)
	tb.print(out)
}

// raiseFileLimit sets the soft limit of open files to the hard one and
// fails when that is below need (Go raises it at start too; the
// Sentinels inherit what the process had before).
func raiseFileLimit(need int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return err
		}
	}
	if lim.Cur < uint64(need) {
		return fmt.Errorf("%d open files needed, the hard limit is %d (ulimit -n)", need, lim.Max)
	}
	return nil
}

// idleRun measures one implementation: a Sentinel allowed -idle-clients
// plus some clients, its memory before, 3 s after the connections and at
// the end of the hold.
func idleRun(im impl) (res idleResult, err error) {
	dir, ports, master, err := soloMaster("bench-idle-", 1)
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	defer master.kill()
	fc := fleetConf{masters: []monitored{{name: "mymaster", port: ports[0]}}, quorum: 1, downAfter: 30 * time.Second, failover: 180 * time.Second,
		extra: func(int) string { return fmt.Sprintf("maxclients %d\n", *idleClients+100) }}
	sd := filepath.Join(dir, "s")
	if err := os.Mkdir(sd, 0o755); err != nil {
		return res, err
	}
	s, err := startSentinel(im, sd, ports[1], fc, "")
	if err != nil {
		return res, err
	}
	defer s.stop()
	if err := waitPing(ports[1], 10*time.Second); err != nil {
		return res, err
	}
	time.Sleep(idleSettle)
	before, err := anonBytes(s.pid())
	if err != nil {
		return res, err
	}
	conns, err := openIdle(ports[1], *idleClients, *idlePing)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	if err != nil {
		return res, err
	}
	perConn := func(when string) (float64, error) {
		rss, err := anonBytes(s.pid())
		if err != nil {
			return math.NaN(), err
		}
		kib := float64(rss-before) / 1024 / float64(len(conns))
		fmt.Fprintf(os.Stderr, "  %s: RssAnon %.1f MB before, %.1f MB %s: %.2f KiB per connection\n", im.name, float64(before)/1e6, float64(rss)/1e6, when, kib)
		return kib, nil
	}
	time.Sleep(3 * time.Second)
	if res.early, err = perConn("3 s after connecting"); err != nil {
		return res, err
	}
	time.Sleep(*idleHold)
	if res.late, err = perConn(idleHold.String() + " later"); err != nil {
		return res, err
	}
	res.alive = pingAll(conns)
	return res, nil
}

// openIdle opens n connections to port, a few at a time, each sending
// PING and reading its reply when withPing is set; on error it returns
// those it opened.
func openIdle(port, n int, withPing bool) ([]net.Conn, error) {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	// No keep-alive probes from this side: Go's (every 15 s) went
	// unanswered on about half of 10,000 idle loopback connections on this
	// machine's kernel, to redis-sentinel as to go-sentinel (4,167 and 3,990
	// of 10,000 still open after 200 s in one run), and those timed out on
	// the client's side after 150 s: not the Sentinel closing them.
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: -1}
	var wg sync.WaitGroup
	const workers = 16
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					errs[i] = err
					continue
				}
				conns[i] = c
				if withPing {
					errs[i] = ping(c)
				}
			}
		}()
	}
	wg.Wait()
	var open []net.Conn
	var first error
	for i, c := range conns {
		if c != nil {
			open = append(open, c)
		}
		if errs[i] != nil && first == nil {
			first = fmt.Errorf("connection %d: %w", i, errs[i])
		}
	}
	return open, first
}

// ping sends PING on c and reads the reply.
func ping(c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 7)
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != "+PONG\r\n" {
		return fmt.Errorf("PING: %q", buf)
	}
	return nil
}

// pingAll counts the connections that still answer PING.
func pingAll(conns []net.Conn) int {
	n := 0
	for _, c := range conns {
		if ping(c) == nil {
			n++
		}
	}
	return n
}
