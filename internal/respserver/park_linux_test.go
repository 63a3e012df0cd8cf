//go:build linux

package respserver

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startParkServer serves a test server whose clients are parked once idle
// for after.
func startParkServer(t *testing.T, after time.Duration, mutate func(*Options)) (*Server, string) {
	t.Helper()
	srv, _ := newTestServer(mutate)
	srv.parkAfter = after
	return srv, serveTestServer(t, srv)
}

// waitUntil polls cond until it holds, or fails the test after 10 s with
// the goroutines of the package.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, packageGoroutines())
		}
		time.Sleep(time.Millisecond) // polling, not synchronising
	}
}

// packageGoroutines returns the stacks of the goroutines running this
// package's code.
func packageGoroutines() string {
	buf := make([]byte, 1<<20)
	var out []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "respserver.(") && !strings.Contains(g, "packageGoroutines") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

// skipOnLoops skips a test of parking when TCP clients are served by
// event loops, where nothing is parked (loop_test.go tests their idle
// clients).
func skipOnLoops(t *testing.T) {
	t.Helper()
	if useLoops {
		t.Skip("TCP clients are served by event loops: none is parked")
	}
}

// isParked reports whether the client id is parked.
func isParked(srv *Server, id int64) bool {
	p := &srv.parking
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.parked[id] != nil
}

