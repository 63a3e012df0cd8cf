package links

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// maxBatch is the most Sends one write carries; the rest follow in the
// next write.
const maxBatch = 512

// maxKeptWriteBuffer is the largest write buffer a command link keeps
// between writes; a larger one (a burst of hellos) is let go.
const maxKeptWriteBuffer = 4096

// link is one connection to an instance and the goroutine that owns it. Its
// queue is unbounded so that Apply never waits for the network. Once ended
// (by CloseLink, by Links.Close or by a failure) it delivers nothing more,
// except the single LinkClosed of a failure.
//
// A command link writes each Send as soon as it is applied, behind the
// ones still awaiting replies: its own goroutine reads the replies, and a
// writer goroutine, started when Sends are waiting and none runs, writes
// them. So a command queued while the instance does not answer (a
// SIGSTOPped master, a demotion sent at the promotion) is already in the
// instance's socket when it runs again, as hiredis queues it for Redis.
type link struct {
	links  *Links
	spec   monitor.OpenLink
	ctx    context.Context // canceled when the link ends
	cancel context.CancelFunc
	wake   chan struct{} // capacity 1: "the queue or the state changed"
	ended  atomic.Bool

	mu    sync.Mutex
	queue []monitor.Send // Sends not written yet
	// inflight are the Sends written (or being written), oldest first,
	// whose replies the reader has not read yet.
	inflight []sent
	writing  bool     // Sends are being written (by the reader or a writer goroutine)
	idle     bool     // the reader waits with no reply awaited
	conn     net.Conn // the connection once the handshake is written
	wbuf     []byte   // the writer's buffer, reused
	raw      net.Conn // the TCP connection once dialed; closed when the link ends
}

// sent is a Send written on a command link, awaiting its reply; empty is a
// Send without arguments, which Redis never answers and which the reader
// answers itself.
type sent struct {
	tag   uint64
	empty bool
}

func newLink(l *Links, spec monitor.OpenLink) *link {
	ctx, cancel := context.WithCancel(context.Background())
	return &link{links: l, spec: spec, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// enqueue appends s to the link's queue and has it written at once if the
// connection is up; a Send to an ended link is dropped.
func (lk *link) enqueue(s monitor.Send) {
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return
	}
	lk.queue = append(lk.queue, s)
	lk.startWriter()
	lk.mu.Unlock()
}

// startWriter has waiting Sends written if the handshake is written and
// nobody writes: by the reader if it is idle (it writes them itself, as
// one goroutine that writes and then reads), else by a writer goroutine,
// since the reader is blocked reading a reply. lk.mu must be held and the
// link not ended (so the link's own goroutine still counts in the
// WaitGroup).
func (lk *link) startWriter() {
	if lk.writing || lk.conn == nil || len(lk.queue) == 0 {
		return
	}
	if lk.idle {
		lk.signal()
		return
	}
	lk.writing = true
	lk.links.wg.Add(1)
	go func() {
		defer lk.links.wg.Done()
		lk.flush()
	}()
}

func (lk *link) signal() {
	select {
	case lk.wake <- struct{}{}:
	default:
	}
}

// end stops the link without reporting anything: it cancels a dial in
// progress, closes the TCP connection (which aborts any I/O on it) and
// wakes the goroutine. It reports whether this call was the one that ended
// the link. It never blocks on the network.
func (lk *link) end() bool {
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return false
	}
	lk.ended.Store(true)
	raw := lk.raw
	lk.queue = nil
	lk.inflight = nil
	lk.mu.Unlock()
	lk.cancel()
	if raw != nil {
		_ = raw.Close()
	}
	lk.signal()
	return true
}

// fail ends the link because its connection failed and, unless it had
// already ended, delivers its one LinkClosed.
func (lk *link) fail(err error) {
	if !lk.end() {
		return
	}
	lk.links.logf("link %d (%s %s:%d): closed: %v", lk.spec.ID, lk.spec.Kind, lk.spec.Addr.Host, lk.spec.Addr.Port, err)
	lk.links.opts.Deliver(monitor.LinkClosed{ID: lk.spec.ID, Err: err.Error()})
	lk.links.forget(lk)
}

// deliver passes in on unless the link has ended.
func (lk *link) deliver(in monitor.Input) {
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
	return true
}

