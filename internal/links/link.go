package links

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// maxKeptWriteBuffer is the largest encoding buffer kept for the next
// Send; a larger one (a burst of hellos) is let go. Idle links hold no
// write buffer: Sends are encoded into a shared one.
const maxKeptWriteBuffer = 4096

// link is one connection to an instance. Once ended (by CloseLink, by
// Links.Close or by a failure) it delivers nothing more, except the single
// LinkClosed of a failure.
//
// A command link writes each Send as soon as it is applied, behind the
// ones still awaiting replies, on the goroutine that applies it: a write
// that never waits for the network (rawWriter), so that a command costs no
// goroutine wake-up. Only when the socket is full (an instance that stopped
// reading) does a writer goroutine take over the bytes left, until they
// are written. So a command queued while the instance does not answer (a
// SIGSTOPped master, a demotion sent at the promotion) is already in the
// instance's socket when it runs again, as hiredis queues it for Redis.
// The link's own goroutine (serveCmd) reads the replies, parked in the
// netpoller without a buffer while nothing arrives (chunkReader).
type link struct {
	links  *Links
	spec   msg.OpenLink
	ctx    context.Context    // the dial's: canceled when the link ends
	cancel context.CancelFunc // nil once dialed (lk.mu), so that the contexts go
	wake   chan struct{}      // capacity 1: "a stalled reader has something to do"
	ended  atomic.Bool

	mu sync.Mutex
	// queue are the Sends applied before the handshake was written.
	queue []msg.Send
	// inflight are the Sends written (or being written), oldest first,
	// whose replies the reader has not read yet.
	inflight []sent
	conn     net.Conn   // the connection once the handshake is written
	w        *rawWriter // writes conn's socket without waiting; nil over TLS
	out      []byte     // bytes the writer goroutine has still to write
	writing  bool       // a writer goroutine runs: new bytes go to out
	stalled  bool       // the reader waits on wake (serveCmd)
	rerr     error      // what the reader met while no reply was awaited
	wfailed  bool       // a write failed: the link is failing, nothing more is written
	raw      net.Conn   // the TCP connection once dialed; closed when the link ends

	// A link served by a loop (loop.go) has nc instead of raw once its
	// handshake is written, and out holds the Sends the loop is to write.
	nc       *netloop.Conn
	loop     *netloop.Loop
	flushDue bool      // flushFn is queued on the loop
	flushFn  func()    // lk.flushLoop, made once
	skip     int       // loop: handshake (and SUBSCRIBE) replies still to read
	pushed   int       // loop: replies read on a pub/sub link
	rest     []byte    // loop: the start of a reply not complete yet
	scan     replyScan // loop: follows rest (parseKept)
	paused   bool      // loop: reading is paused (bytes nobody asked for)

	merged // one connection for the command and pub/sub links (merge.go)
}

// sent is a Send written on a command link, awaiting its reply; kind
// tells an empty Send (without arguments, which Redis never answers and
// which the reader answers itself) and the link's own commands (merge.go)
// from the core's.
type sent struct {
	tag  uint64
	kind sentKind
}

// sentKind is what a sent awaits.
type sentKind uint8

// The kinds of sent.
const (
	sentCmd   sentKind = iota // a Send of the core: its reply is a CommandReply
	sentEmpty                 // a Send without arguments: answered by the reader
	sentHello                 // the link's HELLO 3: its reply is the verdict
	sentSub                   // a rider's SUBSCRIBE: answered by a push, or an error
)