// clientID asks the server for the connection's client ID.
func clientID(t *testing.T, c interface{ Do(...string) string }) int64 {
	t.Helper()
	var id int64
	if _, err := fmt.Sscanf(c.Do("CLIENT", "ID"), ":%d\r\n", &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// listenDial listens on network and address and returns a connection
// dialed to it; both end with the test.
func listenDial(t *testing.T, network, address string) net.Conn {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	c, err := net.Dial(network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestCanPark(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tc := listenDial(t, "tcp", "127.0.0.1:0")
	uc := listenDial(t, "unix", filepath.Join(t.TempDir(), "s"))
	for _, tt := range []struct {
		name string
		conn net.Conn
		want bool
	}{
		{"tcp", tc, true},
		{"counted tcp", &countingConn{Conn: tc, st: &stats{}}, true},
		{"unix", uc, true},
		{"tls", tls.Client(tc, &tls.Config{}), false},
		{"counted tls", &countingConn{Conn: tls.Client(tc, &tls.Config{}), st: &stats{}}, false},
		{"pipe", a, false},
	} {
		if got := canPark(tt.conn); got != tt.want {
			t.Errorf("canPark(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestParkedClientIsWoken: a new connection that sends nothing is parked,
// a client idle for parkAfter is parked again, and a parked one is served
// as soon as it sends; a client stopped half way through a request is not
// parked.
func TestParkedClientIsWoken(t *testing.T) {
	skipOnLoops(t)
	srv, addr := startParkServer(t, 5*time.Millisecond, nil)
	c := dial(t, addr)
	waitUntil(t, "the new connection to be parked", func() bool { return srv.parkedClients() == 1 })
	id := clientID(t, c)
	for i := 0; i < 3; i++ {
		waitUntil(t, "the client to be parked again", func() bool { return isParked(srv, id) })
		if got := c.Do("PING", fmt.Sprint(i)); got != fmt.Sprintf("$1\r\n%d\r\n", i) {
			t.Fatalf("PING after parking: %q", got)
		}
	}
	waitUntil(t, "the client to be parked again", func() bool { return isParked(srv, id) })
	if list := c.Do("CLIENT", "LIST"); !strings.Contains(list, fmt.Sprintf("id=%d ", id)) || !strings.Contains(list, "cmd=client|list ") {
		t.Fatalf("CLIENT LIST of a woken client: %q", list)
	}

	waitUntil(t, "the client to be parked again", func() bool { return isParked(srv, id) })
	c.Send("*2\r\n$4\r\nPING\r\n$5\r\nhel")
	waitUntil(t, "the client to be woken", func() bool { return !isParked(srv, id) })
	for end := time.Now().Add(20 * srv.parkAfter); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if isParked(srv, id) {
			t.Fatal("a client was parked in the middle of a request")
		}
	}
	c.Send("lo\r\n")
	if got := c.Reply(); got != "$5\r\nhello\r\n" {
		t.Fatalf("a request completed after a pause: %q", got)
	}
	if n := srv.stats.commands.Load(); n != 6 {
		t.Errorf("%d commands counted, want 6", n)
	}
}

// TestParkedAtAccept: past parkNewLimit new connections waiting for their
// first request (0 here), a new connection is parked at once, and served
// when it sends, whether its request came before it was accepted or long
// after; killed, it is forgotten.
func TestParkedAtAccept(t *testing.T) {
	skipOnLoops(t)
	srv, _ := newTestServer(nil)
	srv.parkAfter, srv.parkNewLimit = 5*time.Millisecond, 0
	addr := serveTestServer(t, srv)
	early, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	early.SetDeadline(time.Now().Add(10 * time.Second))
	early.Write([]byte("PING early\r\n"))
	buf := make([]byte, 11)
	if _, err := io.ReadFull(early, buf); err != nil || string(buf) != "$5\r\nearly\r\n" {
		t.Fatalf("a request sent before the accept: %q %v", buf, err)
	}
	late, victim := dial(t, addr), dial(t, addr)
	waitUntil(t, "the new connections to be parked", func() bool { return srv.parkedClients() == 3 })
	if srv.newWaiting.Load() != 0 {
		t.Fatalf("%d new connections counted as waiting", srv.newWaiting.Load())
	}
	if got := late.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("a request sent after parking: %q", got)
	}
	vid := int64(0)
	for _, c := range srv.clientList() {
		c.mu.Lock()
		never := c.lastCmd == "NULL"
		c.mu.Unlock()
		if never && isParked(srv, c.ID) {
			vid = c.ID
		}
	}
	if got := late.Do("CLIENT", "KILL", "ID", fmt.Sprint(vid)); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL of a client parked at accept: %q", got)
	}
	if !victim.Closed() {
		t.Fatal("the killed client's connection is open")
	}
	waitUntil(t, "the killed client to be forgotten", func() bool { return len(srv.clientList()) == 2 && !isParked(srv, vid) })
}

// TestClientKilledWhileParked: CLIENT KILL of a parked subscriber closes
// it and forgets it (registry and subscriptions) although no goroutine
// serves it; an event for a client no longer parked is ignored, and the
// poller goes on serving the others.
func TestClientKilledWhileParked(t *testing.T) {
	skipOnLoops(t)
	srv, addr := startParkServer(t, 5*time.Millisecond, nil)
	a, b, k := dial(t, addr), dial(t, addr), dial(t, addr)
	aid, bid := clientID(t, a), clientID(t, b)
	if got := a.Do("SUBSCRIBE", "ch"); got != "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatal(got)
	}
	waitUntil(t, "a to be parked", func() bool { return isParked(srv, aid) })
	if got := k.Do("CLIENT", "KILL", "ID", fmt.Sprint(aid)); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL of a parked client: %q", got)
	}
	if !a.Closed() {
		t.Fatal("the killed client's connection is open")
	}
	waitUntil(t, "the killed client to be forgotten", func() bool {
		return len(srv.clientList()) == 2 && !isParked(srv, aid)
	})
	if n := srv.Publish("ch", "m"); n != 0 {
		t.Fatalf("a killed parked client still receives: %d", n)
	}
	if list := k.Do("CLIENT", "LIST"); strings.Contains(list, fmt.Sprintf("id=%d ", aid)) {
		t.Fatalf("a killed parked client is listed: %q", list)
	}

	// A stale event: a's ID on a readable descriptor (one shot).
	var pipe [2]int
	if err := syscall.Pipe2(pipe[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(pipe[0])
	defer syscall.Close(pipe[1])
	ev := syscall.EpollEvent{Events: parkEvents}
	setToken(&ev, aid)
	srv.parking.mu.Lock()
	epfd := srv.parking.epfd
	srv.parking.mu.Unlock()
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, pipe[0], &ev); err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.Write(pipe[1], []byte{1}); err != nil {
		t.Fatal(err)
	}
	// The stale event is ready before b's: b being served shows the
	// poller went past it.
	waitUntil(t, "b to be parked", func() bool { return isParked(srv, bid) })
	if got := b.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after a stale event: %q", got)
	}
	if n := len(srv.clientList()); n != 2 || isParked(srv, aid) {
		t.Fatalf("after a stale event: %d clients, a parked %v", n, isParked(srv, aid))
	}
}

// TestParkedSubscriber: a parked subscriber gets what is published (its
// writer runs without its reader) and is served when it sends.
func TestParkedSubscriber(t *testing.T) {
	skipOnLoops(t)
	srv, addr := startParkServer(t, 5*time.Millisecond, nil)
	s := dial(t, addr)
	if got := s.Do("SUBSCRIBE", "ch"); got != "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatal(got)
	}
	waitUntil(t, "the subscriber to be parked", func() bool { return srv.parkedClients() == 1 })
	for i := 0; i < 3; i++ {
		if n := srv.Publish("ch", fmt.Sprint(i)); n != 1 {
			t.Fatalf("published to %d", n)
		}
		if got, want := s.Reply(), fmt.Sprintf("*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\n%d\r\n", i); got != want {
			t.Fatalf("message %d: %q", i, got)
		}
	}
	if srv.parkedClients() != 1 {
		t.Fatal("publishing woke the subscriber's reader")
	}
	if got := s.Do("UNSUBSCRIBE"); got != "*3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n" {
		t.Fatal(got)
	}
}

// TestParkedClientIdleTimeout: the `timeout` directive closes a parked
// client and forgets it.
func TestParkedClientIdleTimeout(t *testing.T) {
	skipOnLoops(t)
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	srv, addr := startParkServer(t, 5*time.Millisecond, func(o *Options) {
		o.IdleTimeout = 5 * time.Second
		o.Now = clock.now
	})
	c := dial(t, addr)
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatal(got)
	}
	waitUntil(t, "the client to be parked", func() bool { return srv.parkedClients() == 1 })
	clock.add(10 * time.Second)
	if !c.Closed() {
		t.Fatal("an idle parked client was not closed")
	}
	waitUntil(t, "the client to be forgotten", func() bool {
		return len(srv.clientList()) == 0 && srv.parkedClients() == 0
	})
}

// TestParkedClientsCountForMaxclients: parked clients are connected
// clients: maxclients refuses the next one.
func TestParkedClientsCountForMaxclients(t *testing.T) {
	skipOnLoops(t)
	srv, addr := startParkServer(t, 5*time.Millisecond, func(o *Options) { o.Maxclients = 2 })
	dial(t, addr)
	dial(t, addr)
	waitUntil(t, "both to be parked", func() bool { return srv.parkedClients() == 2 })
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if got := readUntilClosed(t, nc); got != maxclientsMsg {
		t.Fatalf("third client got %q", got)
	}
}

// goroutinesRunning reports whether a goroutine's stack has fn.
func goroutinesRunning(fn string) bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), fn)
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents) - 1 // the directory's own
}

