package proxy

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// rawMaster is a stand-in master whose connections the test gets, to
// read, write and close them by hand.
type rawMaster struct {
	ln    net.Listener
	conns chan net.Conn
}

func newRawMaster(t *testing.T) *rawMaster {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &rawMaster{ln: ln, conns: make(chan net.Conn, 64)}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			m.conns <- c
		}
	}()
	return m
}

func (m *rawMaster) addr() string { return m.ln.Addr().String() }

// next is the master's side of the next proxied connection.
func (m *rawMaster) next(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-m.conns:
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no connection reached the master")
		return nil
	}
}

// startLoops is start with Config.Loops.
func startLoops(t *testing.T, rv *routeVar, loops int) (*Server, string) {
	t.Helper()
	s := New(Config{Lookup: rv.lookup, Loops: loops})
	t.Cleanup(s.Close)
	if err := s.Sync(map[string][]string{"m": {"127.0.0.1:0"}}); err != nil {
		t.Fatal(err)
	}
	return s, s.Addrs("m")[0].String()
}

// modes are the two ways a joined connection is served.
var modes = []struct {
	name  string
	loops int
}{{"event loop", 1}, {"goroutines", -1}}

// TestLargeValues: megabytes pass both ways intact, in one write each.
func TestLargeValues(t *testing.T) {
	for _, md := range modes {
		for _, size := range []int{1 << 20, 5<<20 + 7} {
			t.Run(md.name, func(t *testing.T) {
				m := newRawMaster(t)
				var rv routeVar
				rv.set(Route{Addr: m.addr(), Hold: time.Second})
				s, addr := startLoops(t, &rv, md.loops)
				c := dial(t, addr)
				_ = c.c.SetDeadline(time.Now().Add(20 * time.Second))
				up := make([]byte, size)
				down := make([]byte, size)
				_, _ = rand.Read(up)
				_, _ = rand.Read(down)
				go func() { _, _ = c.c.Write(up) }()
				mc := m.next(t)
				got := make([]byte, size)
				if _, err := io.ReadFull(mc, got); err != nil || !bytes.Equal(got, up) {
					t.Fatalf("to the master: %v, equal %v", err, bytes.Equal(got, up))
				}
				go func() { _, _ = mc.Write(down) }()
				if _, err := io.ReadFull(c.c, got); err != nil || !bytes.Equal(got, down) {
					t.Fatalf("to the client: %v, equal %v", err, bytes.Equal(got, down))
				}
				// The goroutines count a copy when it ends; the loop at
				// every read.
				st := s.MasterStats("m")
				if md.loops > 0 && (st.BytesToMaster != int64(size) || st.BytesToClient != int64(size)) {
					t.Errorf("counted %d to the master, %d to the client, want %d", st.BytesToMaster, st.BytesToClient, size)
				}
			})
		}
	}
}

// TestEOFClosesBoth: either side closing (or half-closing) ends both, and
// the connection is released.
func TestEOFClosesBoth(t *testing.T) {
	for _, md := range modes {
		for _, tc := range []struct {
			name string
			end  func(client, master net.Conn)
		}{
			{"client closes", func(c, _ net.Conn) { _ = c.Close() }},
			{"client half-closes", func(c, _ net.Conn) { _ = c.(*net.TCPConn).CloseWrite() }},
			{"master closes", func(_, m net.Conn) { _ = m.Close() }},
			{"master half-closes", func(_, m net.Conn) { _ = m.(*net.TCPConn).CloseWrite() }},
		} {
			t.Run(md.name+"/"+tc.name, func(t *testing.T) {
				m := newRawMaster(t)
				var rv routeVar
				rv.set(Route{Addr: m.addr(), Hold: time.Second})
				s, addr := startLoops(t, &rv, md.loops)
				c := dial(t, addr)
				if _, err := c.c.Write([]byte("x")); err != nil {
					t.Fatal(err)
				}
				mc := m.next(t)
				b := make([]byte, 1)
				if _, err := io.ReadFull(mc, b); err != nil {
					t.Fatal(err)
				}
				tc.end(c.c, mc)
				// Both sides see the end (the closed one's read fails at
				// once).
				if _, err := c.c.Read(b); err == nil {
					t.Error("the client's side stayed open")
				}
				if _, err := mc.Read(b); err == nil {
					t.Error("the master's side stayed open")
				}
				waitFor(t, func() bool { return s.MasterStats("m").Open == 0 }, "the connection is released")
			})
		}
	}
}

