//go:build linux

package netloop

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Group is a fixed set of Loops, handed out in turn by Next.
type Group struct {
	loops []*Loop
	next  atomic.Uint32
}

// New starts a Group of n Loops (n <= 0: DefaultLoops) that block in
// epoll_wait when nothing is ready: for busy groups (the proxy).
func New(n int) (*Group, error) { return startGroup(n, false) }

// NewParking starts a Group of n Loops (n <= 0: DefaultLoops) that, when
// nothing is ready, park in Go's netpoller (their epoll instance is itself
// a descriptor it waits on) instead of holding a thread in epoll_wait, and
// never yield between batches: for groups that are idle most of the time
// (the links). A blocking epoll_wait hands the loop's P off and takes it
// back at every wake, which a loop woken a few hundred times a second pays
// in futex calls; parked, it is woken like any goroutine reading a socket.
func NewParking(n int) (*Group, error) { return startGroup(n, true) }

func startGroup(n int, parking bool) (*Group, error) {
	if n <= 0 {
		n = DefaultLoops()
	}
	g := &Group{}
	for range n {
		l, err := newLoop(parking)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.loops = append(g.loops, l)
	}
	return g, nil
}

// Next returns the Loops of g in turn.
func (g *Group) Next() *Loop {
	return g.loops[int(g.next.Add(1)-1)%len(g.loops)]
}

// Len is the number of Loops of g.
func (g *Group) Len() int { return len(g.loops) }

// Close closes every Loop of g (and so all their connections) and waits
// for their goroutines to end.
func (g *Group) Close() {
	for _, l := range g.loops {
		l.Close()
	}
}

// Loop is one event loop: a goroutine, an epoll instance, an eventfd
// that wakes it for queued work, and a read buffer.
type Loop struct {
	epfd int
	evfd int
	done chan struct{}

	mu     sync.Mutex
	tasks  []func()
	woken  bool // an eventfd write is pending
	closed bool

	// The rest belongs to the loop goroutine.
	conns  []*Conn // by descriptor
	gen    uint32
	buf    []byte
	events [MaxEvents]unix.EpollEvent
	spare  []func()
	// batchEnd, if set (SetBatchEnd), runs after each batch of events
	// and tasks.
	batchEnd func()
	// park, for a parking Loop (NewParking), is a duplicate of epfd as Go's
	// netpoller waits on it; parkRC is its RawConn.
	park   *os.File
	parkRC syscall.RawConn
	// parkPoll is pollReady, made once; parkN and parkErr are what it
	// found.
	parkPoll func(uintptr) bool
	parkN    int
	parkErr  error
	// linger is how long the Loop waits for more events in epoll_pwait2
	// after a batch with events before it parks or blocks (SetLinger);
	// yielded is when a blocking Loop last yielded its P in lingerWait,
	// and oneP whether Go then ran on one P; lingers counts the linger
	// waits (for tests).
	linger  time.Duration
	yielded time.Time
	oneP    bool
	lingers int
}

func newLoop(parking bool) (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("netloop: epoll_create1: %w", err)
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_ = unix.Close(epfd)
		return nil, fmt.Errorf("netloop: eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(evfd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		_ = unix.Close(evfd)
		_ = unix.Close(epfd)
		return nil, fmt.Errorf("netloop: epoll_ctl eventfd: %w", err)
	}
	l := &Loop{epfd: epfd, evfd: evfd, done: make(chan struct{}), buf: make([]byte, ReadBufferSize)}
	if parking {
		if err := l.openPark(); err != nil {
			_ = unix.Close(evfd)
			_ = unix.Close(epfd)
			return nil, err
		}
	}
	go l.run()
	return l, nil
}

// Submit runs f on l's goroutine, after the events being served; it
// returns ErrClosed (and f never runs) when l is closed.
func (l *Loop) Submit(f func()) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.queueLocked(f)
	return nil
}

// queueLocked appends f to the tasks and wakes the loop. The caller holds
// l.mu.
func (l *Loop) queueLocked(f func()) {
	l.tasks = append(l.tasks, f)
	if !l.woken {
		l.woken = true
		var one = [8]byte{1}
		// An eventfd write fails only when the counter would overflow,
		// which one pending write cannot make it do.
		_, _ = unix.Write(l.evfd, one[:])
	}
}

// Close closes every connection of l (OnClose gets ErrClosed), stops its
// goroutine and waits for it. Safe from any goroutine but l's own.
func (l *Loop) Close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		if !l.woken {
			l.woken = true
			var one = [8]byte{1}
			_, _ = unix.Write(l.evfd, one[:])
		}
	}
	l.mu.Unlock()
	<-l.done
}

