//go:build linux

package respserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Parking: an idle client of a plain TCP or unix connection is served by
// no goroutine. Its reader registers the socket in the server's own epoll
// instance (one shot, the client's ID as the event's data: descriptors are
// reused, IDs are not), drops its request reader and returns; one poller
// goroutine per server starts the client's reader again when the socket
// becomes readable (or hangs up). The poller does not block in
// epoll_wait: the epoll instance is itself a descriptor Go's netpoller
// waits on (readable when an event is ready), so the poller is woken as
// cheaply as any goroutine reading a socket, and holds no thread while it
// waits. Go's netpoller keeps the sockets too, which is harmless: the
// reader reads through the net.Conn as always.
//
// Who serves a client is a role handed from hand to hand: the reader
// goroutine while it runs, the parked map while it is parked. The poller
// takes a client out of the map to start its reader; Client.close takes it
// out to forget it (nothing else would: no goroutine reads it). Whoever
// removes it from the map, under parker.mu, has the role.

// parkEvents are the events that wake a parked client: something to read,
// or the peer closing (EPOLLHUP and EPOLLERR are always reported). One
// shot: the registration is disarmed once it fired, until the client parks
// again.
const parkEvents = syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT

// parker is a server's epoll instance, its poller and its parked clients.
type parker struct {
	mu      sync.Mutex
	started bool // the epoll instance is open, the poller runs
	closed  bool // no more parking: the server is closing or the poller failed
	failed  bool // starting failed once (logged once)
	epfd    int
	file    *os.File // epfd, as Go's netpoller waits on it
	parked  map[int64]*Client
}

// canPark reports whether a connection can be parked: a plain TCP or unix
// socket, whose bytes are all in the kernel. A TLS connection may hold
// decrypted bytes the socket no longer shows, and others have no socket.
func canPark(conn net.Conn) bool {
	switch uncounted(conn).(type) {
	case *net.TCPConn, *net.UnixConn:
		return true
	}
	return false
}

// park hands c's serving over to the poller: when it returns true the
// caller, who was serving c, must stop touching c and must not forget it.
// It returns false, and the caller goes on serving c, when c cannot be
// parked now (it is closed, the server is closing, epoll failed).
func (s *Server) park(c *Client) bool {
	p := &s.parking
	p.mu.Lock()
	if p.closed || c.isClosed() {
		p.mu.Unlock()
		return false
	}
	if err := p.startLocked(s); err != nil {
		first := !p.failed
		p.failed = true
		p.mu.Unlock()
		if first {
			s.log.Warningf("Idle clients cannot be parked, each keeps a goroutine: %v", err)
		}
		return false
	}
	p.parked[c.ID] = c
	// Set before the registration: once registered, the poller may start
	// a reader of c at once, and this goroutine must not write c then.
	armed := c.parkArmed
	c.parkArmed = true
	epfd := p.epfd
	p.mu.Unlock()

	err := armPark(epfd, c, armed)
	if err == nil {
		return true
	}
	p.mu.Lock()
	_, mine := p.parked[c.ID]
	delete(p.parked, c.ID)
	if mine {
		c.parkArmed = false // ADD again next time (MOD would fall back to it anyway)
	}
	p.mu.Unlock()
	if !mine {
		return true // closed meanwhile: Client.close took it
	}
	if !c.isClosed() {
		s.log.Verbosef("Parking client %s: %v", c.infoLine(), err)
	}
	return false
}

// armPark registers c's socket in epfd with c's ID as the data, or re-arms
// its one-shot registration (armed: it was registered before).
func armPark(epfd int, c *Client, armed bool) error {
	sc, ok := uncounted(c.conn).(syscall.Conn)
	if !ok {
		return errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return fmt.Errorf("parking: %w", err)
	}
	var ctlErr error
	// Control holds a reference on the descriptor: it cannot be closed
	// (and its number reused) while it is registered here.
	err = rc.Control(func(fd uintptr) {
		ev := syscall.EpollEvent{Events: parkEvents}
		setToken(&ev, c.ID)
		op, other := syscall.EPOLL_CTL_ADD, syscall.EPOLL_CTL_MOD
		if armed {
			op, other = other, op
		}
		ctlErr = syscall.EpollCtl(epfd, op, int(fd), &ev)
		if errors.Is(ctlErr, syscall.ENOENT) || errors.Is(ctlErr, syscall.EEXIST) {
			ctlErr = syscall.EpollCtl(epfd, other, int(fd), &ev)
		}
	})
	if err != nil {
		return fmt.Errorf("parking: %w", err)
	}
	if ctlErr != nil {
		return fmt.Errorf("epoll_ctl: %w", ctlErr)
	}
	return nil
}