// run is the link's goroutine: connect, then serve the link until it ends.
func (lk *link) run() {
	defer lk.links.wg.Done()
	l := lk.links
	conn, raw, ip, err := l.dial(lk.ctx, lk.spec.Addr)
	if err != nil {
		lk.reportResolved(ip)
		lk.fail(fmt.Errorf("connect to %s: %w", hostPort(lk.spec.Addr), err))
		return
	}
	if !lk.attach(conn, raw) {
		return
	}
	lk.deliver(monitor.LinkConnected{ID: lk.spec.ID})
	if lk.spec.Kind == monitor.CmdLink {
		if a, ok := localAddr(raw); ok {
			lk.deliver(monitor.LinkLocalAddr{ID: lk.spec.ID, Addr: a})
		}
	}
	lk.reportResolved(ip)
	if lk.spec.Kind == monitor.PubSubLink {
		lk.servePubSub(conn)
		return
	}
	lk.serveCmd(conn)
}

// reportResolved tells the core where the link's hostname pointed at this
// dial (ip is "" for a link to an IP, or a name that did not resolve), so
// that matching by name follows a name that moved, also when the dial
// failed.
func (lk *link) reportResolved(ip string) {
	if ip != "" {
		lk.deliver(monitor.HostResolved{Host: lk.spec.Addr.Host, IP: ip})
	}
}

// serveCmd writes the command link's handshake, lets the writer go, and
// reads the replies, delivering each as the CommandReply of the oldest Send
// still awaiting one, until the link ends or fails. The handshake's replies
// are read and ignored: with a wrong password the link stays up and its
// commands get NOAUTH replies, as with hiredis; only a failed connection
// fails it.
func (lk *link) serveCmd(conn net.Conn) {
	if _, err := conn.Write(appendHandshake(nil, lk.spec)); err != nil {
		lk.fail(err)
		return
	}
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return
	}
	lk.conn = conn
	lk.startWriter()
	lk.mu.Unlock()
	rd := bufio.NewReaderSize(conn, linkReadBuffer)
	for range handshakeLen(lk.spec) {
		if _, err := readReply(rd); err != nil {
			lk.fail(err)
			return
		}
	}
	for {
		s, ok := lk.oldest()
		if !ok {
			return
		}
		r := monitor.Reply{Kind: monitor.ReplyError, Str: "ERR empty command"}
		if !s.empty {
			var err error
			if r, err = readReply(rd); err != nil {
				lk.fail(err)
				return
			}
		}
		lk.mu.Lock()
		if len(lk.inflight) > 0 {
			lk.inflight = lk.inflight[1:]
		}
		lk.mu.Unlock()
		lk.deliver(monitor.CommandReply{ID: lk.spec.ID, Tag: s.tag, Reply: r})
	}
}

// oldest waits until a written Send awaits its reply and returns it,
// writing the waiting Sends itself when nothing is awaited and nobody
// writes; ok is false once the link has ended.
func (lk *link) oldest() (s sent, ok bool) {
	for {
		lk.mu.Lock()
		if lk.ended.Load() {
			lk.mu.Unlock()
			return sent{}, false
		}
		if len(lk.inflight) > 0 {
			s = lk.inflight[0]
			lk.mu.Unlock()
			return s, true
		}
		if len(lk.queue) > 0 && !lk.writing {
			lk.writing = true
			lk.mu.Unlock()
			lk.flush()
			continue
		}
		lk.idle = true
		lk.mu.Unlock()
		<-lk.wake
		lk.mu.Lock()
		lk.idle = false
		lk.mu.Unlock()
	}
}

// flush writes the queued Sends, up to maxBatch per write, recording each
// as awaiting its reply before its bytes go out, until the queue is empty
// or the link ends; then nobody writes. Its caller set lk.writing.
func (lk *link) flush() {
	for {
		lk.mu.Lock()
		if lk.ended.Load() || len(lk.queue) == 0 {
			lk.writing = false
			lk.mu.Unlock()
			return
		}
		n := len(lk.queue)
		k := min(n, maxBatch)
		batch := lk.queue[:k:k]
		if k == n {
			lk.queue = nil
		} else {
			lk.queue = slices.Clone(lk.queue[k:])
		}
		buf := lk.wbuf[:0]
		lk.wbuf = nil
		for _, s := range batch {
			lk.inflight = append(lk.inflight, sent{tag: s.Tag, empty: len(s.Args) == 0})
			if len(s.Args) > 0 {
				buf = appendCommand(buf, s.Args...)
			}
		}
		conn := lk.conn
		lk.mu.Unlock()
		lk.signal()
		if len(buf) > 0 {
			if _, err := conn.Write(buf); err != nil {
				lk.fail(err)
				lk.mu.Lock()
				lk.writing = false
				lk.mu.Unlock()
				return
			}
		}
		if cap(buf) <= maxKeptWriteBuffer {
			lk.mu.Lock()
			lk.wbuf = buf[:0]
			lk.mu.Unlock()
		}
	}
}