// Register hands cs to l: from the next loop iteration on, l reads them
// and calls their Handlers. A Conn closed before (Close) is skipped. When
// l is closed, it closes the descriptors of cs (no Handler is called)
// and returns ErrClosed. Safe from any goroutine; the Handlers of cs may
// be called before Register returns.
func (l *Loop) Register(cs ...*Conn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		for _, c := range cs {
			if c.state.CompareAndSwap(stateTaken, stateClosed) {
				_ = unix.Close(c.fd)
			}
		}
		return ErrClosed
	}
	given := make([]*Conn, 0, len(cs))
	for _, c := range cs {
		c.loop = l
		if c.state.CompareAndSwap(stateTaken, stateGiven) {
			given = append(given, c)
		}
	}
	l.queueLocked(func() {
		for _, c := range given {
			l.add(c)
		}
	})
	return nil
}

// add puts c in the epoll set, reading.
func (l *Loop) add(c *Conn) {
	if c.closed {
		return // closed with a Conn registered in the same call
	}
	l.gen++
	c.gen = l.gen
	c.reading = true
	c.events = unix.EPOLLIN
	ev := unix.EpollEvent{Events: c.events, Fd: int32(c.fd), Pad: int32(c.gen)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		l.closeConn(c, fmt.Errorf("netloop: epoll_ctl add: %w", err))
		return
	}
	for c.fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*Conn, len(l.conns)+64)...)
	}
	l.conns[c.fd] = c
	c.registered = true
}

// run is the loop: wait, serve the events, run the queued tasks.
func (l *Loop) run() {
	defer close(l.done)
	busy := false
	for {
		n, err := l.wait(busy)
		busy = n > 0
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			// Cannot happen with a valid epoll descriptor; stop rather
			// than spin.
			l.mu.Lock()
			l.closed = true
			l.mu.Unlock()
			l.shutdown(fmt.Errorf("netloop: epoll_wait: %w", err))
			return
		}
		wake := false
		for i := range n {
			ev := &l.events[i]
			fd := int(ev.Fd)
			if fd == l.evfd {
				wake = true
				continue
			}
			if fd >= len(l.conns) {
				continue
			}
			c := l.conns[fd]
			if c == nil || c.gen != uint32(ev.Pad) {
				// Closed while this batch was served (and maybe the
				// descriptor reused since).
				continue
			}
			l.serve(c, ev.Events)
		}
		if wake && l.runTasks() {
			l.shutdown(ErrClosed)
			return
		}
		if l.batchEnd != nil {
			l.batchEnd()
		}
	}
}

// wait is epoll_wait. After an iteration that served events it first
// polls without blocking and without telling the runtime (a raw system
// call: nothing to hand the P over for), and only when that finds
// nothing lingers (SetLinger), or else yields once and blocks, as gnet
// does: under load the loop goes from batch to batch without parking its
// thread. Measured on 2 cores
// (proxy, redis-benchmark -c 50 SET, same rounds): without the Gosched
// 69–70k requests/s at 10.0–10.5 µs CPU each against 76–79k at
// 8.4–8.8 µs; parking in Go's netpoller (epfd registered there) instead
// of blocking in epoll_wait 48–55k against 58–66k.
func (l *Loop) wait(busy bool) (int, error) {
	if l.parkRC != nil {
		if busy && l.linger > 0 {
			if n, err := l.lingerWait(); n > 0 || err != nil {
				return n, err
			}
		}
		return l.waitParked()
	}
	if busy {
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
		if e != 0 {
			return 0, e
		}
		if r > 0 {
			return int(r), nil
		}
		if l.linger == 0 {
			runtime.Gosched()
		} else if n, err := l.lingerWait(); n > 0 || err != nil {
			return n, err
		}
	}
	return unix.EpollWait(l.epfd, l.events[:], -1)
}