// setToken and token store and read a client ID in an event's 64 bits of
// data (the Fd and Pad fields on every Linux architecture).
func setToken(ev *syscall.EpollEvent, id int64) {
	ev.Fd = int32(uint32(id))
	ev.Pad = int32(uint32(uint64(id) >> 32))
}

func token(ev *syscall.EpollEvent) int64 {
	return int64(uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32)
}

// startLocked opens the epoll instance and starts the poller, the first
// time a client parks. Callers hold p.mu and a count of the server's
// WaitGroup (a reader's, or serveConn's for the client it registered), so
// that adding the poller to it cannot race with Close's Wait.
func (p *parker) startLocked(s *Server) error {
	if p.started {
		return nil
	}
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	if err := syscall.SetNonblock(epfd, true); err != nil {
		syscall.Close(epfd)
		return fmt.Errorf("epoll instance: %w", err)
	}
	// Non-blocking: os.NewFile registers it in Go's netpoller.
	f := os.NewFile(uintptr(epfd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return fmt.Errorf("epoll instance: %w", err)
	}
	p.epfd, p.file, p.started = epfd, f, true
	if p.parked == nil {
		p.parked = map[int64]*Client{}
	}
	s.wg.Add(1)
	go s.poll(rc)
	return nil
}

// poll is the poller: it starts the reader of each parked client whose
// socket became readable, until stopParking sets the instance's read
// deadline. It takes the ready events without blocking (epoll_wait with no
// timeout) until there are none, then waits in Go's netpoller for the
// instance to be readable again. An event of a client no longer parked
// (closed meanwhile) is ignored.
func (s *Server) poll(rc syscall.RawConn) {
	defer s.wg.Done()
	events := make([]syscall.EpollEvent, 128)
	var waitErr error
	err := rc.Read(func(fd uintptr) bool {
		for {
			n, err := syscall.EpollWait(int(fd), events, 0)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				waitErr = fmt.Errorf("epoll_wait: %w", err)
				return true
			}
			if n == 0 {
				return false // wait until the instance is readable
			}
			for i := range events[:n] {
				if c := s.parking.take(token(&events[i])); c != nil {
					s.wg.Add(1)
					go s.readLoop(c, 0)
				}
			}
		}
	})
	if err == nil {
		err = waitErr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) && s.parking.isClosed() {
		return
	}
	s.log.Warningf("Waiting for idle clients: %v; parked clients are served by goroutines again", err)
	s.unparkAll()
}

// isClosed reports whether parking was stopped.
func (p *parker) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// take removes the client id from the parked ones and returns it, or nil
// if it is not parked.
func (p *parker) take(id int64) *Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.parked[id]
	delete(p.parked, id)
	return c
}

// unparkAll stops parking and starts a reader for every parked client, when
// the poller cannot go on. Called by the poller, which the WaitGroup counts.
func (s *Server) unparkAll() {
	p := &s.parking
	p.mu.Lock()
	p.closed = true
	cs := make([]*Client, 0, len(p.parked))
	for id, c := range p.parked {
		cs = append(cs, c)
		delete(p.parked, id)
	}
	p.mu.Unlock()
	for _, c := range cs {
		s.wg.Add(1)
		go s.readLoop(c, 0)
	}
}

// unparkClosed is called once c is closed: if c is parked, nothing serves
// it, so it is taken out and forgotten here (in a goroutine: the closer
// may hold locks forgetting takes, the hub's in Publish). The WaitGroup is
// added to before c.close returns, and Close closes every client before
// waiting, so the addition happens before that Wait.
func (s *Server) unparkClosed(c *Client) {
	p := &s.parking
	p.mu.Lock()
	mine := p.parked[c.ID] == c
	if mine {
		delete(p.parked, c.ID)
	}
	p.mu.Unlock()
	if !mine {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.forget(c)
	}()
}

// stopParking refuses any more parking and makes the poller return. Close
// calls it before waiting for the server's goroutines.
func (s *Server) stopParking() {
	p := &s.parking
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.started {
		_ = p.file.SetReadDeadline(time.Unix(1, 0))
	}
}

// releaseParking closes the epoll instance, once the poller and every
// reader (who may be registering a socket) returned.
func (s *Server) releaseParking() {
	p := &s.parking
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		p.file.Close()
		p.started = false
	}
}

// parkedClients returns how many clients are parked.
func (s *Server) parkedClients() int {
	p := &s.parking
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.parked)
}
