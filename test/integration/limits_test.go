package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// raiseNoFile raises this process's open files limit (which the processes
// it starts inherit) to at least n for the test, or skips it.
func raiseNoFile(t *testing.T, n uint64) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skipf("cannot read the open files limit: %v", err)
	}
	if old.Cur >= n {
		return
	}
	want := syscall.Rlimit{Cur: n, Max: max(n, old.Max)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		t.Skipf("this test needs %d open files; the limit is %d (hard %d) and cannot be raised (%v): raise `ulimit -n` or run as root", n, old.Cur, old.Max, err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// memory returns a process's resident set size and its peak (VmRSS and
// VmHWM), in bytes.
func memory(t *testing.T, pid int) (rss, peak int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc to measure memory: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// monitoring returns mymaster's flags and the age of its last PING reply
// as the Sentinel reports them.
func monitoring(t *testing.T, port int) (flags string, lastOK int) {
	m, err := client(t, port).Do(context.Background(), "SENTINEL", "MASTER", "mymaster").StringSlice()
	if err != nil {
		return "error: " + err.Error(), -1
	}
	lastOK = -1
	for i := 0; i+1 < len(m); i += 2 {
		switch m[i] {
		case "flags":
			flags = m[i+1]
		case "last-ok-ping-reply":
			lastOK, _ = strconv.Atoi(m[i+1])
		}
	}
	return flags, lastOK
}

// monitoringOK reports whether the Sentinel sees mymaster up and had a
// PING reply from it within down-after-milliseconds (2 s in the tests).
func monitoringOK(t *testing.T, port int) bool {
	flags, last := monitoring(t, port)
	return flags == "master" && last >= 0 && last < 2000
}

// TestTenThousandIdleConnections opens 10,000 connections that send
// nothing to a go-sentinel watching a master with one replica: PING and
// monitoring go on, the master's death is still failed over, and the
// memory the connections take is measured (and bounded).
func TestTenThousandIdleConnections(t *testing.T) {
	const idle = 10000
	raiseNoFile(t, idle+2000)
	top := startData(t, 1)
	s := top.addGoSentinel(1, fmt.Sprintf("maxclients %d\n", idle+100))
	waitDiscovery(t, top)
	pid := s.cmd.Process.Pid
	base, _ := memory(t, pid)

	conns := make([]net.Conn, 0, idle)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port)
	for len(conns) < idle {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
	}
	waitFor(t, 30*time.Second, "the Sentinel to count every connection", func() bool {
		n, _ := strconv.Atoi(infoField(t, s.Port, "clients", "connected_clients"))
		return n >= idle
	})
	withIdle, _ := memory(t, pid)

	if !pingOK(client(t, s.Port)) {
		t.Fatal("PING failed with 10,000 idle connections")
	}
	waitFor(t, 10*time.Second, "mymaster to be monitored", func() bool { return monitoringOK(t, s.Port) })
	logs := watchAll(t, top)
	waitFailover(t, top, logs)

	_, peak := memory(t, pid)
	perConn := (withIdle - base) / idle
	t.Logf("go-sentinel (race build) RSS: %s before, %s with %d idle connections (%d bytes each), peak %s",
		mib(base), mib(withIdle), idle, perConn, mib(peak))
	// The race detector multiplies memory; a connection still must not
	// cost more than its buffers and goroutine would.
	if perConn > 64<<10 {
		t.Errorf("%d bytes per idle connection", perConn)
	}
}

// garbageHello returns one message for __sentinel__:hello that is not a
// usable hello: random bytes, the wrong number of fields, an unknown
// master, or mymaster announced from an address that is not an IP.
func garbageHello(rnd *rand.Rand) string {
	randBytes := func(n int) string {
		b := make([]byte, n)
		rnd.Read(b)
		return string(b)
	}
	switch rnd.Intn(5) {
	case 0:
		return randBytes(rnd.Intn(1000))
	case 1:
		return strings.Repeat(",", rnd.Intn(20)) + randBytes(rnd.Intn(200))
	case 2:
		return fmt.Sprintf("10.0.0.%d,%d,%040x,0,not-a-master-%d,127.0.0.1,6379,0", rnd.Intn(255), rnd.Intn(65536), rnd.Int63(), rnd.Intn(1000))
	case 3:
		return fmt.Sprintf("host-%d.invalid,26379,%040x,0,mymaster,127.0.0.1,%d,0%s", rnd.Intn(1000), rnd.Int63(), rnd.Intn(70000), strings.Repeat(" ", rnd.Intn(500)))
	default:
		return fmt.Sprintf("127.0.0.1,%d,%s,0,mymaster,,x,", 70000+rnd.Intn(1000), randBytes(rnd.Intn(600)))
	}
}

// TestHelloGarbageFlood publishes 100,000 garbage hellos to a go-sentinel
// from 4 connections, while another client sends 20,000 SENTINEL MASTERS
// and never reads a reply: PING keeps answering, monitoring goes on,
// nothing is learnt from the garbage, the master's death is still failed
// over, and the peak memory is measured (and bounded).
func TestHelloGarbageFlood(t *testing.T) {
	const (
		senders = 4
		each    = 25000
	)
	top := startData(t, 1)
	s := top.addGoSentinel(1, "")
	waitDiscovery(t, top)
	pid := s.cmd.Process.Pid
	base, _ := memory(t, pid)
	epoch := currentEpoch(t, top.confs[0])

	// The client that never reads: Redis would buffer its replies without
	// limit (class normal 0 0 0); go-sentinel stops reading from it.
	deaf, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.Close()
	go func() {
		w := bufio.NewWriter(deaf)
		for i := 0; i < 20000; i++ {
			w.WriteString("SENTINEL MASTERS\r\n")
		}
		_ = w.Flush()
	}()

	// PING every 50 ms meanwhile; count failures, note the slowest.
	stop := make(chan struct{})
	var pings, failures atomic.Int64
	var slowest atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := client(t, s.Port)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			t0 := time.Now()
			if !pingOK(c) {
				failures.Add(1)
			}
			pings.Add(1)
			if d := time.Since(t0); int64(d) > slowest.Load() {
				slowest.Store(int64(d))
			}
		}
	}()

	started := time.Now()
	errs := make(chan error, senders)
	for i := 0; i < senders; i++ {
		go func(seed int64) { errs <- flood(s.Port, rand.New(rand.NewSource(seed)), each) }(int64(i + 1))
	}
	var monitorFailures []string
	for done := 0; done < senders; {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatalf("flood: %v", err)
			}
			done++
		case <-time.After(500 * time.Millisecond):
			if !monitoringOK(t, s.Port) {
				flags, last := monitoring(t, s.Port)
				monitorFailures = append(monitorFailures, fmt.Sprintf("flags %q last-ok-ping-reply %d", flags, last))
			}
		}
		if time.Since(started) > 3*time.Minute {
			t.Fatal("the flood is not answered")
		}
	}
	took := time.Since(started)
	close(stop)
	wg.Wait()
	_, peakFlood := memory(t, pid)

	if len(monitorFailures) > 0 {
		t.Errorf("monitoring failed during the flood: %q", monitorFailures)
	}
	if failures.Load() > 0 {
		t.Errorf("%d of %d PINGs failed during the flood", failures.Load(), pings.Load())
	}
	if got := listLen(t, s.Port, "SENTINELS"); got != 0 {
		t.Errorf("the garbage added %d Sentinels", got)
	}
	if got := currentEpoch(t, top.confs[0]); got != epoch {
		t.Errorf("%q, was %q", got, epoch)
	}

	logs := watchAll(t, top)
	waitFailover(t, top, logs)
	_, peak := memory(t, pid)
	t.Logf("go-sentinel (race build): %d garbage hellos in %v over %d connections; %d PINGs meanwhile, slowest %v; RSS %s before, peak %s after the flood, %s after the failover",
		senders*each, took.Round(time.Millisecond), senders, pings.Load(), time.Duration(slowest.Load()).Round(time.Millisecond),
		mib(base), mib(peakFlood), mib(peak))
	if peakFlood-base > 256<<20 {
		t.Errorf("the flood grew the Sentinel by %s", mib(peakFlood-base))
	}
}