// read and write are read(2) and write(2) of a non-blocking socket:
// they never block, so they are raw system calls, which skip the
// runtime's bookkeeping for calls that may (as gnet's and Go's own
// netpoller's non-blocking I/O would pay it).
func read(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func write(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// runTasks runs the queued tasks; it reports whether l is closing.
func (l *Loop) runTasks() bool {
	var b [8]byte
	_, _ = unix.Read(l.evfd, b[:])
	l.mu.Lock()
	tasks := l.tasks
	l.tasks = l.spare[:0]
	l.woken = false
	closing := l.closed
	l.mu.Unlock()
	for i, f := range tasks {
		f()
		tasks[i] = nil
	}
	l.spare = tasks[:0]
	return closing
}

// shutdown closes every connection and l's descriptors. Tasks queued
// before l was closed have run.
func (l *Loop) shutdown(err error) {
	l.mu.Lock()
	tasks := l.tasks
	l.tasks = nil
	l.mu.Unlock()
	for _, f := range tasks {
		f()
	}
	for _, c := range l.conns {
		if c != nil {
			l.closeConn(c, err)
		}
	}
	_ = unix.Close(l.evfd)
	_ = unix.Close(l.epfd)
	if l.park != nil {
		_ = l.park.Close()
	}
}

// serve handles one event of c.
func (l *Loop) serve(c *Conn, events uint32) {
	if events&unix.EPOLLOUT != 0 && c.Pending() > 0 {
		l.flush(c)
		if c.closed {
			return
		}
	}
	if events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
		return
	}
	if !c.reading {
		// Paused: only a hang-up or an error gets here, and level
		// triggering would repeat it at every wait.
		if events&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.closeConn(c, sockError(c.fd))
		}
		return
	}
	for {
		n, err := read(c.fd, l.buf)
		switch {
		case err == nil && n > 0:
			c.h.OnData(c, l.buf[:n])
		case err == nil:
			l.peerDone(c)
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
		default:
			l.closeConn(c, fmt.Errorf("netloop: read: %w", err))
		}
		return
	}
}

// peerDone handles the end of c's input (the peer shut its side down):
// c closes with io.EOF at once when nothing is pending, else once what
// it wrote reaches the peer, which may still be reading (a half-close),
// so that no byte Write accepted is dropped.
func (l *Loop) peerDone(c *Conn) {
	if c.Pending() == 0 {
		l.closeConn(c, io.EOF)
		return
	}
	c.drainErr = io.EOF
	c.closeOnDrain = true
	c.PauseRead()
}

// errHangup is what a paused connection that hung up is closed with when
// the socket names no error.
var errHangup = errors.New("netloop: hang-up")

// sockError is the pending error of a socket, or errHangup.
func sockError(fd int) error {
	if n, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); err == nil && n != 0 {
		return fmt.Errorf("netloop: socket: %w", unix.Errno(n))
	}
	return errHangup
}

// flush writes what is pending for c.
func (l *Loop) flush(c *Conn) {
	for c.off < len(c.pending) {
		n, err := write(c.fd, c.pending[c.off:])
		switch {
		case err == nil:
			c.off += n
			if c.off < len(c.pending) {
				return // the kernel took less: wait for EPOLLOUT again
			}
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.EAGAIN):
			return
		default:
			if c.drainErr != nil {
				// The peer had finished and has gone: its end, not a fault.
				l.closeConn(c, c.drainErr)
				return
			}
			l.closeConn(c, fmt.Errorf("netloop: write: %w", err))
			return
		}
	}
	c.pending, c.off = nil, 0
	if c.closeOnDrain {
		l.closeConn(c, c.drainErr)
		return
	}
	l.setEvents(c)
	c.h.OnDrain(c)
}

// setEvents makes c's registration match what it waits for.
func (l *Loop) setEvents(c *Conn) {
	var want uint32
	if c.reading {
		want |= unix.EPOLLIN
	}
	if c.Pending() > 0 {
		want |= unix.EPOLLOUT
	}
	if want == c.events || !c.registered {
		c.events = want
		return
	}
	ev := unix.EpollEvent{Events: want, Fd: int32(c.fd), Pad: int32(c.gen)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev); err != nil {
		l.closeConn(c, fmt.Errorf("netloop: epoll_ctl mod: %w", err))
		return
	}
	c.events = want
}

// closeConn deregisters and closes c, then calls its OnClose; a no-op
// for a Conn closed already.
func (l *Loop) closeConn(c *Conn, err error) {
	if c.closed {
		return
	}
	c.closed = true
	if c.registered {
		_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
		l.conns[c.fd] = nil
		c.registered = false
	}
	_ = unix.Close(c.fd)
	c.state.Store(stateClosed)
	c.pending, c.off = nil, 0
	c.h.OnClose(c, err)
}

// Conn states (Conn.state): taken from its net.TCPConn, given to a Loop
// (Register), closed.
const (
	stateTaken int32 = iota
	stateGiven
	stateClosed
)