func newLink(l *Links, spec msg.OpenLink) *link {
	ctx, cancel := context.WithCancel(context.Background())
	return &link{links: l, spec: spec, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// enqueue has s written at once if the handshake is written, else queues
// it for then; a Send to an ended link is dropped.
func (lk *link) enqueue(s msg.Send) {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	lk.enqueueLocked(s)
}

// enqueueLocked is enqueue with lk.mu held.
func (lk *link) enqueueLocked(s msg.Send) {
	if lk.ended.Load() {
		return
	}
	if lk.conn == nil {
		lk.queue = append(lk.queue, s)
		return
	}
	if lk.nc != nil {
		lk.queueLoop(s)
		return
	}
	lk.sendLocked(s)
}

// sendLocked records each Send as awaiting its reply and writes them all
// in one write. lk.mu must be held, the link not ended and the handshake
// written.
func (lk *link) sendLocked(batch ...msg.Send) {
	bp := writeBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	wasIdle := len(lk.inflight) == 0
	for _, s := range batch {
		lk.inflight = append(lk.inflight, sentOf(s))
		if len(s.Args) > 0 {
			buf = appendCommand(buf, s.Args...)
		}
	}
	switch {
	case lk.rerr != nil || lk.stalled:
		// The reader stopped reading (the connection failed, or bytes came
		// that nobody awaited): it carries on now. A failed connection
		// fails the link without the write, as it would after it.
		if lk.rerr == nil {
			lk.write(buf)
		}
		lk.stalled = false
		lk.signal()
	default:
		lk.write(buf)
		if wasIdle && lk.inflight[0].kind == sentEmpty {
			// No byte will come for the reader to answer it by.
			lk.poke()
		}
	}
	if cap(buf) <= maxKeptWriteBuffer {
		*bp = buf[:0]
		writeBufs.Put(bp)
	}
}

// write writes buf behind what is still to write: at once, without
// waiting, when nothing is (rawWriter); what the socket does not take goes
// to a writer goroutine. Over TLS every write is the writer's. A write
// error fails the link (from another goroutine: the caller may be the
// applier, which must not deliver). lk.mu must be held and the link not
// ended (so that its reader still counts in the WaitGroup).
func (lk *link) write(buf []byte) {
	if len(buf) == 0 || lk.wfailed {
		return
	}
	if lk.writing {
		lk.out = append(lk.out, buf...)
		return
	}
	n := 0
	if lk.w != nil {
		var err error
		if n, err = lk.w.write(buf); err != nil {
			lk.wfailed = true
			lk.links.wg.Add(1)
			go func() {
				defer lk.links.wg.Done()
				lk.fail(err)
			}()
			return
		}
	}
	if n == len(buf) {
		return
	}
	lk.out = append(lk.out[:0], buf[n:]...)
	lk.writing = true
	lk.links.wg.Add(1)
	go lk.flush()
}

// flush is the writer goroutine: it writes out, waiting for the socket,
// until nothing is left or the link ends, and then lets the buffer go.
func (lk *link) flush() {
	defer lk.links.wg.Done()
	var buf []byte
	for {
		lk.mu.Lock()
		if lk.ended.Load() || len(lk.out) == 0 {
			lk.writing = false
			lk.out = nil
			lk.mu.Unlock()
			return
		}
		buf, lk.out = lk.out, buf[:0]
		conn := lk.conn
		lk.mu.Unlock()
		if _, err := conn.Write(buf); err != nil {
			lk.fail(err)
			lk.mu.Lock()
			lk.writing = false
			lk.out = nil
			lk.mu.Unlock()
			return
		}
	}
}

func (lk *link) signal() {
	select {
	case lk.wake <- struct{}{}:
	default:
	}
}

// poke makes the reader's pending read return (a read deadline in the
// past), so that it answers an empty Send that nothing else would wake it
// for. lk.mu must be held and the link not ended.
func (lk *link) poke() {
	_ = lk.raw.SetReadDeadline(time.Unix(1, 0))
}

// end stops the link without reporting anything: it cancels a dial in
// progress, closes the TCP connection (which aborts any I/O on it) and
// wakes the reader. It reports whether this call was the one that ended
// the link. It never blocks on the network.
func (lk *link) end() bool { return lk.endFor(nil) }

// endFor is end, with why the link ends when it failed (for its rider).
func (lk *link) endFor(why error) bool {
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return false
	}
	lk.ended.Store(true)
	raw, nc, cancel := lk.raw, lk.nc, lk.cancel
	lk.queue = nil
	lk.inflight = nil
	carrier, rider := lk.carrier, lk.takeRider()
	lk.mu.Unlock()
	lk.unmerge(carrier, rider, why)
	if cancel != nil {
		cancel()
	}
	if raw != nil {
		_ = raw.Close()
	}
	if nc != nil {
		nc.Close()
	}
	lk.signal()
	return true
}

// fail ends the link because its connection failed and, unless it had
// already ended, delivers its one LinkClosed.
func (lk *link) fail(err error) {
	if !lk.endFor(err) {
		return
	}
	lk.links.logf("link %d (%s %s:%d): closed: %v", lk.spec.ID, lk.spec.Kind, lk.spec.Addr.Host, lk.spec.Addr.Port, err)
	lk.links.opts.Deliver(msg.LinkClosed{ID: lk.spec.ID, Err: err.Error()})
	lk.links.forget(lk)
}

// deliver passes in on unless the link has ended.
func (lk *link) deliver(in msg.Input) {
	if lk.ended.Load() {
		return
	}
	lk.links.opts.Deliver(in)
}

// attach records the dialed connection so that end can close it; it reports
// false (and closes conn) if the link ended during the dial.
func (lk *link) attach(conn, raw net.Conn) bool {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if lk.ended.Load() {
		_ = conn.Close()
		_ = raw.Close()
		return false
	}
	lk.raw = raw
	// The dial is over: its contexts (a few hundred bytes per link, with
	// the deadline's registration in the parent) are let go.
	lk.cancel()
	lk.cancel = nil
	return true
}

// run is the dialing goroutine: connect, report it, and hand the link to a
// new goroutine that serves it until it ends. The dial's deep stack ends
// with this goroutine; the one that stays parked for the link's lifetime
// starts small.
func (lk *link) run() {
	defer lk.links.wg.Done()
	l := lk.links
	ctx := lk.ctx
	lk.ctx = nil
	conn, raw, ip, err := l.dial(ctx, lk.spec.Addr)
	if err != nil {
		lk.reportResolved(ip)
		lk.fail(fmt.Errorf("connect to %s: %w", lk.spec.Addr.String(), err))
		return
	}
	if !lk.attach(conn, raw) {
		return
	}
	lk.deliver(msg.LinkConnected{ID: lk.spec.ID})
	if lk.spec.Kind == msg.CmdLink {
		if a, ok := localAddr(raw); ok {
			lk.deliver(msg.LinkLocalAddr{ID: lk.spec.ID, Addr: a})
		}
	}
	lk.reportResolved(ip)
	if lk.serveLoop(conn) {
		return
	}
	l.wg.Add(1)
	if lk.spec.Kind == msg.PubSubLink {
		go lk.servePubSub(conn)
		return
	}
	go lk.serveCmd(conn)
}

// reportResolved tells the core where the link's hostname pointed at this
// dial (ip is "" for a link to an IP, or a name that did not resolve), so
// that matching by name follows a name that moved, also when the dial
// failed.
func (lk *link) reportResolved(ip string) {
	if ip != "" {
		lk.deliver(msg.HostResolved{Host: lk.spec.Addr.Host, IP: ip})
	}
}

// serveCmd writes the command link's handshake, then the Sends queued
// meanwhile, and reads the replies, delivering each as the CommandReply of
// the oldest Send still awaiting one, until the link ends or fails. The
// handshake's replies are read and ignored: with a wrong password the link
// stays up and its commands get NOAUTH replies, as with hiredis; only a
// failed connection fails it.
//
// While no reply is awaited the reader still waits for the connection to
// become readable, without a buffer. A closed connection, or bytes that no
// Send asked for, found then stop it until the next Send (the reader
// stalls): a closed connection fails the link only then, when its reply is
// awaited, and unasked-for bytes are that Send's reply, as when they were
// read only then.
func (lk *link) serveCmd(conn net.Conn) {
	defer lk.links.wg.Done()
	if hs := appendHandshake(nil, lk.spec); len(hs) > 0 {
		if _, err := conn.Write(hs); err != nil {
			lk.fail(err)
			return
		}
	}
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return
	}
	lk.conn = conn
	if rc := rawConn(conn); rc != nil {
		lk.w = newRawWriter(rc)
	}
	if len(lk.queue) > 0 {
		lk.sendLocked(lk.queue...)
		lk.queue = nil
	}
	lk.mu.Unlock()
	rd := newChunkReader(conn)
	skip := handshakeLen(lk.spec) // handshake replies still to read
	var rest []byte               // the start of a reply not complete yet
	var scan replyScan            // follows rest
	for {
		n, idle, ok := lk.consume(rest, &skip, &scan)
		if !ok {
			return
		}
		rest = rest[n:]
		if len(rest) == 0 {
			rest = nil // held only while a reply is incomplete
		} else if idle {
			// Bytes nobody asked for: left for the next Send.
			if !lk.stall(nil) {
				return
			}
			continue
		}
		chunk, err := rd.read()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				// poke: an empty Send to answer.
				_ = lk.raw.SetReadDeadline(time.Time{})
				continue
			}
			if idle && !lk.carries() && !lk.stall(err) {
				return
			}
			lk.fail(err)
			return
		}
		if len(rest) == 0 {
			// Straight from the chunk; only an incomplete tail is kept.
			n, _, ok := lk.consume(chunk, &skip, nil)
			if !ok {
				rd.release()
				return
			}
			rest = append(rest, chunk[n:]...)
		} else {
			rest = append(rest, chunk...)
		}
		rd.release()
	}
}

