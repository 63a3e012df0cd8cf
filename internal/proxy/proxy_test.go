package proxy

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// echoServer is a stand-in master: it answers every line with its name
// and the line, and records the lines it got.
type echoServer struct {
	name string
	ln   net.Listener
	mu   sync.Mutex
	got  []string
}

func newEcho(t *testing.T, name string) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echoServer{name: name, ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						return
					}
					e.mu.Lock()
					e.got = append(e.got, strings.TrimSpace(l))
					e.mu.Unlock()
					if _, err := io.WriteString(c, e.name+" "+l); err != nil {
						return
					}
				}
			}()
		}
	}()
	return e
}

func (e *echoServer) addr() string { return e.ln.Addr().String() }

// routeVar is a Lookup whose route the test sets.
type routeVar struct{ v atomic.Pointer[Route] }

func (r *routeVar) set(rt Route) { r.v.Store(&rt) }
func (r *routeVar) lookup(string) (Route, bool) {
	p := r.v.Load()
	if p == nil {
		return Route{}, false
	}
	return *p, true
}

func start(t *testing.T, rv *routeVar, maxClients int) (*Server, string) {
	t.Helper()
	s := New(Config{Lookup: rv.lookup, MaxClients: maxClients, Denied: "-DENIED protected\r\n"})
	t.Cleanup(s.Close)
	if err := s.Sync(map[string][]string{"m": {"127.0.0.1:0"}}); err != nil {
		t.Fatal(err)
	}
	as := s.Addrs("m")
	if len(as) != 1 {
		t.Fatalf("listeners %v", as)
	}
	return s, as[0].String()
}

type client struct {
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	return &client{c: c, r: bufio.NewReader(c)}
}

// say sends a line and returns the reply line, or the error.
func (c *client) say(line string) (string, error) {
	if _, err := io.WriteString(c.c, line+"\n"); err != nil {
		return "", err
	}
	l, err := c.r.ReadString('\n')
	return strings.TrimSpace(l), err
}

func TestForwardsBothWays(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	s, addr := start(t, &rv, 0)
	c := dial(t, addr)
	for _, l := range []string{"*1", "$4", "PING", "hello world"} {
		got, err := c.say(l)
		if err != nil || got != "A "+l {
			t.Fatalf("say %q: %q, %v", l, got, err)
		}
	}
	st := s.MasterStats("m")
	if st.Open != 1 || st.Accepted != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestSwitchClosesAtOnce: when the master changes, a connection to the old
// one is closed and a new one lands on the new master; none ever reaches
// both.
func TestSwitchClosesAtOnce(t *testing.T) {
	a, b := newEcho(t, "A"), newEcho(t, "B")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	s, addr := start(t, &rv, 0)
	c := dial(t, addr)
	if got, err := c.say("x"); got != "A x" {
		t.Fatalf("%q %v", got, err)
	}
	rv.set(Route{Addr: b.addr(), Hold: time.Second})
	s.Notify()
	if _, err := c.r.ReadString('\n'); err == nil {
		t.Fatal("the connection to the old master stayed open")
	}
	c2 := dial(t, addr)
	if got, err := c2.say("y"); got != "B y" {
		t.Fatalf("%q %v", got, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, l := range a.got {
		if l == "y" {
			t.Error("the old master got a line sent after the switch")
		}
	}
	if s.MasterStats("m").Cut != 1 {
		t.Errorf("cut %d", s.MasterStats("m").Cut)
	}
}

// TestFencedHoldsThenForwards: a connection accepted while fenced waits;
// it is joined when the fence ends within the hold.
func TestFencedHoldsThenForwards(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Fenced: true, Reason: "test", Hold: 5 * time.Second})
	s, addr := start(t, &rv, 0)
	c := dial(t, addr)
	if _, err := io.WriteString(c.c, "early\n"); err != nil {
		t.Fatal(err)
	}
	// Nothing reaches the master while fenced: the line waits in the
	// client's socket.
	deadline := time.Now().Add(5 * time.Second)
	for s.MasterStats("m").Held == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the connection did not wait")
		}
		time.Sleep(time.Millisecond)
	}
	a.mu.Lock()
	n := len(a.got)
	a.mu.Unlock()
	if n != 0 {
		t.Fatal("a line reached the master while fenced")
	}
	rv.set(Route{Addr: a.addr(), Hold: 5 * time.Second})
	l, err := c.r.ReadString('\n')
	if err != nil || strings.TrimSpace(l) != "A early" {
		t.Fatalf("%q %v", l, err)
	}
}

// TestFencedHoldExpires: a connection that waits the hold out is closed
// without a byte reaching the master.
func TestFencedHoldExpires(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Fenced: true, Hold: 50 * time.Millisecond})
	s, addr := start(t, &rv, 0)
	c := dial(t, addr)
	_, _ = io.WriteString(c.c, "never\n")
	if _, err := c.r.ReadString('\n'); err == nil {
		t.Fatal("a fenced connection was answered")
	}
	if st := s.MasterStats("m"); st.HoldExpired != 1 {
		t.Errorf("stats %+v", st)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.got) != 0 {
		t.Errorf("the master got %q", a.got)
	}
}

