// Package proxy is the master-following proxy: for every master with
// `sentinel proxy` addresses it accepts client connections and joins each
// to the master this Sentinel holds now, while the core says that is safe
// (view.View.ProxyRoute), and closes every connection to a master at
// once when the master changes or the proxy fences. Bytes pass through
// untouched, so AUTH, RESP3, TLS terminated by Redis and pub/sub work as
// over a direct connection.
//
// Once a connection is joined, both its sockets (the client's and the
// master's) are served by one event loop of internal/netloop, not by
// goroutines: a message costs one read(2) and one write(2) on the loop,
// with no goroutine woken (issue 31). Where there is no event loop (not
// Linux, or Config.Loops < 0) each direction is copied by a goroutine.
// Accepting, the hold while fenced and dialling stay on a goroutine per
// new connection.
package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/netloop"
	"github.com/go-sentinel/go-sentinel/internal/respserver"
)

// Route is where a master's proxy may forward now.
type Route struct {
	// Addr is the master's host:port, as this Sentinel holds it.
	Addr string
	// Addrs, when not empty, are the host:ports new connections are
	// spread over in Addr's place (the read port's replicas): each goes
	// to the one with the fewest connections open, ties taken in turn.
	// An open connection whose target is not among them is cut.
	Addrs []string
	// Fenced: the core says not to forward (Reason says why).
	Fenced bool
	Reason string
	// Hold is how long a new connection waits for an unfenced route.
	Hold time.Duration
	// Protected: apply Redis's protected mode, refusing clients other
	// than 127.0.0.1, ::1 and unix sockets (respserver.IsLocal): the data
	// nodes need no password.
	Protected bool
}

// Config is what a Server needs from the daemon.
type Config struct {
	// Lookup returns the route of a master now; false when the master is
	// not monitored (any more).
	Lookup func(master string) (Route, bool)
	// MaxClients bounds the client connections of all proxies together;
	// 0: DefaultMaxClients.
	MaxClients int
	// KeepAlive is the TCP keepalive period of both sides; 0: none.
	KeepAlive time.Duration
	// Poll is how often connections check their route between Notify
	// calls; 0: DefaultPoll.
	Poll time.Duration
	// DialTimeout bounds a connection to the master; 0: DefaultDialTimeout.
	DialTimeout time.Duration
	// Denied is the reply (CRLF included) a client refused by the
	// protected mode gets; MaxClients the one a client beyond MaxClients
	// gets (default: Redis's).
	Denied          string
	MaxClientsReply string
	// Log, if set, gets one line per listener started, stopped or failed.
	Log func(format string, args ...any)
	// OnFirstByte, if set, gets the time from a switch (Switched) to the
	// first byte forwarded to the new master, once per switch.
	OnFirstByte func(master string, d time.Duration)
	// Loops is the number of event loops joined connections are served
	// by, started at the first one; 0: DefaultLoops; < 0: none, a
	// goroutine copies each direction (as where netloop is not
	// supported).
	Loops int
}

// Defaults of Config.
const (
	DefaultMaxClients  = 10000
	DefaultPoll        = 10 * time.Millisecond
	DefaultDialTimeout = time.Second
)

// MaxPending bounds the bytes a joined connection keeps for one side
// that does not read them fast enough (beyond what the kernel's socket
// buffers hold): once the bytes waiting for a side exceed it, the proxy
// stops reading the other side until they are written. A client that
// never reads its replies so costs at most MaxPending plus one read
// (netloop.ReadBufferSize) of memory, and stalls nobody else; 64 KiB is
// a few round trips of pipelined replies and what a socket buffer holds.
const MaxPending = 64 << 10

// maxClientsMsg is what a client beyond MaxClients gets by default, as
// from Redis.
const maxClientsMsg = "-ERR max number of clients reached\r\n"

