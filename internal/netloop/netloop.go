// Package netloop serves TCP sockets from a few event loops instead of a
// goroutine per socket: each Loop is one goroutine waiting for its epoll
// instance (level-triggered, up to MaxEvents events per wait) over the
// raw, non-blocking descriptors of the connections registered in it. A
// Loop of New blocks in epoll_wait, which suits a busy group (the proxy);
// one of NewParking parks in Go's netpoller, which suits an idle one (the
// links).
//
// It is the I/O layer meant to be shared by the master-following proxy,
// the Sentinel links and the RESP port (issue 31). A user takes the socket
// out of a *net.TCPConn with Take, giving a Handler, and registers the
// Conn in a Loop. From then on the loop calls the Handler, always on its
// own goroutine and never concurrently for one Loop:
//
//   - OnData with the bytes of one read(2), in a buffer the Loop owns and
//     reuses: valid only during the call (an idle connection holds no read
//     buffer);
//   - OnDrain when bytes a Write could not hand to the kernel at once have
//     all been written since;
//   - OnClose exactly once, when the Conn is closed for whatever reason
//     (EOF, an error, Close, the Loop closing).
//
// Guarantees:
//
//   - Write, from the loop goroutine, calls write(2) at once; only the bytes
//     the kernel did not take are kept, in a per-connection pending buffer,
//     and EPOLLOUT is armed until they are written. Pending reports them,
//     so that a user can apply backpressure (PauseRead of the source).
//   - A descriptor is closed only on its Loop's goroutine, after it was
//     removed from the epoll set, and every event carries the descriptor
//     and a generation number: an event that was already returned by
//     epoll_wait for a connection closed since (even when the kernel has
//     given the same descriptor number to a new socket) is dropped, never
//     delivered to another connection (the hazard of gnet's issue 621).
//   - Close, Loop.Submit and Register are safe from any goroutine: they go
//     through a mutex-protected queue and wake the Loop with an eventfd.
//     Everything else on a Conn is for the loop goroutine only (inside a
//     Handler call or a Submit function).
//   - Every Conn taken is closed exactly once: by Close before it is
//     registered, by its Loop once registered, or by Register when the
//     Loop is already closed.
//
// On systems other than Linux, New returns ErrUnsupported and the users
// keep their goroutine-per-connection path.
package netloop

import (
	"errors"
	"runtime"
)

// MaxEvents is the most events one epoll_wait returns (HAProxy's
// default).
const MaxEvents = 200

// ReadBufferSize is the size of each Loop's read buffer: the most one
// read(2) takes.
const ReadBufferSize = 64 << 10

// DefaultLoops is the number of loops a Group gets by default: one per
// GOMAXPROCS, at most 4.
func DefaultLoops() int {
	return min(runtime.GOMAXPROCS(0), 4)
}

// Handler gets a Conn's events, on its Loop's goroutine.
type Handler interface {
	// OnData gets the bytes of one read. b belongs to the Loop: it is
	// valid only until OnData returns.
	OnData(c *Conn, b []byte)
	// OnDrain is called when the pending bytes of c (Pending) have all
	// been written.
	OnDrain(c *Conn)
	// OnClose is called once when c is closed; err is nil after Close,
	// io.EOF when the peer closed, or what failed.
	OnClose(c *Conn, err error)
}

// Errors of the package.
var (
	// ErrClosed is returned for a Loop or Conn that is closed.
	ErrClosed = errors.New("netloop: closed")
	// ErrUnsupported is returned by New on systems without epoll.
	ErrUnsupported = errors.New("netloop: not supported on this system")
)
