// Package links carries out the core's link actions: one connection per
// OpenLink to a master, replica or other Sentinel, commands pipelined on
// command connections, hellos read from pub/sub connections, and
// everything that happens reported back to the core as inputs. Both kinds
// speak RESP2 over the connection directly (appendCommand, parseReply),
// except where a pub/sub link rides its command link's connection over
// RESP3 (merge.go): one connection per instance instead of two.
package links

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// DefaultDialTimeout is the connect timeout Links uses when
// Options.DialTimeout is zero. Redis itself has no connect timeout (the
// core closes stale links on its own); this only bounds how long a dialing
// goroutine lives.
const DefaultDialTimeout = 5 * time.Second

// ErrSourceAddr is returned (as the LinkClosed reason) when
// Options.SourceAddr is not an IP address.
var ErrSourceAddr = errors.New("links: bind-source-addr is not an IP address")

// ErrNoAddress is returned (as the LinkClosed reason) when a hostname
// resolved to no address at all.
var ErrNoAddress = errors.New("links: the hostname resolved to no address")

// ErrSubscribeRejected wraps the error reply an instance gave to the SUBSCRIBE
// of a pub/sub link; like hiredis, the link is then dropped.
var ErrSubscribeRejected = errors.New("links: SUBSCRIBE rejected")

// Options configures a Links adapter.
type Options struct {
	// Deliver receives every input the adapter produces. It is called from
	// adapter goroutines and may block briefly.
	Deliver func(msg.Input)
	// DialTimeout bounds a TCP (and TLS) connect; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// SourceAddr is the local IP outgoing connections are bound to
	// (bind-source-addr); "" lets the system choose.
	SourceAddr string
	// TLSConfig, when not nil, makes every link a TLS connection.
	TLSConfig *tls.Config
	// LookupHost resolves a hostname to its addresses (IP text), at
	// every dial of a link to a name (resolve-hostnames yes); nil means
	// net.DefaultResolver.LookupHost, which reads /etc/hosts again when
	// it changed (checked at most every 5 s) and asks DNS each time.
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// Logf, when not nil, receives debug messages.
	Logf func(format string, args ...any)
	// TwoLinks keeps two connections to every master and replica, as
	// redis-sentinel does, instead of one where the instance speaks RESP3
	// (merge.go).
	TwoLinks bool
}

// Links carries out the core's link actions (OpenLink, CloseLink, Send) and
// reports what happens as inputs through Options.Deliver.
//
// Every link owns exactly one connection, which a goroutine dials as soon
// as the link is opened (LinkLocalAddr follows for a command link), except
// a pub/sub link that rides a command link's connection (merge.go): it
// dials nothing, and fails when that connection ends. On
// Linux a plain TCP link is then served by the Links' event loop
// (internal/netloop, see loop.go): no goroutine and no buffer per idle
// link, one read(2) per readiness, and the Sends a link got since the loop
// last ran written in one write(2). A TLS link (and any link where there is
// no epoll) is served by a reader goroutine that waits for the connection
// to become readable holding no buffer, and its Sends are written by Apply
// with a write that never waits, or by a writer goroutine (TLS, and the
// bytes a full socket refused). For each LinkID, Sends are written in the
// order Apply received them, as soon as they are applied, without waiting
// for the replies of those before it, and each gets exactly one CommandReply, unless the link
// fails first, in which case exactly one LinkClosed is delivered and
// nothing else follows. An error reply is a reply, not a failure. A command
// link writes its handshake once connected, and notices a connection
// closed by the peer when it next awaits a reply; a pub/sub link sends its
// handshake and SUBSCRIBE at once and notices a closed connection at once.
//
// go-redis is not used here: its pipelines are round trips (a pipeline is
// written only once the previous one's replies are read), so a command sent
// to an instance that stopped answering waited behind the unanswered PING
// and was lost when the link was closed; hiredis, which Redis uses, writes
// it at once. Its pub/sub connections also held fixed 32 KiB buffers.
//
// CloseLink ends a link silently and never blocks: the connection is closed
// at once and Sends not yet written are abandoned (those written stay in the
// instance's socket). A delivery the link's goroutine had already begun
// when CloseLink was applied may still arrive; the core ignores inputs for
// ids it has closed. Apply never blocks.
type Links struct {
	opts Options

	mu     sync.Mutex
	closed bool
	links  map[msg.LinkID]*link
	wg     sync.WaitGroup
	merge  bool // pub/sub links ride command links (merge.go)
	// carriers are the command links a pub/sub link may ride, by
	// carrierKey.
	carriers map[string][]*link
	loops    *netloop.Group // serves the plain TCP links; nil: goroutines do
	held     hold           // the batch between Hold and Release (hold.go)
}