// Server runs the proxies of every master. Its methods are safe from any
// goroutine.
type Server struct {
	cfg    Config
	notify chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup

	mu        sync.Mutex
	listeners map[listenKey]net.Listener
	conns     map[*joined]struct{}
	closed    bool

	// stats are the counters by master (created at first use, never
	// removed: a master's counters only grow).
	stats map[string]*counters
	// switchedAt is when each master last switched and no byte was
	// forwarded to its new address yet.
	switchedAt map[string]time.Time

	// loops serve the joined connections (nil until the first, or when
	// they could not start: loopsFailed).
	loops       *netloop.Group
	loopsFailed bool

	// turn breaks spread's ties in turn (under mu).
	turn int
}

// listenKey is one proxy address of one master.
type listenKey struct{ master, addr string }

// joined is one client connection and, once dialled, its master
// connection.
type joined struct {
	master string
	target string // the master address it forwards to; "" before dialling
	// picked is the address chosen for it before dialling (spread).
	picked string
	client net.Conn
	server net.Conn
	srv    *Server
	ct     *counters

	// dead is set when the connection is to be closed: from then on the
	// loop forwards none of its bytes (a cut is final the moment check
	// decides it, as the goroutines' close was).
	dead atomic.Bool

	mu     sync.Mutex
	closed bool
	// lc and ls are the client's and the master's sockets once on an
	// event loop (then client and server are closed).
	lc, ls *netloop.Conn

	// sent and released belong to the loop goroutine: a byte was
	// forwarded to the master (the first is timed, firstByte); the
	// connection was released.
	sent     bool
	released bool
}

// close closes both sides; it reports whether j was open until now
// (not closed, nor ended by either side).
func (j *joined) close() bool {
	first := !j.dead.Swap(true)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return first
	}
	j.closed = true
	if j.lc != nil {
		j.lc.Close()
		j.ls.Close()
		return first
	}
	_ = j.client.Close()
	if j.server != nil {
		_ = j.server.Close()
	}
	return first
}

// New returns a Server with no listener; Sync starts them.
func New(cfg Config) *Server {
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.MaxClientsReply == "" {
		cfg.MaxClientsReply = maxClientsMsg
	}
	s := &Server{
		cfg:        cfg,
		notify:     make(chan struct{}, 1),
		done:       make(chan struct{}),
		listeners:  make(map[listenKey]net.Listener),
		conns:      make(map[*joined]struct{}),
		stats:      make(map[string]*counters),
		switchedAt: make(map[string]time.Time),
	}
	s.wg.Add(1)
	go s.watch()
	return s
}

// Sync makes the listeners those of want (listen addresses by master):
// it starts the missing ones and closes the others with their
// connections. It returns the errors of the listeners it could not start;
// the others run.
func (s *Server) Sync(want map[string][]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("proxy: closed")
	}
	keep := make(map[listenKey]bool)
	var errs []error
	for m, addrs := range want {
		for _, a := range addrs {
			k := listenKey{m, a}
			keep[k] = true
			if _, ok := s.listeners[k]; ok {
				continue
			}
			ln, err := net.Listen("tcp", a)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			s.listeners[k] = ln
			s.logf("proxy of master %s listening on %s", m, ln.Addr())
			s.wg.Add(1)
			go s.accept(k, ln)
		}
	}
	for k, ln := range s.listeners {
		if !keep[k] {
			_ = ln.Close()
			delete(s.listeners, k)
			s.logf("proxy of master %s on %s stopped", k.master, k.addr)
		}
	}
	for j := range s.conns {
		if !s.masterListened(j.master) {
			j.close()
		}
	}
	return errors.Join(errs...)
}

// masterListened reports whether a listener of master remains. The
// caller holds s.mu.
func (s *Server) masterListened(master string) bool {
	for k := range s.listeners {
		if k.master == master {
			return true
		}
	}
	return false
}

// Addrs returns the addresses the proxies of master listen on (useful
// with port 0).
func (s *Server) Addrs(master string) []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []net.Addr
	for k, ln := range s.listeners {
		if k.master == master {
			out = append(out, ln.Addr())
		}
	}
	return out
}

