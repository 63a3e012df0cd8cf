package links

import (
	"errors"
	"net"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// linkLoops is how many event loops serve the plain TCP links of a Links
// (internal/netloop): one, since every reply goes to the core's single
// goroutine anyway, and one loop gathers more events per wake-up.
const linkLoops = 1

// useLoops makes New serve plain TCP links from event loops where the
// system has them (Linux); the tests also run with it off, the path of TLS
// links and of other systems.
var useLoops = true

// A plain TCP link is served by an event loop (internal/netloop) instead of
// goroutines: once dialed and its handshake written, its socket is taken
// out of Go's netpoller and registered in the Links' loop, which calls
// OnData with the bytes of each read (one read(2) per readiness, into the
// loop's buffer: an idle link holds no buffer and no goroutine). Sends are
// encoded by Apply into the link's out buffer and written by the loop, all
// the Sends a link got since the loop last ran in one write(2), and only
// what the kernel refused is kept (netloop's pending bytes). Everything a
// loop link does with its connection happens on the loop goroutine: the
// fields below marked "loop" are that goroutine's.

// serveLoop hands the dialed connection of lk to a loop, after writing the
// handshake (and, for a pub/sub link, the SUBSCRIBE) on it; it reports false
// when the link is not a loop link (TLS, or no loop), leaving conn as it
// was.
func (lk *link) serveLoop(conn net.Conn) bool {
	g := lk.links.loops
	tc, ok := conn.(*net.TCPConn)
	if g == nil || !ok {
		return false
	}
	var hs []byte
	if lk.spec.Kind == msg.PubSubLink {
		hs = lk.subscription()
		lk.skip = lk.handshakeReplies()
	} else {
		hs = appendHandshake(nil, lk.spec)
		lk.skip = handshakeLen(lk.spec)
	}
	if len(hs) > 0 {
		// A fresh socket takes a few hundred bytes at once.
		if _, err := conn.Write(hs); err != nil {
			lk.fail(err)
			return true
		}
	}
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if lk.ended.Load() {
		return true // end closed conn
	}
	c, err := netloop.Take(tc, lk)
	if err != nil {
		lk.raw = nil
		lk.links.wg.Add(1)
		go func() {
			defer lk.links.wg.Done()
			lk.fail(err)
		}()
		return true
	}
	loop := g.Next()
	lk.raw, lk.nc, lk.loop = nil, c, loop
	lk.flushFn = lk.flushLoop
	if lk.spec.Kind == msg.CmdLink {
		lk.conn = conn // the handshake is written: Sends go out
		if len(lk.queue) > 0 {
			lk.queueLoop(lk.queue...)
			lk.queue = nil
		}
	}
	if err := loop.Register(c); err != nil {
		// The Links are closing: Register closed the socket.
		lk.nc = nil
	}
	return true
}

// queueLoop records each Send as awaiting its reply, encodes it into out
// and has the loop write out (flushLoop) unless it is due to already.
// lk.mu must be held and the link not ended.
func (lk *link) queueLoop(batch ...msg.Send) {
	if lk.out == nil {
		lk.out = (*writeBufs.Get().(*[]byte))[:0]
	}
	for _, s := range batch {
		lk.inflight = append(lk.inflight, sentOf(s))
		if len(s.Args) > 0 {
			lk.out = appendCommand(lk.out, s.Args...)
		}
	}
	if !lk.flushDue {
		lk.flushDue = true
		if !lk.links.held.deferFlush(lk) {
			_ = lk.loop.Submit(lk.flushFn) // fails only when the Links close
		}
	}
}

// flushLoop runs on the loop: it writes the Sends encoded since it last
// ran, in one write, then answers the empty Sends at the head, carries on
// reading when bytes nobody asked for paused it, and fails a link whose
// connection closed while no reply was awaited, now that one is.
func (lk *link) flushLoop() {
	lk.mu.Lock()
	lk.flushDue = false
	if lk.ended.Load() {
		lk.mu.Unlock()
		return
	}
	out := lk.out
	lk.out = nil
	rerr := lk.rerr
	lk.mu.Unlock()
	if rerr != nil {
		lk.fail(rerr)
		return
	}
	if len(out) > 0 {
		err := lk.nc.Write(out) // an error closes it: OnClose
		if cap(out) <= maxKeptWriteBuffer {
			out = out[:0]
			writeBufs.Put(&out)
		}
		if err != nil {
			return
		}
	}
	if lk.paused {
		lk.paused = false
		lk.nc.ResumeRead()
	}
	lk.onBytes(nil)
}

// OnData gets the bytes the loop read from lk's connection.
func (lk *link) OnData(_ *netloop.Conn, b []byte) { lk.onBytes(b) }

// onBytes delivers the replies (or pushes) held by what was kept of an
// earlier read and b. Bytes of a reply not complete yet are kept; bytes
// that no Send of a command link asked for are kept too, and its reading
// paused until the next Send (flushLoop), as a goroutine-served link would
// read them only then.
func (lk *link) onBytes(b []byte) {
	data := b
	var sc *replyScan // data is the kept rest, which lk.scan follows
	if len(lk.rest) > 0 {
		lk.rest = append(lk.rest, b...)
		data = lk.rest
		sc = &lk.scan
	}
	var used int
	if lk.spec.Kind == msg.PubSubLink {
		used = lk.pushes(data, sc)
	} else {
		var idle, ok bool
		used, idle, ok = lk.consume(data, &lk.skip, sc)
		if !ok {
			lk.rest = nil
			return
		}
		if idle && used < len(data) && !lk.paused {
			lk.paused = true
			lk.nc.PauseRead()
		}
	}
	switch {
	case used == len(data):
		lk.rest = nil // held only while a reply is incomplete
	case len(lk.rest) > 0:
		lk.rest = append(lk.rest[:0], data[used:]...)
	default:
		lk.rest = append([]byte(nil), data[used:]...)
	}
}

// pushes handles the replies at the start of data on a pub/sub link and
// returns how many bytes they took; a bad one fails the link. sc, if set,
// follows data (the kept rest): see parseKept.
func (lk *link) pushes(data []byte, sc *replyScan) int {
	used := 0
	for used < len(data) && !lk.ended.Load() {
		r, n, err := parseFrom(data, used, sc, false)
		if errors.Is(err, errIncomplete) {
			break
		}
		if err == nil {
			used += n
			err = lk.push(lk.pushed, r)
			lk.pushed++
		}
		if err != nil {
			lk.fail(err)
			return len(data)
		}
	}
	return used
}

// OnDrain is called when bytes the kernel refused are written; nothing
// waits for that.
func (lk *link) OnDrain(*netloop.Conn) {}

// OnClose is called once the loop closed lk's connection: after end (err
// nil, or netloop.ErrClosed when the Links close), or because it failed.
// A pub/sub link fails at once, a command link when a reply is awaited, or
// else at its next Send, as a goroutine-served link notices it.
func (lk *link) OnClose(_ *netloop.Conn, err error) {
	if err == nil || lk.ended.Load() {
		return
	}
	if lk.spec.Kind == msg.PubSubLink || lk.skip > 0 || lk.carries() {
		lk.fail(err)
		return
	}
	lk.mu.Lock()
	awaiting := len(lk.inflight) > 0
	if !awaiting {
		lk.rerr = err
	}
	lk.mu.Unlock()
	if awaiting {
		lk.fail(err)
	}
}