// Conn is a socket served by a Loop.
type Conn struct {
	fd    int
	h     Handler
	state atomic.Int32
	loop  *Loop

	// The rest belongs to the loop goroutine.
	gen        uint32
	registered bool
	closed     bool
	reading    bool
	// closeOnDrain: CloseWhenFlushed was called; close once Pending is 0.
	closeOnDrain bool
	// drainErr is what OnClose gets when c closes on drain: nil after
	// CloseWhenFlushed, io.EOF when the peer ended its input first.
	drainErr error
	events   uint32
	pending  []byte
	off      int // pending[:off] is written
}

// Take takes the socket out of tc (a duplicate of its descriptor; tc is
// closed, so Go's netpoller forgets it) for a Loop to serve with h. The
// socket keeps its options and the bytes the kernel holds. The Conn must
// then be registered (Loop.Register) or closed.
func Take(tc *net.TCPConn, h Handler) (*Conn, error) {
	rc, err := tc.SyscallConn()
	if err != nil {
		_ = tc.Close()
		return nil, fmt.Errorf("netloop: take: %w", err)
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) {
		fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		derr = err
	}
	_ = tc.Close()
	if derr != nil {
		return nil, fmt.Errorf("netloop: take: dup: %w", derr)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("netloop: take: %w", err)
	}
	return &Conn{fd: fd, h: h}, nil
}

// Close closes c: at once when it is not registered yet, else on its
// Loop's goroutine, which calls OnClose with a nil error. Safe from any
// goroutine, any number of times.
func (c *Conn) Close() {
	for {
		switch c.state.Load() {
		case stateTaken:
			if c.state.CompareAndSwap(stateTaken, stateClosed) {
				_ = unix.Close(c.fd)
				return
			}
		case stateGiven:
			l := c.loop
			// A closed Loop has closed c already, or Register did.
			_ = l.Submit(func() { l.closeConn(c, nil) })
			return
		default:
			return
		}
	}
}

// CloseNow closes c at once, calling its OnClose with err; from the loop
// goroutine only.
func (c *Conn) CloseNow(err error) {
	if c.loop != nil && c.state.Load() == stateGiven {
		c.loop.closeConn(c, err)
		return
	}
	c.Close()
}

// CloseWhenFlushed stops reading c and closes it (OnClose gets a nil
// error) once its pending bytes are written: at once when there are
// none. From the loop goroutine only.
func (c *Conn) CloseWhenFlushed() {
	if c.closed || c.loop == nil {
		return
	}
	if c.Pending() == 0 {
		c.loop.closeConn(c, nil)
		return
	}
	c.closeOnDrain = true
	c.PauseRead()
}

// Closed reports whether c is closed; from the loop goroutine only.
func (c *Conn) Closed() bool { return c.closed }

// Write writes b at once (write(2)); the bytes the kernel does not take
// are kept and written when the socket can take them (Pending). After
// an error c is closed (OnClose ran). From the loop goroutine only.
func (c *Conn) Write(b []byte) error {
	if c.closed || c.loop == nil {
		return ErrClosed
	}
	if c.off < len(c.pending) {
		if c.off > 0 && c.off >= len(c.pending)/2 {
			c.pending = c.pending[:copy(c.pending, c.pending[c.off:])]
			c.off = 0
		}
		c.pending = append(c.pending, b...)
		return nil
	}
	for len(b) > 0 {
		n, err := write(c.fd, b)
		if err == nil {
			b = b[n:]
			if len(b) > 0 {
				break // the kernel took less: it would refuse the rest
			}
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		err = fmt.Errorf("netloop: write: %w", err)
		c.loop.closeConn(c, err)
		return err
	}
	if len(b) > 0 {
		c.pending = append(c.pending[:0], b...)
		c.off = 0
		c.loop.setEvents(c)
	}
	return nil
}

// Pending is the number of bytes written to c that the kernel did not
// take yet. From the loop goroutine only.
func (c *Conn) Pending() int { return len(c.pending) - c.off }

// PauseRead stops reading c (its bytes wait in the kernel) until
// ResumeRead. From the loop goroutine only.
func (c *Conn) PauseRead() {
	if c.reading && !c.closed {
		c.reading = false
		c.loop.setEvents(c)
	}
}

// ResumeRead reads c again after PauseRead; a no-op once c is closing
// (CloseWhenFlushed, or the peer ended its input with bytes still
// pending). From the loop goroutine only.
func (c *Conn) ResumeRead() {
	if !c.reading && !c.closed && !c.closeOnDrain {
		c.reading = true
		c.loop.setEvents(c)
	}
}

// Reading reports whether c is read (not paused). From the loop
// goroutine only.
func (c *Conn) Reading() bool { return c.reading }