// TestSlowSubscriberMatchesRedis: a subscriber that pipelines PINGs and
// never reads the replies is closed at the pub/sub output buffer limit
// (32mb by default) by go-sentinel as by redis-sentinel, with the same
// log line.
func TestSlowSubscriberMatchesRedis(t *testing.T) {
	rx := regexp.MustCompile(`Client id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name= age=\d+ idle=\d+ flags=P db=0 sub=1 psub=0 .*scheduled to be closed ASAP for overcoming of output buffer limits\.`)
	for _, impl := range []string{"go-sentinel", "redis-sentinel"} {
		port := freePort(t)
		conf := writeConf(t, fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 %d 2\n", port, freePort(t)))
		var p *proc
		if impl == "go-sentinel" {
			p = startSentinel(t, conf, port, nil)
		} else {
			p = start(t, t.TempDir(), nil, needBinary(t, "redis-sentinel"), conf)
			waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(port) })
		}
		nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		fmt.Fprint(nc, "SUBSCRIBE ch\r\n")
		ping := fmt.Sprintf("PING %s\r\n", strings.Repeat("p", 60000))
		wrote := make(chan int64, 1)
		go func() {
			var n int64
			for i := 0; i < 2000; i++ { // 120 MB
				m, err := nc.Write([]byte(ping))
				n += int64(m)
				if err != nil {
					break
				}
			}
			wrote <- n
		}()
		waitFor(t, 60*time.Second, impl+" to drop the subscriber", func() bool { return rx.MatchString(p.out.String()) })
		_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, _ := io.Copy(io.Discard, nc)
		t.Logf("%s: closed the subscriber after it sent %s and received %s", impl, mib(<-wrote), mib(n))
	}
}