// Notify makes every connection check its route now (the daemon calls it
// at +switch-master and +proxy-fenced); between calls they check every
// Config.Poll.
func (s *Server) Notify() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Close stops every listener and closes every connection.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for k, ln := range s.listeners {
		_ = ln.Close()
		delete(s.listeners, k)
	}
	for j := range s.conns {
		j.close()
	}
	s.mu.Unlock()
	close(s.done)
	s.wg.Wait()
	s.mu.Lock()
	g := s.loops
	s.mu.Unlock()
	if g != nil {
		g.Close()
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log(format, args...)
	}
}

func (s *Server) accept(k listenKey, ln net.Listener) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		s.counters(k.master).accepted.Add(1)
		s.wg.Add(1)
		go s.serve(k.master, c)
	}
}

// serve admits one client, waits for a safe route, dials the master and
// joins both: on an event loop (toLoop), else by copying both ways until
// either side ends or the route changes.
func (s *Server) serve(master string, c net.Conn) {
	defer s.wg.Done()
	ct := s.counters(master)
	j := &joined{master: master, client: c, srv: s, ct: ct}
	if !s.admit(j) {
		_, _ = io.WriteString(c, s.cfg.MaxClientsReply)
		_ = c.Close()
		ct.refused.Add(1)
		return
	}
	onLoop := false
	defer func() {
		if !onLoop {
			s.release(j)
		}
	}()
	setKeepAlive(c, s.cfg.KeepAlive)
	if rt, ok := s.cfg.Lookup(master); ok && rt.Protected && !respserver.IsLocal(c.RemoteAddr()) {
		_, _ = io.WriteString(c, s.cfg.Denied)
		j.close()
		ct.refused.Add(1)
		return
	}
	rt, ok := s.waitRoute(master, ct)
	if !ok {
		j.close()
		return
	}
	target := s.pick(j, rt)
	d := net.Dialer{Timeout: s.cfg.DialTimeout, KeepAlive: s.cfg.KeepAlive}
	if s.cfg.KeepAlive <= 0 {
		d.KeepAlive = -1
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		cancel()
	}()
	sc, err := d.DialContext(ctx, "tcp", target)
	cancel()
	if err != nil {
		j.close()
		return
	}
	if !s.attach(j, sc, target) {
		return
	}
	if onLoop = s.toLoop(j); onLoop {
		return
	}
	done := make(chan struct{}, 2)
	go func() { s.copyToMaster(j, ct); done <- struct{}{} }()
	go func() { s.copy(c, sc, &ct.toClient); done <- struct{}{} }()
	<-done
	j.close()
	<-done
}

// copyToMaster moves the client's bytes to its master: the first chunk
// by hand, to time it against the last switch (Switched), the rest by
// copy.
func (s *Server) copyToMaster(j *joined, ct *counters) {
	buf := make([]byte, firstChunk)
	n, err := j.client.Read(buf)
	if n > 0 {
		if _, werr := j.server.Write(buf[:n]); werr != nil {
			return
		}
		ct.toMaster.Add(int64(n))
		s.firstByte(j.master)
	}
	if err != nil {
		return
	}
	s.copy(j.server, j.client, &ct.toMaster)
}

// firstChunk is the most a connection's first read takes before the
// copy (splice) takes over.
const firstChunk = 4096

// firstByte reports the time since master's last switch, once.
func (s *Server) firstByte(master string) {
	s.mu.Lock()
	at, ok := s.switchedAt[master]
	delete(s.switchedAt, master)
	s.mu.Unlock()
	if ok && s.cfg.OnFirstByte != nil {
		s.cfg.OnFirstByte(master, time.Since(at))
	}
}

// Switched records that master switched at at: the next byte forwarded
// to it is timed against it (Config.OnFirstByte).
func (s *Server) Switched(master string, at time.Time) {
	s.mu.Lock()
	s.switchedAt[master] = at
	s.mu.Unlock()
	s.Notify()
}

