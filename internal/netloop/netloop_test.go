//go:build linux

package netloop

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pair returns a connected client (a plain net.Conn) and the server end
// taken out of its net.TCPConn for h.
func pair(t *testing.T, h Handler) (net.Conn, *Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	sv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Take(sv.(*net.TCPConn), h)
	if err != nil {
		t.Fatal(err)
	}
	return cl, c
}

// echo writes back what it reads; it records the order of its calls to
// check that none comes after OnClose.
type echo struct {
	closes   atomic.Int32
	afterEnd atomic.Int32 // calls after OnClose
	closed   chan error
	maxPend  int
	paused   atomic.Int32
}

func newEcho() *echo { return &echo{closed: make(chan error, 1)} }

func (e *echo) OnData(c *Conn, b []byte) {
	if e.closes.Load() > 0 {
		e.afterEnd.Add(1)
	}
	if c.Write(b) != nil {
		return
	}
	if e.maxPend > 0 && c.Pending() > e.maxPend {
		c.PauseRead()
		e.paused.Add(1)
	}
}

func (e *echo) OnDrain(c *Conn) {
	if e.closes.Load() > 0 {
		e.afterEnd.Add(1)
	}
	c.ResumeRead()
}

func (e *echo) OnClose(_ *Conn, err error) {
	if e.closes.Add(1) == 1 {
		e.closed <- err
	}
}

// parkingTests makes the tests' loops parking ones (NewParking); TestMain
// runs every test both ways.
var parkingTests bool

// TestMain runs the tests with blocking loops, then with parking ones.
func TestMain(m *testing.M) {
	if code := m.Run(); code != 0 {
		os.Exit(code)
	}
	parkingTests = true
	os.Exit(m.Run())
}

func newGroup(t *testing.T, n int) *Group {
	t.Helper()
	g, err := startGroup(n, parkingTests)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// TestEcho: bytes of every size come back intact through Write, whether
// the kernel takes them at once or a pending buffer and EPOLLOUT finish
// the job; the peer's close reaches OnClose as io.EOF.
func TestEcho(t *testing.T) {
	g := newGroup(t, 2)
	for _, tc := range []struct {
		name string
		size int
	}{
		{"one byte", 1},
		{"4 KiB", 4 << 10},
		{"one read buffer", ReadBufferSize},
		{"8 MiB", 8 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEcho()
			// A small bound so that large echoes pause and resume.
			e.maxPend = 64 << 10
			cl, c := pair(t, e)
			if err := g.Next().Register(c); err != nil {
				t.Fatal(err)
			}
			want := make([]byte, tc.size)
			_, _ = rand.Read(want)
			_ = cl.SetDeadline(time.Now().Add(20 * time.Second))
			go func() { _, _ = cl.Write(want) }()
			got := make([]byte, tc.size)
			if _, err := io.ReadFull(cl, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("echoed bytes differ")
			}
			_ = cl.Close()
			if err := <-e.closed; !errors.Is(err, io.EOF) {
				t.Errorf("OnClose got %v, want EOF", err)
			}
			if e.afterEnd.Load() != 0 {
				t.Error("a callback after OnClose")
			}
		})
	}
}