// waitFor polls cond (the proxy's accounting runs on its own goroutines)
// until it holds, failing after 5 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// TestSlowClientStallsNobody: a client that never reads its replies,
// on the same loop as another, stops the proxy reading its master once
// MaxPending waits for it (the master's writes then block: memory is
// bounded), while the other client is served.
func TestSlowClientStallsNobody(t *testing.T) {
	m := newRawMaster(t)
	var rv routeVar
	rv.set(Route{Addr: m.addr(), Hold: time.Second})
	_, addr := startLoops(t, &rv, 1)
	slow := dial(t, addr)
	if _, err := slow.c.Write([]byte("flood\n")); err != nil {
		t.Fatal(err)
	}
	ms := m.next(t)
	b := make([]byte, 6)
	if _, err := io.ReadFull(ms, b); err != nil {
		t.Fatal(err)
	}
	// The master floods the client that does not read until its writes
	// block: the client's receive buffer, the proxy's send buffer,
	// MaxPending, the proxy's receive buffer and the master's send
	// buffer are full.
	chunk := make([]byte, 64<<10)
	sent := 0
	for {
		_ = ms.SetWriteDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := ms.Write(chunk)
		sent += n
		if err != nil {
			break
		}
		if sent > 256<<20 {
			t.Fatal("256 MiB went into a proxy whose client does not read")
		}
	}
	t.Logf("%d KiB in flight before the master's writes blocked", sent>>10)
	// Another client on the same (only) loop is served meanwhile.
	fast := dial(t, addr)
	if _, err := fast.c.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	mf := m.next(t)
	b = make([]byte, 5)
	if _, err := io.ReadFull(mf, b); err != nil || string(b) != "ping\n" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := mf.Write([]byte("+PONG\r\n")); err != nil {
		t.Fatal(err)
	}
	if l, err := fast.r.ReadString('\n'); err != nil || l != "+PONG\r\n" {
		t.Fatalf("%q %v", l, err)
	}
	// The slow client reads at last: every byte arrives.
	_ = slow.c.SetDeadline(time.Now().Add(20 * time.Second))
	_ = ms.SetWriteDeadline(time.Time{})
	go func() { _ = ms.Close() }()
	n, _ := io.Copy(io.Discard, slow.r)
	if n != int64(sent) {
		t.Errorf("the slow client got %d bytes of %d", n, sent)
	}
}

// TestSwitchCutsEveryConnection: at a switch every connection to the old
// master is closed (and counted), on however many loops they are.
func TestSwitchCutsEveryConnection(t *testing.T) {
	for _, md := range []struct {
		name  string
		loops int
	}{{"one loop", 1}, {"two loops", 2}, {"goroutines", -1}} {
		t.Run(md.name, func(t *testing.T) {
			a, b := newEcho(t, "A"), newEcho(t, "B")
			var rv routeVar
			rv.set(Route{Addr: a.addr(), Hold: time.Second})
			s, addr := startLoops(t, &rv, md.loops)
			const n = 30
			cs := make([]*client, n)
			for k := range cs {
				cs[k] = dial(t, addr)
				if got, err := cs[k].say("x"); got != "A x" {
					t.Fatalf("%q %v", got, err)
				}
			}
			rv.set(Route{Addr: b.addr(), Hold: time.Second})
			s.Notify()
			for k, c := range cs {
				if _, err := c.r.ReadString('\n'); err == nil {
					t.Fatalf("connection %d to the old master stayed open", k)
				}
			}
			waitFor(t, func() bool { return s.MasterStats("m").Open == 0 }, "all released")
			if got := s.MasterStats("m").Cut; got != n {
				t.Errorf("cut %d, want %d", got, n)
			}
		})
	}
}