// counters returns master's counters.
func (s *Server) counters(master string) *counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.countersLocked(master)
}

// countersLocked is counters for a caller that holds s.mu.
func (s *Server) countersLocked(master string) *counters {
	c := s.stats[master]
	if c == nil {
		c = &counters{}
		s.stats[master] = c
	}
	return c
}

// copy moves bytes from src to dst (splice(2) between TCP sockets on
// Linux) and counts them.
func (s *Server) copy(dst, src net.Conn, n *atomic.Int64) {
	k, _ := io.Copy(dst, src)
	n.Add(k)
}

// admit counts j among the open connections unless MaxClients are.
func (s *Server) admit(j *joined) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.conns) >= s.cfg.MaxClients {
		return false
	}
	s.conns[j] = struct{}{}
	return true
}

func (s *Server) release(j *joined) {
	s.mu.Lock()
	delete(s.conns, j)
	s.mu.Unlock()
	j.close()
}

// attach records j's master connection, unless the route changed while
// it was dialled (the check and the record are one step against watch).
func (s *Server) attach(j *joined, sc net.Conn, target string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.cfg.Lookup(j.master)
	if s.closed || !ok || rt.Fenced || !rt.serves(target) {
		_ = sc.Close()
		j.close()
		return false
	}
	j.server, j.target = sc, target
	setKeepAlive(sc, s.cfg.KeepAlive)
	return true
}

// waitRoute waits up to the route's hold for it to be unfenced.
func (s *Server) waitRoute(master string, ct *counters) (Route, bool) {
	rt, ok := s.cfg.Lookup(master)
	if !ok {
		return rt, false
	}
	if rt.open() {
		return rt, true
	}
	ct.held.Add(1)
	deadline := time.NewTimer(rt.Hold)
	defer deadline.Stop()
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return rt, false
		case <-deadline.C:
			ct.holdExpired.Add(1)
			return rt, false
		case <-tick.C:
		}
		rt, ok = s.cfg.Lookup(master)
		if !ok {
			return rt, false
		}
		if rt.open() {
			return rt, true
		}
	}
}

// watch closes, at every Notify and every Poll, the connections whose
// master is fenced or is no longer the one they forward to.
func (s *Server) watch() {
	defer s.wg.Done()
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.notify:
		case <-tick.C:
		}
		s.check()
	}
}

func (s *Server) check() {
	s.mu.Lock()
	defer s.mu.Unlock()
	routes := make(map[string]Route)
	now := time.Now()
	for k := range s.listeners {
		if _, seen := routes[k.master]; seen {
			continue
		}
		rt, ok := s.cfg.Lookup(k.master)
		if !ok {
			rt = Route{Fenced: true}
		}
		routes[k.master] = rt
		ct := s.countersLocked(k.master)
		if ct.fenced.Load() && !ct.lastCheck.IsZero() {
			ct.fencedNanos.Add(int64(now.Sub(ct.lastCheck)))
		}
		ct.fenced.Store(rt.Fenced)
		ct.lastCheck = now
	}
	for j := range s.conns {
		if j.target == "" {
			continue
		}
		rt, seen := routes[j.master]
		if !seen {
			var ok bool
			rt, ok = s.cfg.Lookup(j.master)
			if !ok {
				rt = Route{Fenced: true}
			}
			routes[j.master] = rt
		}
		// A connection closed already (by an earlier check, or ending
		// on its own) waits to be released: not cut again.
		if (rt.Fenced || !rt.serves(j.target)) && j.close() {
			s.countersLocked(j.master).cut.Add(1)
		}
	}
}

func setKeepAlive(c net.Conn, d time.Duration) {
	if tc, ok := c.(*net.TCPConn); ok && d > 0 {
		_ = tc.SetKeepAlive(true)
		_ = tc.SetKeepAlivePeriod(d)
	}
}