// TestFencingCutsOpenConnections: when fencing starts, the open
// connections are closed.
func TestFencingCutsOpenConnections(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	_, addr := start(t, &rv, 0)
	c := dial(t, addr)
	if got, _ := c.say("x"); got != "A x" {
		t.Fatal(got)
	}
	rv.set(Route{Addr: a.addr(), Fenced: true, Hold: time.Second})
	if _, err := c.r.ReadString('\n'); err == nil {
		t.Fatal("open connection kept while fenced")
	}
}

func TestMaxClients(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	_, addr := start(t, &rv, 1)
	c := dial(t, addr)
	if got, _ := c.say("x"); got != "A x" {
		t.Fatal(got)
	}
	c2 := dial(t, addr)
	l, _ := c2.r.ReadString('\n')
	if l != maxClientsMsg {
		t.Errorf("second client got %q", l)
	}
}

// TestProtectedMode: without a password on the data nodes, a client from
// a non-loopback address is refused with the protected-mode error and
// nothing is dialled; a loopback one is served; with Protected off, both.
func TestProtectedMode(t *testing.T) {
	a := newEcho(t, "A")
	for _, tc := range []struct {
		protected, loopback bool
		served              bool
	}{
		{true, false, false},
		{true, true, true},
		{false, false, true},
	} {
		var rv routeVar
		rv.set(Route{Addr: a.addr(), Hold: time.Second, Protected: tc.protected})
		s := New(Config{Lookup: rv.lookup, Denied: "-DENIED protected\r\n"})
		var c net.Conn
		var r *bufio.Reader
		if tc.loopback {
			_ = s.Sync(map[string][]string{"m": {"127.0.0.1:0"}})
			cc, err := net.Dial("tcp", s.Addrs("m")[0].String())
			if err != nil {
				t.Fatal(err)
			}
			c = cc
		} else {
			// A pipe's remote address is not a loopback one.
			cl, sv := net.Pipe()
			s.wg.Add(1)
			go s.serve("m", sv)
			c = cl
		}
		r = bufio.NewReader(c)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		go func() { _, _ = io.WriteString(c, "x\n") }()
		l, _ := r.ReadString('\n')
		want := "-DENIED protected\r\n"
		if tc.served {
			want = "A x\n"
		}
		if l != want {
			t.Errorf("protected %v loopback %v: got %q, want %q", tc.protected, tc.loopback, l, want)
		}
		_ = c.Close()
		s.Close()
	}
}

// TestSyncStopsListeners: a master's proxy removed from the config stops
// listening and its connections close.
func TestSyncStopsListeners(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	s, addr := start(t, &rv, 0)
	c := dial(t, addr)
	if got, _ := c.say("x"); got != "A x" {
		t.Fatal(got)
	}
	if err := s.Sync(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.r.ReadString('\n'); err == nil {
		t.Fatal("connection kept after its proxy was removed")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("still listening")
	}
}

// TestFirstByteAfterSwitch: the first byte forwarded after Switched is
// timed once, against the switch.
func TestFirstByteAfterSwitch(t *testing.T) {
	a, b := newEcho(t, "A"), newEcho(t, "B")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	got := make(chan time.Duration, 4)
	s := New(Config{Lookup: rv.lookup, OnFirstByte: func(m string, d time.Duration) {
		if m == "m" {
			got <- d
		}
	}})
	t.Cleanup(s.Close)
	if err := s.Sync(map[string][]string{"m": {"127.0.0.1:0"}}); err != nil {
		t.Fatal(err)
	}
	addr := s.Addrs("m")[0].String()
	if l, _ := dial(t, addr).say("x"); l != "A x" {
		t.Fatal(l)
	}
	select {
	case d := <-got:
		t.Fatalf("timed %v without a switch", d)
	default:
	}
	at := time.Now()
	rv.set(Route{Addr: b.addr(), Hold: time.Second})
	s.Switched("m", at)
	c := dial(t, addr)
	if l, _ := c.say("y"); l != "B y" {
		t.Fatal(l)
	}
	d := <-got
	if d < 0 || d > time.Since(at) {
		t.Errorf("first byte %v after the switch, %v since", d, time.Since(at))
	}
	if l, _ := c.say("z"); l != "B z" {
		t.Fatal(l)
	}
	if l, _ := dial(t, addr).say("w"); l != "B w" {
		t.Fatal(l)
	}
	select {
	case d := <-got:
		t.Errorf("timed twice for one switch (%v)", d)
	default:
	}
	st := s.MasterStats("m")
	if st.BytesToMaster == 0 || st.Accepted != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestFencedTimeCounted: the time a listening proxy spends fenced adds
// up, and the state follows the route.
func TestFencedTimeCounted(t *testing.T) {
	a := newEcho(t, "A")
	var rv routeVar
	rv.set(Route{Addr: a.addr(), Fenced: true, Hold: time.Second})
	s, _ := start(t, &rv, 0)
	deadline := time.Now().Add(5 * time.Second)
	for s.MasterStats("m").FencedTime < 30*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", s.MasterStats("m"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !s.MasterStats("m").Fenced {
		t.Error("not shown fenced")
	}
	rv.set(Route{Addr: a.addr(), Hold: time.Second})
	for s.MasterStats("m").Fenced {
		if time.Now().After(deadline) {
			t.Fatal("still shown fenced")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