// TestPendingBounded: a peer that does not read makes Pending grow past
// the bound once, the reader pauses, and the loop serves another
// connection meanwhile; when the peer reads, everything arrives.
func TestPendingBounded(t *testing.T) {
	g := newGroup(t, 1)
	stuck := newEcho()
	stuck.maxPend = 64 << 10
	scl, sc := pair(t, stuck)
	other := newEcho()
	ocl, oc := pair(t, other)
	l := g.Next()
	if err := l.Register(sc, oc); err != nil {
		t.Fatal(err)
	}
	// Write until the kernel refuses: the echo's replies fill the
	// client's receive buffer, then the server's send buffer, then
	// Pending, and then the loop stops reading, so that the client's
	// writes block.
	chunk := make([]byte, 64<<10)
	sent := 0
	for {
		_ = scl.SetWriteDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := scl.Write(chunk)
		sent += n
		if err != nil {
			break
		}
		if sent > 1<<30 {
			t.Fatal("1 GiB sent to a peer that echoes to a client that does not read")
		}
	}
	if stuck.paused.Load() == 0 {
		t.Error("the reader never paused")
	}
	var pend int
	done := make(chan struct{})
	if err := l.Submit(func() { pend = sc.Pending(); close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
	if pend > 64<<10+ReadBufferSize {
		t.Errorf("pending %d bytes, bound %d", pend, 64<<10+ReadBufferSize)
	}
	// The other connection on the same loop is served.
	_ = ocl.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := ocl.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	if _, err := io.ReadFull(ocl, b); err != nil || string(b) != "ping" {
		t.Fatalf("%q %v", b, err)
	}
	// Now read everything back.
	_ = scl.SetDeadline(time.Now().Add(20 * time.Second))
	go func() {
		_ = scl.(*net.TCPConn).CloseWrite()
	}()
	n, err := io.Copy(io.Discard, io.LimitReader(scl, int64(sent)))
	if err != nil || n != int64(sent) {
		t.Fatalf("read back %d of %d: %v", n, sent, err)
	}
}

// burst answers its first byte with size bytes, more than the socket
// buffers hold, so that most of them wait in Pending.
type burst struct {
	size   int
	sent   bool
	closed chan error
}

func (b *burst) OnData(c *Conn, _ []byte) {
	if !b.sent {
		b.sent = true
		_ = c.Write(bytes.Repeat([]byte{'x'}, b.size))
	}
}

func (b *burst) OnDrain(*Conn) {}

func (b *burst) OnClose(_ *Conn, err error) { b.closed <- err }

// TestHalfCloseKeepsPending: a peer that sends a request and shuts its
// side down at once (printf ... | nc -N) still gets the whole reply;
// the end of its input closes the Conn only after Pending is written,
// and OnClose gets io.EOF.
func TestHalfCloseKeepsPending(t *testing.T) {
	g := newGroup(t, 1)
	const size = 16 << 20
	h := &burst{size: size, closed: make(chan error, 1)}
	cl, c := pair(t, h)
	if err := g.Next().Register(c); err != nil {
		t.Fatal(err)
	}
	_ = cl.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := cl.Write([]byte("?")); err != nil {
		t.Fatal(err)
	}
	if err := cl.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, cl)
	if err != nil || n != size {
		t.Fatalf("read %d of %d bytes: %v", n, size, err)
	}
	if err := <-h.closed; !errors.Is(err, io.EOF) {
		t.Errorf("OnClose got %v, want EOF", err)
	}
}

// TestCloseRacesEvents: Close from other goroutines while the loop reads
// and writes: every Conn gets exactly one OnClose, no callback after it,
// under -race.
func TestCloseRacesEvents(t *testing.T) {
	g := newGroup(t, 2)
	const n = 200
	es := make([]*echo, n)
	var wg sync.WaitGroup
	for k := range n {
		e := newEcho()
		es[k] = e
		cl, c := pair(t, e)
		if err := g.Next().Register(c); err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			buf := make([]byte, 512)
			for range 20 {
				if _, err := cl.Write(buf); err != nil {
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			if k%2 == 0 {
				c.Close()
			}
			c.Close() // twice: a no-op
			_, _ = io.Copy(io.Discard, cl)
		}()
	}
	wg.Wait()
	for k, e := range es {
		<-e.closed
		if e.closes.Load() != 1 || e.afterEnd.Load() != 0 {
			t.Errorf("conn %d: %d closes, %d callbacks after", k, e.closes.Load(), e.afterEnd.Load())
		}
	}
}

// closer closes its peer in OnData: the peer's events of the same batch
// must not be delivered any more.
type closer struct {
	echo
	peer **Conn
}

func (c *closer) OnData(cn *Conn, b []byte) {
	if *c.peer != nil {
		(*c.peer).CloseNow(nil)
	}
	c.echo.OnData(cn, b)
}

// TestStaleEventsDropped: two sockets readable in the same epoll batch,
// the first closes the second in its OnData: the second gets no OnData
// after its OnClose, in many rounds.
func TestStaleEventsDropped(t *testing.T) {
	g := newGroup(t, 1)
	for range 200 {
		var b *Conn
		ea := &closer{echo: *newEcho(), peer: &b}
		eb := newEcho()
		acl, ac := pair(t, ea)
		bcl, bc := pair(t, eb)
		b = bc
		_, _ = acl.Write([]byte("a"))
		_, _ = bcl.Write([]byte("b"))
		if err := g.Next().Register(bc, ac); err != nil {
			t.Fatal(err)
		}
		<-eb.closed
		if eb.afterEnd.Load() != 0 {
			t.Fatal("an event of a closed Conn was delivered")
		}
		ac.Close()
		<-ea.closed
		_ = acl.Close()
		_ = bcl.Close()
	}
}

// openFDs counts this process's descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(es)
}

// TestNoDescriptorLeak: Conns closed every way (peer EOF, Close before
// and after Register, Register on a closed Loop, Group.Close) and the
// Group's own descriptors leave the count as it was.
func TestNoDescriptorLeak(t *testing.T) {
	before := openFDs(t)
	g, err := startGroup(2, parkingTests)
	if err != nil {
		t.Fatal(err)
	}
	var cls []net.Conn
	var es []*echo
	for k := range 40 {
		e := newEcho()
		es = append(es, e)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cl, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		sv, err := ln.Accept()
		_ = ln.Close()
		if err != nil {
			t.Fatal(err)
		}
		cls = append(cls, cl)
		c, err := Take(sv.(*net.TCPConn), e)
		if err != nil {
			t.Fatal(err)
		}
		switch k % 4 {
		case 0: // the peer closes
			_ = g.Next().Register(c)
			_ = cl.Close()
			<-e.closed
		case 1: // closed before it is registered
			c.Close()
			_ = g.Next().Register(c)
		case 2: // closed once registered
			_ = g.Next().Register(c)
			c.Close()
			<-e.closed
		case 3: // left to Group.Close
			_ = g.Next().Register(c)
		}
	}
	g.Close()
	for _, cl := range cls {
		_ = cl.Close()
	}
	l, err := newLoop(parkingTests)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := ln.Accept()
	c, err := Take(sv.(*net.TCPConn), newEcho())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Register(c); !errors.Is(err, ErrClosed) {
		t.Errorf("Register on a closed Loop: %v", err)
	}
	_ = cl.Close()
	_ = ln.Close()
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors before, %d after", before, after)
	}
}

// TestCloseWhenFlushed: a Conn closed with bytes pending delivers them
// all, then the end; one with none pending closes at once.
func TestCloseWhenFlushed(t *testing.T) {
	g := newGroup(t, 1)
	for _, size := range []int{0, 10, 32 << 20} {
		e := newEcho()
		cl, c := pair(t, e)
		l := g.Next()
		if err := l.Register(c); err != nil {
			t.Fatal(err)
		}
		want := make([]byte, size)
		_, _ = rand.Read(want)
		pending := make(chan int, 1)
		if err := l.Submit(func() {
			if size > 0 {
				_ = c.Write(want)
			}
			pending <- c.Pending()
			c.CloseWhenFlushed()
		}); err != nil {
			t.Fatal(err)
		}
		if p := <-pending; size == 32<<20 && p == 0 {
			t.Fatal("32 MiB taken by the kernel at once: nothing tested")
		}
		_ = cl.SetDeadline(time.Now().Add(20 * time.Second))
		got, err := io.ReadAll(cl)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: got %d bytes, %v", size, len(got), err)
		}
		if err := <-e.closed; err != nil {
			t.Errorf("OnClose got %v, want nil", err)
		}
	}
}