// New returns an adapter with no links.
func New(opts Options) *Links {
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.LookupHost == nil {
		opts.LookupHost = net.DefaultResolver.LookupHost
	}
	if opts.Deliver == nil {
		opts.Deliver = func(msg.Input) {}
	}
	l := &Links{opts: opts, links: make(map[msg.LinkID]*link),
		merge: mergeLinks && !opts.TwoLinks, carriers: make(map[string][]*link)}
	if useLoops && opts.TLSConfig == nil {
		if g, err := netloop.NewParking(linkLoops); err == nil {
			l.loops = g
		}
	}
	return l
}

// Apply carries out a if it is a link action (OpenLink, CloseLink, Send) and
// reports whether it was one. It never blocks: connecting and all network
// I/O happen on the link's own goroutine. After Close it does nothing but
// still reports link actions as handled.
func (l *Links) Apply(a msg.Action) bool {
	switch a := a.(type) {
	case msg.OpenLink:
		l.open(a)
	case msg.CloseLink:
		l.closeLink(a.ID)
	case msg.Send:
		l.send(a)
	default:
		return false
	}
	return true
}

// OpenLink carries out one OpenLink (the node's LinkEffects); it never
// blocks.
func (l *Links) OpenLink(a msg.OpenLink) { l.open(a) }

// CloseLink carries out one CloseLink; it never blocks.
func (l *Links) CloseLink(a msg.CloseLink) { l.closeLink(a.ID) }

// Send carries out one Send; it never blocks.
func (l *Links) Send(a msg.Send) { l.send(a) }

// Close drops every link and waits for the adapter's goroutines to end
// (including a Deliver call already under way, so the consumer must keep
// draining while Close runs). Nothing is delivered after Close returns.
func (l *Links) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		l.wg.Wait()
		return
	}
	l.closed = true
	all := l.links
	l.links = nil
	l.mu.Unlock()
	for _, lk := range all {
		lk.end()
	}
	l.wg.Wait()
	if l.loops != nil {
		// After the dials: no link registers a connection any more.
		l.loops.Close()
	}
}

func (l *Links) open(spec msg.OpenLink) {
	lk := newLink(l, spec)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	old := l.links[spec.ID]
	l.links[spec.ID] = lk
	rides := l.merge && l.share(lk)
	if !rides {
		l.wg.Add(1)
	}
	l.mu.Unlock()
	if old != nil {
		l.logf("link %d: opened again, dropping the previous connection", spec.ID)
		old.end()
	}
	if !rides {
		go lk.run()
	}
}

func (l *Links) closeLink(id msg.LinkID) {
	l.mu.Lock()
	lk := l.links[id]
	delete(l.links, id)
	l.mu.Unlock()
	if lk != nil {
		lk.end()
	}
}

func (l *Links) send(s msg.Send) {
	l.mu.Lock()
	lk := l.links[s.ID]
	l.mu.Unlock()
	if lk == nil {
		// The link failed (its LinkClosed is on its way or was delivered),
		// was closed, or never existed: nothing may be reported for it.
		l.logf("link %d: send %d dropped, no such link", s.ID, s.Tag)
		return
	}
	if lk.spec.Kind != msg.CmdLink {
		l.logf("link %d: send %d dropped, not a command link", s.ID, s.Tag)
		return
	}
	lk.enqueue(s)
}

// forget removes lk from the table if it is still the link registered under
// its id.
func (l *Links) forget(lk *link) {
	l.mu.Lock()
	if l.links[lk.spec.ID] == lk {
		delete(l.links, lk.spec.ID)
	}
	l.mu.Unlock()
}

func (l *Links) logf(format string, args ...any) {
	if l.opts.Logf != nil {
		l.opts.Logf(format, args...)
	}
}
