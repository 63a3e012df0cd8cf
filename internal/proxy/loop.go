package proxy

import (
	"errors"
	"io"
	"net"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// DefaultLoops is the number of event loops a proxy gets by default: one
// per two of netloop.DefaultLoops (Go's Ps, at most 4), at least one.
// Most of a proxied request's cost is the kernel's, much of it the peers'
// side of loopback TCP run in the loop's system calls, and the peers (the
// clients, the master) need the other cores. On 2 cores, in bench-proxy's
// rig (redis-benchmark -c 50 SET, 2026-12-04), one loop took 7.4 µs of
// CPU per request (6.7–8.0 in 20 runs) against 8.8 µs for two (7.4–10.6
// in 20, their two threads each sleeping and waking for fewer events),
// and in one bench-proxy run 7.85 µs against 9.80, HAProxy 9.03.
func DefaultLoops() int {
	return max(1, netloop.DefaultLoops()/2)
}

// loopLinger is how long a proxy loop waits for more events, keeping its
// P, before it blocks through the runtime (netloop.Loop.SetLinger): a
// proxied request's reply, and a client's next request, come within
// microseconds. Measured with one client (bench-proxy -c 1, five rounds,
// one run beside the loop that yielded its P before every wait): 38.0 µs
// of CPU and 1.92 + 0.27 context switches per request against 43.9 µs
// and 3.29 + 0.86 (HAProxy 31.8 µs, 1.55 + 0.46); with 50 clients, with
// and without -P 16, no change beyond the rounds' spread.
const loopLinger = time.Millisecond

// group returns the event loops, started at the first call; nil when
// there are none (Config.Loops < 0, not supported, failed to start).
func (s *Server) group() *netloop.Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loops != nil || s.loopsFailed || s.closed {
		return s.loops
	}
	if s.cfg.Loops < 0 {
		s.loopsFailed = true
		return nil
	}
	n := s.cfg.Loops
	if n == 0 {
		n = DefaultLoops()
	}
	g, err := netloop.New(n)
	if err != nil {
		s.loopsFailed = true
		if !errors.Is(err, netloop.ErrUnsupported) {
			s.logf("proxy: no event loop, a goroutine per direction: %v", err)
		}
		return nil
	}
	_ = g.SetLinger(loopLinger) // an error only from loops already closing
	s.loops = g
	return g
}

// toLoop hands j's two sockets to one event loop, which then forwards
// and, when either side ends, closes both and releases j. It reports
// false, leaving j as it was, when there is no loop (the caller copies).
func (s *Server) toLoop(j *joined) bool {
	cc, ok1 := j.client.(*net.TCPConn)
	sc, ok2 := j.server.(*net.TCPConn)
	if !ok1 || !ok2 {
		return false
	}
	g := s.group()
	if g == nil {
		return false
	}
	// Go sets TCP_NODELAY on its sockets already; it is what makes one
	// write per message go out at once, so say it.
	_ = cc.SetNoDelay(true)
	_ = sc.SetNoDelay(true)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return false
	}
	lc, err := netloop.Take(cc, &side{j: j, toMaster: true})
	if err != nil {
		j.closed = true
		_ = sc.Close()
		return false
	}
	ls, err := netloop.Take(sc, &side{j: j})
	if err != nil {
		j.closed = true
		lc.Close()
		return false
	}
	j.lc, j.ls = lc, ls
	if err := g.Next().Register(lc, ls); err != nil {
		// The loops are closing with the Server; Register closed both.
		j.closed = true
		return false
	}
	return true
}

// side is the netloop.Handler of one socket of a joined connection.
type side struct {
	j        *joined
	toMaster bool // the client's socket: what it reads goes to the master
}

// peer is the other socket of the connection.
func (sd *side) peer() *netloop.Conn {
	if sd.toMaster {
		return sd.j.ls
	}
	return sd.j.lc
}

// OnData forwards b to the other side, with backpressure: beyond
// MaxPending waiting there, this side is not read until they drain.
func (sd *side) OnData(c *netloop.Conn, b []byte) {
	j := sd.j
	if j.dead.Load() {
		c.CloseNow(nil)
		return
	}
	// Counted before the write, so that a reader of the counters never
	// sees fewer bytes than the other end has received.
	if sd.toMaster {
		j.ct.toMaster.Add(int64(len(b)))
	} else {
		j.ct.toClient.Add(int64(len(b)))
	}
	p := sd.peer()
	if p.Write(b) != nil {
		return // p is closed, and so is c (OnClose)
	}
	if sd.toMaster && !j.sent {
		j.sent = true
		j.srv.firstByte(j.master)
	}
	if p.Pending() > MaxPending {
		c.PauseRead()
	}
}

// OnDrain reads the other side again: what it sends here is written.
func (sd *side) OnDrain(*netloop.Conn) {
	sd.peer().ResumeRead()
}

// OnClose ends the other side too (an EOF or error on either side ends
// both): after an EOF, once the bytes read from this side before it are
// written there (as a copy that ends at EOF writes what it read), else at
// once. The connection is released when both are closed.
func (sd *side) OnClose(_ *netloop.Conn, err error) {
	j := sd.j
	j.dead.Store(true)
	if p := sd.peer(); !p.Closed() {
		if errors.Is(err, io.EOF) && p.Pending() > 0 {
			p.CloseWhenFlushed()
		} else {
			p.CloseNow(err)
		}
		return // the peer's OnClose releases j
	}
	if j.released {
		return
	}
	j.released = true
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	j.srv.release(j)
}