// TestCloseWithParkedClients: Close returns with clients parked, parked
// after a command, subscribed, and halfway through a request; the poller
// returns and its descriptors are closed.
func TestCloseWithParkedClients(t *testing.T) {
	skipOnLoops(t)
	waitUntil(t, "the goroutines of earlier tests to end", func() bool {
		return !goroutinesRunning("respserver.(*Server).poll(") && !goroutinesRunning("respserver.(*Server).readLoop(")
	})
	fds := openFDs(t)
	srv, _ := newTestServer(nil)
	srv.parkAfter = 5 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.ServeListener(ln)
	addr := ln.Addr().String()
	var conns []net.Conn
	dialRaw := func(send string) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, nc)
		nc.Write([]byte(send))
	}
	for i := 0; i < 20; i++ {
		dialRaw("")
	}
	for i := 0; i < 5; i++ {
		dialRaw("PING\r\n")
	}
	dialRaw("SUBSCRIBE ch\r\n")
	dialRaw("*2\r\n$4\r\nPING\r\n")
	waitUntil(t, "26 clients to be parked", func() bool { return srv.parkedClients() == 26 && len(srv.clientList()) == 27 })

	done := make(chan struct{})
	go func() {
		srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs with parked clients")
	}
	for _, nc := range conns {
		readUntilClosed(t, nc)
		nc.Close()
	}
	if n, p := len(srv.clientList()), srv.parkedClients(); n != 0 || p != 0 {
		t.Fatalf("after Close: %d clients, %d parked", n, p)
	}
	if goroutinesRunning("respserver.(*Server).poll(") {
		t.Fatal("the poller outlived Close")
	}
	waitUntil(t, "the descriptors to be closed", func() bool { return openFDs(t) <= fds })
}