// consume delivers the replies at the start of data while the handshake or
// a Send awaits one, answering the empty Sends it meets. It returns how
// many bytes it used, whether nothing is awaited any more (idle), and false
// once the link has ended or failed.
func (lk *link) consume(data []byte, skip *int, sc *replyScan) (used int, idle, ok bool) {
	for {
		awaiting := true
		if *skip == 0 {
			var alive bool
			if awaiting, alive = lk.answerEmpty(); !alive {
				return used, false, false
			}
		}
		if used < len(data) && data[used] == '>' && lk.resp3 {
			// A push for the pub/sub link riding this connection (merge.go).
			r, n, err := parseFrom(data, used, sc, true)
			if errors.Is(err, errIncomplete) {
				return used, false, true
			}
			if err != nil {
				lk.fail(err)
				return used, false, false
			}
			used += n
			if !lk.routePush(r) {
				return used, false, false
			}
			continue
		}
		if !awaiting {
			return used, true, true
		}
		if used == len(data) {
			return used, false, true
		}
		r, n, err := parseFrom(data, used, sc, lk.helloSent.Load())
		if errors.Is(err, errIncomplete) {
			return used, false, true
		}
		if err != nil {
			lk.fail(err)
			return used, false, false
		}
		used += n
		if *skip > 0 {
			*skip--
			continue
		}
		if !lk.reply(r) {
			return used, false, false
		}
	}
}