// currentEpoch returns the `sentinel current-epoch` line of a config file.
func currentEpoch(t *testing.T, conf string) string {
	t.Helper()
	for _, l := range strings.Split(readFile(t, conf), "\n") {
		if strings.HasPrefix(l, "sentinel current-epoch ") {
			return l
		}
	}
	return ""
}

// flood sends n garbage hellos as pipelined PUBLISH commands, in batches
// of 500, and reads the replies.
func flood(port int, rnd *rand.Rand, n int) error {
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	defer nc.Close()
	rd := bufio.NewReader(nc)
	w := bufio.NewWriter(nc)
	for sent := 0; sent < n; {
		batch := min(500, n-sent)
		for i := 0; i < batch; i++ {
			msg := garbageHello(rnd)
			fmt.Fprintf(w, "*3\r\n$7\r\nPUBLISH\r\n$18\r\n__sentinel__:hello\r\n$%d\r\n%s\r\n", len(msg), msg)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		for i := 0; i < batch; i++ {
			_ = nc.SetReadDeadline(time.Now().Add(60 * time.Second))
			l, err := rd.ReadString('\n')
			if err != nil {
				return fmt.Errorf("after %d replies: %w", sent+i, err)
			}
			if l[0] != ':' {
				return fmt.Errorf("PUBLISH answered %q", l)
			}
		}
		sent += batch
	}
	return nil
}

// TestMaxclientsMatchesRedis: with maxclients 3, the fourth connection to
// go-sentinel gets exactly what redis-sentinel sends, and a slot freed by
// a client that leaves is taken again.
func TestMaxclientsMatchesRedis(t *testing.T) {
	for _, impl := range []string{"go-sentinel", "redis-sentinel"} {
		port := freePort(t)
		conf := writeConf(t, fmt.Sprintf("port %d\nmaxclients 3\nsentinel monitor mymaster 127.0.0.1 %d 2\n", port, freePort(t)))
		if impl == "go-sentinel" {
			startSentinel(t, conf, port, nil)
		} else {
			p := start(t, t.TempDir(), nil, needBinary(t, "redis-sentinel"), conf)
			waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(port) })
			_ = p
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		var held []net.Conn
		for i := 0; i < 3; i++ {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprint(c, "PING\r\n")
			if l, err := bufio.NewReader(c).ReadString('\n'); l != "+PONG\r\n" {
				t.Fatalf("%s: client %d: %q %v", impl, i+1, l, err)
			}
			held = append(held, c)
		}
		fourth, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = fourth.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(fourth)
		fourth.Close()
		if string(got) != "-ERR max number of clients reached\r\n" || err != nil {
			t.Errorf("%s: fourth client got %q %v", impl, got, err)
		}
		held[0].Close()
		waitFor(t, 10*time.Second, impl+" to take a client again", func() bool {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return false
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(time.Second))
			fmt.Fprint(c, "PING\r\n")
			l, _ := bufio.NewReader(c).ReadString('\n')
			return l == "+PONG\r\n"
		})
	}
}