// TestCutRacesTraffic: connections cut while bytes flow both ways, many
// rounds (run with -race): every connection ends and is released.
func TestCutRacesTraffic(t *testing.T) {
	a, b := newEcho(t, "A"), newEcho(t, "B")
	var rv routeVar
	s := New(Config{Lookup: rv.lookup, Loops: 2, Poll: time.Hour})
	t.Cleanup(s.Close)
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	if err := s.Sync(map[string][]string{"m": {"127.0.0.1:0"}}); err != nil {
		t.Fatal(err)
	}
	addr := s.Addrs("m")[0].String()
	for round := range 20 {
		target, other := a, b
		if round%2 == 1 {
			target, other = b, a
		}
		rv.set(Route{Addr: target.addr(), Hold: time.Second})
		s.check()
		var wg sync.WaitGroup
		for range 10 {
			c := dial(t, addr)
			// One answer first: the connection is joined to target, so
			// the cut below ends it (one still waiting for its route
			// when the route changes rightly joins the other master).
			if _, err := c.say("r"); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; ; k++ {
					if _, err := c.say("r"); err != nil {
						return
					}
				}
			}()
		}
		waitFor(t, func() bool { return s.MasterStats("m").Open == 10 }, "10 joined")
		rv.set(Route{Addr: other.addr(), Hold: time.Second})
		s.check()
		wg.Wait()
		waitFor(t, func() bool { return s.MasterStats("m").Open == 0 }, "all released")
	}
}

// TestNoDescriptorLeak: after connections closed every way and Close,
// the process has the descriptors it had.
func TestNoDescriptorLeak(t *testing.T) {
	count := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip(err)
		}
		return len(es)
	}
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			a := newEcho(t, "A")
			before := count()
			var rv routeVar
			rv.set(Route{Addr: a.addr(), Hold: time.Second})
			s := New(Config{Lookup: rv.lookup, Loops: md.loops, MaxClients: 15})
			if err := s.Sync(map[string][]string{"m": {"127.0.0.1:0"}}); err != nil {
				t.Fatal(err)
			}
			addr := s.Addrs("m")[0].String()
			var cs []net.Conn
			for k := range 20 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				cs = append(cs, c)
				_, _ = io.WriteString(c, "x\n")
				buf := make([]byte, 64)
				_, _ = c.Read(buf) // an echo, or the MaxClients refusal
				if k%3 == 0 {
					_ = c.Close()
				}
			}
			s.Close()
			for _, c := range cs {
				_ = c.Close()
			}
			// The stand-in master closes its ends on its goroutines.
			waitFor(t, func() bool { return count() <= before }, "descriptors back to their count")
		})
	}
}

// TestEOFAfterBytesDeliversThem: a master that writes megabytes and
// closes before the client reads any: the client gets every byte, then
// the end (what a copy that ends at EOF did). Whether the EOF reaches the
// loop while bytes are still pending depends on the socket buffers;
// netloop's TestCloseWhenFlushed covers that step itself.
func TestEOFAfterBytesDeliversThem(t *testing.T) {
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			m := newRawMaster(t)
			var rv routeVar
			rv.set(Route{Addr: m.addr(), Hold: time.Second})
			s, addr := startLoops(t, &rv, md.loops)
			c := dial(t, addr)
			_ = c.c.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := c.c.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
			mc := m.next(t)
			b := make([]byte, 1)
			if _, err := io.ReadFull(mc, b); err != nil {
				t.Fatal(err)
			}
			want := make([]byte, 8<<20)
			_, _ = rand.Read(want)
			done := make(chan error, 1)
			go func() {
				_, err := mc.Write(want)
				_ = mc.Close()
				done <- err
			}()
			// Let the proxy take what the sockets hold before reading.
			if md.loops > 0 {
				waitFor(t, func() bool { return s.MasterStats("m").BytesToClient > 1<<20 }, "bytes pending in the proxy")
			}
			got, err := io.ReadAll(c.c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, want %d (equal %v)", len(got), len(want), bytes.Equal(got, want))
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return s.MasterStats("m").Open == 0 }, "the connection is released")
		})
	}
}

// TestDefaultLoops: one loop per two of netloop's default, at least one.
func TestDefaultLoops(t *testing.T) {
	n := DefaultLoops()
	if want := max(1, netloop.DefaultLoops()/2); n != want {
		t.Errorf("DefaultLoops() = %d, want %d", n, want)
	}
}