// echoLoop connects and sends rounds PINGs with an argument, one at a time, checking each
// reply.
func echoLoop(addr string, w, rounds int) error {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	rd := bufio.NewReader(nc)
	for i := 0; i < rounds; i++ {
		msg := fmt.Sprintf("w%d-%d", w, i)
		want := fmt.Sprintf("$%d\r\n%s\r\n", len(msg), msg)
		if _, err := fmt.Fprintf(nc, "*2\r\n$4\r\nPING\r\n$%d\r\n%s\r\n", len(msg), msg); err != nil {
			return fmt.Errorf("worker %d: %w", w, err)
		}
		got := make([]byte, len(want))
		if _, err := io.ReadFull(rd, got); err != nil || string(got) != want {
			return fmt.Errorf("worker %d: %q %v, want %q", w, got, err, want)
		}
	}
	return nil
}

// victim connects, sends its ID to ids, then PINGs until it is killed.
func victim(addr string, ids chan<- int64) error {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	rd := bufio.NewReader(nc)
	nc.Write([]byte("CLIENT ID\r\n"))
	var id int64
	if _, err := fmt.Fscanf(rd, ":%d\r\n", &id); err != nil {
		return fmt.Errorf("victim: %w", err)
	}
	ids <- id
	for {
		if _, err := nc.Write([]byte("PING\r\n")); err != nil {
			return nil
		}
		if _, err := rd.ReadString('\n'); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return errors.New("victim not killed")
			}
			return nil // killed
		}
	}
}

// TestParkingConcurrent: many clients parked and woken at every request at
// once, some killed at random moments, and subscribers receiving while
// parked: every reply is right and every client is accounted for (run it
// with -race).
func TestParkingConcurrent(t *testing.T) {
	skipOnLoops(t)
	srv, addr := startParkServer(t, time.Microsecond, nil) // parked after every request
	const workers, victims, subs, rounds = 32, 8, 4, 30
	var wg sync.WaitGroup
	errs := make(chan error, workers+victims)
	ids := make(chan int64, victims)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := echoLoop(addr, w, rounds); err != nil {
				errs <- err
			}
		}()
	}
	for v := 0; v < victims; v++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := victim(addr, ids); err != nil {
				errs <- err
			}
		}()
	}
	subConns := make([]net.Conn, subs)
	for i := range subConns {
		subConns[i] = subscriber(t, addr, "ch")
	}
	killer := dial(t, addr)
	for v := 0; v < victims; v++ {
		if got := killer.Do("CLIENT", "KILL", "ID", fmt.Sprint(<-ids)); got != ":1\r\n" {
			t.Errorf("kill: %q", got)
		}
	}
	for i := 0; i < rounds; i++ {
		if n := srv.Publish("ch", fmt.Sprint(i)); n != subs {
			t.Fatalf("published to %d subscribers", n)
		}
	}
	for i, nc := range subConns {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		for j := 0; j < rounds; j++ {
			want := fmt.Sprintf("*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$%d\r\n%d\r\n", len(fmt.Sprint(j)), j)
			got := make([]byte, len(want))
			if _, err := io.ReadFull(nc, got); err != nil || string(got) != want {
				t.Fatalf("subscriber %d message %d: %q %v", i, j, got, err)
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The workers are done and the victims killed: the subscribers and
	// the killer remain.
	waitUntil(t, "the others to be forgotten", func() bool { return len(srv.clientList()) == subs+1 })
	if n := srv.newWaiting.Load(); n != 0 {
		t.Errorf("%d new connections counted as waiting", n)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPingPong is one client's request and reply loop, as
// redis-benchmark's: with parking after 250 ms idle (never, here) and
// with a client parked after every reply, what parking whenever a read
// would block would cost. cpu-ns/op is the whole process's CPU time per
// request, both ends.
func BenchmarkPingPong(b *testing.B) {
	for _, bc := range []struct {
		name  string
		after time.Duration
	}{{"park-after-idle", defaultParkAfter}, {"park-every-request", time.Nanosecond}} {
		b.Run(bc.name, func(b *testing.B) {
			srv, _ := newTestServer(nil)
			srv.parkAfter = bc.after
			nc, err := net.Dial("tcp", serveTestServer(b, srv))
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			buf := make([]byte, 7)
			b.ResetTimer()
			start := cpuTime()
			for range b.N {
				if _, err := nc.Write([]byte("PING\r\n")); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != "+PONG\r\n" {
					b.Fatalf("%q %v", buf, err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