// TestHostileFramesMatchRedis sends malformed and borderline requests to
// go-sentinel and to redis-sentinel and compares what each answers and
// whether it closes the connection.
func TestHostileFramesMatchRedis(t *testing.T) {
	needBinary(t, "redis-sentinel")
	big := strings.Repeat("A", 70000)
	frames := []string{
		"*0\r\nPING\r\n", "*-1\r\nPING\r\n", "*3000000000\r\n", "*9223372036854775807\r\n",
		"*99999999999999999999\r\n", "*+1\r\n$4\r\nPING\r\n", "*01\r\n$4\r\nPING\r\n",
		"*1\r\n$-1\r\n", "*1\r\n$536870913\r\n", "*1\r\n$04\r\nPING\r\n", "*1\r\nx4\r\nPING\r\n",
		"*1\r\n\r\n", "*1\rX$4\r\nPING\r\n", "*1\r\n$4\r\nPINGxy*1\r\n$4\r\nPING\r\n",
		"PING \"unbalanced\r\n", "ping 'a'b\r\n", "PING\x00\r\nPING\r\n", "   \r\nPING\r\n",
		"\r\n\n\nPING\n", "PING \"\\x41\\n\"\r\n", "PING\r\n*1\r\n$x\r\nPING\r\n", "*1\r\n\xe94\r\n",
		big, "*" + strings.Repeat("1", 70000), "*1\r\n$" + strings.Repeat("1", 70000),
		"PING\x00" + big, "PING " + big[:60000] + "\r\n",
		"*2\r\n$4\r\nPING\r\n$100000\r\n" + strings.Repeat("z", 100000) + "\r\n",
	}
	// Replies are compared once the server went quiet for this long.
	const quiet = 300 * time.Millisecond
	exchange := func(port int, frame string) (string, bool) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() { _, _ = c.Write([]byte(frame)) }()
		var out []byte
		buf := make([]byte, 65536)
		for {
			_ = c.SetReadDeadline(time.Now().Add(quiet))
			n, err := c.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil {
				ne, ok := err.(net.Error)
				return string(out), !(ok && ne.Timeout())
			}
		}
	}
	for _, auth := range []string{"", "requirepass pw\n"} {
		goPort, redisPort := freePort(t), freePort(t)
		data := freePort(t)
		startSentinel(t, writeConf(t, fmt.Sprintf("port %d\n%ssentinel monitor mymaster 127.0.0.1 %d 2\n", goPort, auth, data)), goPort, nil)
		conf := writeConf(t, fmt.Sprintf("port %d\n%ssentinel monitor mymaster 127.0.0.1 %d 2\n", redisPort, auth, data))
		start(t, t.TempDir(), nil, needBinary(t, "redis-sentinel"), conf)
		waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(redisPort) })
		list := frames
		if auth != "" {
			list = append([]string{"*11\r\n", "*10\r\n", "*1\r\n$16385\r\n", "*1\r\n$16384\r\n",
				"*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*11\r\n$4\r\nPING\r\n"}, frames...)
		}
		for _, f := range list {
			want, wantClosed := exchange(redisPort, f)
			got, gotClosed := exchange(goPort, f)
			if got != want || gotClosed != wantClosed {
				t.Errorf("%s%.60q:\n go-sentinel    %.200q closed=%v\n redis-sentinel %.200q closed=%v", auth, f, got, gotClosed, want, wantClosed)
			}
		}
	}
}

// TestMaxclientsLoweredToFileLimitMatchesRedis starts go-sentinel and
// redis-sentinel as an unprivileged user with 200 open files at most and
// the default maxclients 10000: both lower maxclients to 168 with the same
// log lines.
func TestMaxclientsLoweredToFileLimitMatchesRedis(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the daemons as another user")
	}
	prlimit, setpriv := needBinary(t, "prlimit"), needBinary(t, "setpriv")
	want := []string{
		"You requested maxclients of 10000 requiring at least 10032 max file descriptors.",
		"Server can't set maximum open files to 10032 because of OS error: Operation not permitted.",
		"Current maximum open files is 200. maxclients has been reduced to 168 to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
	}
	for _, impl := range []string{sentinelBin, needBinary(t, "redis-sentinel")} {
		dir, err := os.MkdirTemp("", "lowfiles-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o777)
		port := freePort(t)
		conf := dir + "/sentinel.conf"
		os.WriteFile(conf, []byte(fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 %d 2\n", port, freePort(t))), 0o666)
		os.Chmod(conf, 0o666)
		p := start(t, dir, nil, setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", prlimit, "--nofile=200:200", impl, conf)
		waitFor(t, 10*time.Second, impl+" to answer", func() bool { return alive(port) })
		for _, l := range want {
			if !strings.Contains(p.out.String(), l) {
				t.Errorf("%s did not log %q", impl, l)
			}
		}
		if got := infoField(t, port, "clients", "maxclients"); got != "168" {
			t.Errorf("%s: INFO maxclients %s, want 168", impl, got)
		}
	}
}