// answerEmpty delivers the reply of the empty Sends at the head of the
// inflight queue; it reports whether a Send still awaits a reply, and
// alive false once the link has ended.
func (lk *link) answerEmpty() (awaiting, alive bool) {
	for {
		lk.mu.Lock()
		if lk.ended.Load() {
			lk.mu.Unlock()
			return false, false
		}
		if len(lk.inflight) == 0 || lk.inflight[0].kind != sentEmpty {
			awaiting = len(lk.inflight) > 0
			lk.mu.Unlock()
			return awaiting, true
		}
		s := lk.inflight[0]
		lk.inflight = lk.inflight[1:]
		lk.mu.Unlock()
		lk.deliver(msg.CommandReply{ID: lk.spec.ID, Tag: s.tag, Reply: msg.Reply{Kind: msg.ReplyError, Str: "ERR empty command"}})
	}
}

// reply delivers r as the reply of the oldest Send awaiting one; it
// reports false once the link has ended.
func (lk *link) reply(r msg.Reply) bool {
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return false
	}
	s := lk.inflight[0]
	lk.inflight = lk.inflight[1:]
	if len(lk.inflight) == 0 {
		lk.inflight = nil
	}
	lk.mu.Unlock()
	switch s.kind {
	case sentHello:
		lk.verdict(r)
		return !lk.ended.Load()
	case sentSub:
		lk.subscribeRefused(s.tag, r)
		return !lk.ended.Load()
	}
	lk.deliver(msg.CommandReply{ID: lk.spec.ID, Tag: s.tag, Reply: r})
	return true
}

// stall waits, reading nothing, until a Send awaits a reply, recording err
// (what the reader met) for sendLocked; it reports false once the link
// has ended.
func (lk *link) stall(err error) bool {
	lk.mu.Lock()
	lk.rerr = err
	for !lk.ended.Load() && len(lk.inflight) == 0 {
		lk.stalled = true
		lk.mu.Unlock()
		<-lk.wake
		lk.mu.Lock()
	}
	lk.stalled = false
	ended := lk.ended.Load()
	lk.mu.Unlock()
	return !ended
}
