// Package respserver is the Sentinel's own RESP port: connections, a
// request reader with Redis 7.0's limits and errors, a RESP2/RESP3 reply
// writer, command dispatch with Redis's
// error texts, authentication, protected mode and pub/sub of events. It
// reads and changes the core only through Backend.
package respserver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// Options configures a Server.
type Options struct {
	// Port is the TCP port; 0 disables TCP listening, as in Redis.
	Port int
	// Bind lists the addresses to listen on, as the `bind` directive
	// gives them (`*`, `::*`, a leading `-` for optional ones). Nil means
	// all interfaces; an empty non-nil list means no TCP listener.
	Bind          []string
	ProtectedMode bool
	// TLSPort, when not 0, is a second port on the same addresses that
	// speaks TLS with TLSConfig.
	TLSPort   int
	TLSConfig *tls.Config
	// Maxclients is the most connections served at once; 0 is unlimited.
	// Listen lowers it, as Redis does, when the open files limit cannot be
	// raised to Maxclients plus the descriptors the process needs itself.
	Maxclients int
	// QueryBufferLimit is client-query-buffer-limit: a client whose
	// pending request grows past it is closed. 0 means Redis's 1gb.
	QueryBufferLimit int
	// MaxBulkLen is proto-max-bulk-len, the longest argument a request
	// may announce. 0 means Redis's 512mb.
	MaxBulkLen int
	// OutputLimits are the client-output-buffer-limit classes that apply
	// to the port's clients; nil means Redis's defaults.
	OutputLimits *OutputLimits
	// Unixsocket, when set, is a unix socket path also listened on, with
	// permissions Unixsocketperm (0 keeps the umask's).
	Unixsocket     string
	Unixsocketperm uint32
	// IdleTimeout closes clients idle for longer (`timeout`); 0 never.
	// Pub/sub clients are exempt, as in Redis.
	IdleTimeout time.Duration
	// TCPKeepalive is the keep-alive period of accepted TCP connections
	// (`tcp-keepalive`); 0 disables keep-alives.
	TCPKeepalive time.Duration
	Users        *acl.Users
	Info         ServerInfo
	Backend      Backend
	Logger       Logger
	// Now is the clock for client ages and INFO; nil is time.Now.
	Now func() time.Time
	// Surface is the command surface the port presents (`sentinel
	// command-surface`); the zero value is Redis 7.0's.
	Surface commands.Surface
	// Loops is how many event loops serve the plain TCP clients (loop.go):
	// 0 is defaultLoops (one); below 0 none, every client is served by
	// goroutines as TLS and unix socket clients are.
	Loops int
}

// OutputLimit is one class of client-output-buffer-limit: a client of the
// class is closed when the output waiting to be written to it reaches
// Hard bytes, or stays at or above Soft bytes for more than SoftSeconds.
// A zero limit is no limit.
type OutputLimit struct {
	Hard        int64
	Soft        int64
	SoftSeconds int
}

// OutputLimits are the classes of client-output-buffer-limit a Sentinel's
// clients fall in: pub/sub for clients subscribed to anything, normal for
// the others.
type OutputLimits struct {
	Normal OutputLimit
	PubSub OutputLimit
}

// DefaultOutputLimits are Redis 7.0's defaults: `client-output-buffer-limit
// normal 0 0 0 pubsub 32mb 8mb 60`.
var DefaultOutputLimits = OutputLimits{PubSub: OutputLimit{Hard: 32 << 20, Soft: 8 << 20, SoftSeconds: 60}}

// Server is the RESP listener and its clients.
type Server struct {
	opts         Options
	users        *acl.Users
	log          Logger
	now          func() time.Time
	hub          *hub
	stats        stats
	pause        pauseState
	outputLimits OutputLimits
	parking      parker
	// parkAfter and parkNewAfter are how long a client stays idle
	// before it is parked, between requests and before its first;
	// parkNewLimit bounds the new connections waiting for their first
	// with a goroutine, newWaiting counts them (defaultParkAfter,
	// defaultParkNewAfter, defaultParkNewLimit; tests change them).
	parkAfter, parkNewAfter time.Duration
	parkNewLimit            int64
	newWaiting              atomic.Int64
	// loops serve the plain TCP clients (loop.go); loopClients counts
	// those clients, loopReaders those of them holding a request reader.
	loops                    loops
	loopClients, loopReaders atomic.Int64

	mu         sync.Mutex
	listeners  []net.Listener
	clients    map[int64]*Client
	maxclients int
	nextID     int64
	closed     bool
	cronOn     bool
	stop       chan struct{}
	wg         sync.WaitGroup
}

// New returns a server; call Listen then Serve.
func New(opts Options) *Server {
	s := &Server{
		opts:    opts,
		users:   opts.Users,
		log:     opts.Logger,
		now:     opts.Now,
		clients: map[int64]*Client{},
		hub:     newHub(),
		pause:   pauseState{changed: make(chan struct{})},
		stop:    make(chan struct{}),

		maxclients:   opts.Maxclients,
		outputLimits: DefaultOutputLimits,
		parkAfter:    defaultParkAfter,
		parkNewAfter: defaultParkNewAfter,
		parkNewLimit: defaultParkNewLimit,
	}
	if opts.OutputLimits != nil {
		s.outputLimits = *opts.OutputLimits
	}
	if s.users == nil {
		s.users, _ = acl.Load(acl.Options{Surface: opts.Surface})
	}
	if s.log == nil {
		s.log = nopLogger{}
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// listenAddrs turns the bind list into listen addresses. Optional ones
// (leading `-`) may fail to bind without failing the start.
func listenAddrs(bind []string, port int) (addrs []string, optional []bool) {
	p := fmt.Sprint(port)
	if bind == nil {
		return []string{net.JoinHostPort("", p)}, []bool{false}
	}
	for _, b := range bind {
		opt := strings.HasPrefix(b, "-")
		b = strings.TrimPrefix(b, "-")
		switch b {
		case "*":
			b = "0.0.0.0"
		case "::*":
			b = "::"
		}
		addrs = append(addrs, net.JoinHostPort(b, p))
		optional = append(optional, opt)
	}
	return addrs, optional
}

// Listen opens every listener. Failing to bind a required address is an
// error (fatal at start-up, as in Redis); nothing stays open then.
func (s *Server) Listen() error {
	var lns []net.Listener
	fail := func(err error) error {
		for _, l := range lns {
			l.Close()
		}
		return err
	}
	for _, port := range []int{s.opts.Port, s.opts.TLSPort} {
		if port == 0 {
			continue
		}
		useTLS := port == s.opts.TLSPort && port != s.opts.Port
		if useTLS && s.opts.TLSConfig == nil {
			return fail(fmt.Errorf("tls-port %d set without a TLS configuration", port))
		}
		addrs, optional := listenAddrs(s.opts.Bind, port)
		for i, a := range addrs {
			ln, err := net.Listen("tcp", a)
			if err != nil {
				if optional[i] {
					s.log.Verbosef("Could not create server TCP listening socket %s: %v (optional, skipped)", a, err)
					continue
				}
				return fail(fmt.Errorf("could not create server TCP listening socket %s: %w", a, err))
			}
			if useTLS {
				ln = tls.NewListener(ln, s.opts.TLSConfig)
			}
			lns = append(lns, ln)
		}
	}
	if s.opts.Unixsocket != "" {
		_ = os.Remove(s.opts.Unixsocket)
		ln, err := net.Listen("unix", s.opts.Unixsocket)
		if err != nil {
			return fail(fmt.Errorf("could not create server unix socket %s: %w", s.opts.Unixsocket, err))
		}
		if s.opts.Unixsocketperm != 0 {
			_ = os.Chmod(s.opts.Unixsocket, os.FileMode(s.opts.Unixsocketperm))
		}
		lns = append(lns, ln)
	}
	if s.opts.Maxclients > 0 {
		n, err := adjustOpenFilesLimit(s.opts.Maxclients, s.log)
		if err != nil {
			return fail(err)
		}
		s.mu.Lock()
		s.maxclients = n
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.listeners = lns
	s.mu.Unlock()
	return nil
}

// Maxclients returns the maxclients in force (lowered by Listen when the
// open files limit is too low for the configured one).
func (s *Server) Maxclients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxclients
}

// Addrs returns the addresses actually listened on.
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []net.Addr
	for _, l := range s.listeners {
		out = append(out, l.Addr())
	}
	return out
}

// Serve starts accepting on every listener and returns at once.
func (s *Server) Serve() {
	s.startCron()
	s.wg.Add(1)
	go s.sampleStats()
	s.mu.Lock()
	lns := append([]net.Listener(nil), s.listeners...)
	s.mu.Unlock()
	for _, ln := range lns {
		s.serveListener(ln)
	}
}

// ServeListener serves an already open listener (tests, socket
// activation) in addition to the configured ones, and returns at once.
func (s *Server) ServeListener(ln net.Listener) {
	s.mu.Lock()
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	s.serveListener(ln)
}

func (s *Server) serveListener(ln net.Listener) {
	s.startCron()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go s.acceptLoop(countingListener{ln, &s.stats})
}

// startCron starts the once-a-second client checks (cron), once.
func (s *Server) startCron() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.cronOn {
		return
	}
	s.cronOn = true
	s.wg.Add(1)
	go s.cron()
}

// acceptLoop accepts connections until the listener closes. Accept errors
// other than the listener being closed (out of file descriptors, mostly)
// are retried after a pause growing from 5 ms to 1 s, so that they do not
// spin a CPU.
func (s *Server) acceptLoop(ln net.Listener) {
	defer s.wg.Done()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.isClosed() {
				return
			}
			if delay == 0 {
				delay = 5 * time.Millisecond
			} else {
				delay = min(2*delay, time.Second)
			}
			s.log.Verbosef("Accepting client connection: %v", err)
			select {
			case <-time.After(delay):
			case <-s.stop:
				return
			}
			continue
		}
		delay = 0
		s.serveConn(nc)
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// cron runs once a second, as Redis's clientsCron: it closes the clients
// idle for longer than IdleTimeout (except pub/sub clients) and those that
// stayed over an output buffer soft limit for too long.
func (s *Server) cron() {
	defer s.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var cs []*Client
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		now := s.now()
		cs = s.appendClients(cs[:0])
		for _, c := range cs {
			if c.checkOutputLimits(now.Unix()) {
				continue
			}
			if s.opts.IdleTimeout <= 0 {
				continue
			}
			c.mu.Lock()
			idle := time.Duration(now.UnixNano()-c.lastActive) > s.opts.IdleTimeout && c.subscriptions() == 0
			c.mu.Unlock()
			if idle {
				c.close()
			}
		}
		clear(cs)
	}
}

// Close stops listening and disconnects every client.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.stop)
	lns := s.listeners
	clients := make([]*Client, 0, len(s.clients))
	for _, c := range s.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	for _, l := range lns {
		l.Close()
	}
	for _, c := range clients {
		c.close()
	}
	s.stopParking()
	s.closeLoops()
	s.wg.Wait()
	s.releaseParking()
	if s.opts.Unixsocket != "" {
		_ = os.Remove(s.opts.Unixsocket)
	}
	return nil
}

// IsLocal reports whether a peer counts as local for protected mode. As in
// Redis only 127.0.0.1, ::1 and unix sockets do: 127.0.0.2 does not. The
// master-following proxy applies the same rule.
func IsLocal(addr net.Addr) bool {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.Equal(net.IPv4(127, 0, 0, 1)) || tcp.IP.Equal(net.IPv6loopback)
	}
	return addr.Network() == "unix"
}

// deniedMsg is Redis 7.0's protected-mode refusal, sent verbatim.
const deniedMsg = "-DENIED Redis is running in protected mode because protected " +
	"mode is enabled and no password is set for the default user. " +
	"In this mode connections are only accepted from the loopback interface. " +
	"If you want to connect from external computers to Redis you " +
	"may adopt one of the following solutions: " +
	"1) Just disable protected mode sending the command " +
	"'CONFIG SET protected-mode no' from the loopback interface " +
	"by connecting to Redis from the same host the server is " +
	"running, however MAKE SURE Redis is not publicly accessible " +
	"from internet if you do so. Use CONFIG REWRITE to make this " +
	"change permanent. " +
	"2) Alternatively you can just disable the protected mode by " +
	"editing the Redis configuration file, and setting the protected " +
	"mode option to 'no', and then restarting the server. " +
	"3) If you started the server manually just for testing, restart " +
	"it with the '--protected-mode no' option. " +
	"4) Setup a an authentication password for the default user. " +
	"NOTE: You only need to do one of the above things in order for " +
	"the server to start accepting connections from the outside.\r\n"

// maxclientsMsg is Redis's refusal of a connection over maxclients.
const maxclientsMsg = "-ERR max number of clients reached\r\n"

// DeniedReply and MaxClientsReply are the protected-mode and maxclients
// refusals, CRLF included, for the other listeners that speak for a
// Redis (the master-following proxy).
const (
	DeniedReply     = deniedMsg
	MaxClientsReply = maxclientsMsg
)

// refuseTimeout bounds writing a refusal (maxclients, protected mode) or
// the reply to a protocol error to a client that does not read.
const refuseTimeout = 10 * time.Second

// serveConn registers a new connection and starts serving it, or refuses
// it over maxclients with Redis's message (a TLS connection is closed
// without one, as in Redis: no handshake was done yet).
func (s *Server) serveConn(nc net.Conn) {
	s.stats.connections.Add(1)
	raw := uncounted(nc) // Redis does not count its refusals as output
	tcp := raw
	if tc, ok := raw.(*tls.Conn); ok {
		tcp = tc.NetConn()
	}
	if tc, ok := tcp.(*net.TCPConn); ok {
		if s.opts.TCPKeepalive > 0 {
			_ = tc.SetKeepAlive(true)
			_ = tc.SetKeepAlivePeriod(s.opts.TCPKeepalive)
		} else {
			_ = tc.SetKeepAlive(false)
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return
	}
	if s.maxclients > 0 && len(s.clients) >= s.maxclients {
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		if tcp == raw {
			_ = raw.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
			_, _ = raw.Write([]byte(maxclientsMsg))
		}
		nc.Close()
		return
	}
	s.nextID++
	c := newClient(s, s.nextID, nc, s.now())
	refuse := s.opts.ProtectedMode && s.users.DefaultNoPass() && !IsLocal(c.conn.RemoteAddr())
	var sh *loopShard
	if !refuse {
		sh = s.loopFor(raw)
	}
	if sh != nil {
		if err := s.takeConn(c, raw.(*net.TCPConn), sh); err != nil {
			s.mu.Unlock()
			s.log.Verbosef("Serving client %s: %v", c.addr, err)
			return
		}
		s.clients[c.ID] = c
		s.mu.Unlock()
		if err := sh.l.Register(c.loop.nc); err != nil {
			s.loopClients.Add(-1)
			s.forget(c)
		}
		return
	}
	s.clients[c.ID] = c
	s.wg.Add(1)
	s.mu.Unlock()
	if refuse {
		go s.refuseProtected(c)
		return
	}
	if !c.parkable {
		go s.readLoop(c, 0)
		return
	}
	// A new connection gets a goroutine to wait for its first request
	// (for parkNewAfter), unless parkNewLimit of them are waiting already
	// (a flood): then it is parked at once.
	if s.newWaiting.Load() >= s.parkNewLimit && s.park(c) {
		s.wg.Done()
		return
	}
	s.newWaiting.Add(1)
	go s.readLoop(c, s.parkNewAfter)
}

// refuseProtected writes protected mode's refusal to c and closes it.
func (s *Server) refuseProtected(c *Client) {
	defer s.wg.Done()
	defer s.forget(c)
	// Written before anything else, and not counted as output, as Redis
	// writes its refusals.
	s.stats.rejected.Add(1)
	raw := uncounted(c.conn)
	_ = raw.SetWriteDeadline(time.Now().Add(refuseTimeout))
	_, _ = raw.Write([]byte(deniedMsg))
}

// readLoop is the goroutine serving c (serveCommands) while it is not
// parked; it forgets c when the connection ended. first bounds the wait
// for the first request before c is parked (0: none, c was woken).
func (s *Server) readLoop(c *Client, first time.Duration) {
	defer s.wg.Done()
	if s.serveCommands(c, first) {
		return // parked, or closed and forgotten by Client.close
	}
	s.forget(c)
}

// serveCommands runs each command of c in turn until the connection ends,
// a command closes it or the request is malformed (Redis's error, then
// close) or too big (close), and returns false then. A client that can be
// parked is read under an idleReader: once it stayed idle for parkAfter
// between two requests (or for first before its first) it is parked and
// serveCommands returns true.
func (s *Server) serveCommands(c *Client, first time.Duration) (parked bool) {
	var src io.Reader = c.conn
	var idle *idleReader
	if c.parkable {
		idle = newIdleReader(c.conn, s.parkAfter, first)
		src = idle
	}
	src = releasingReader{src, c}
	rd := newRequestReader(src, s.opts.QueryBufferLimit, s.opts.MaxBulkLen, func() bool {
		c.mu.Lock()
		authed := c.authenticated
		c.mu.Unlock()
		return !authed && !s.users.DefaultOpen()
	})
	if c.parkable {
		rd.readNow = c.tryRead
	}
	waiting := first > 0 // counted in newWaiting until the first read ends
	// next and nextErr are what reading a group (readLoopGroup) read
	// past it: run before reading on.
	var next [][]byte
	var nextErr error
	for {
		var args [][]byte
		var err error
		switch {
		case next != nil:
			args, next = next, nil
		case nextErr != nil:
			err, nextErr = nextErr, nil
		default:
			args, err = rd.next()
		}
		if waiting {
			waiting = false
			s.newWaiting.Add(-1)
		}
		if err != nil {
			var pe *protocolError
			switch {
			case errors.Is(err, errIdle):
				// Parked only between requests: what a partial one
				// read so far stays with its goroutine.
				if rd.idle() && s.park(c) {
					return true
				}
				idle.arm()
				continue
			case errors.As(err, &pe):
				s.log.Verbosef("Protocol error (%s) from client: %s. %s", pe.Reason, c.infoLine(), rd.sample())
				s.reply(c, Err("ERR "+pe.Reply)) // CLIENT REPLY OFF silences it too, as in Redis
				c.closeAfterReplies()
				c.waitWritten(refuseTimeout)
			case errors.Is(err, errQueryBufferLimit):
				s.log.Warningf("Closing client that reached max query buffer length: %s (qbuf initial bytes: %s)", c.infoLine(), rd.head(64))
			}
			return false
		}
		var batch [][][]byte
		batch, next, nextErr = s.batchOf(c, rd, args)
		for _, args := range batch {
			s.stats.noteQuery(rd.lastSize, s.now())
			c.hold()
			if !s.dispatch(c, args) {
				c.waitWritten(refuseTimeout)
				return false
			}
			if !c.pubsubMode.Load() {
				c.waitOutput()
			}
		}
		c.group = nil
	}
}

// forget drops a finished client from the registry and the pub/sub hub.
func (s *Server) forget(c *Client) {
	c.close()
	s.hub.unsubscribeAll(c)
	s.mu.Lock()
	delete(s.clients, c.ID)
	s.mu.Unlock()
}

// appendClients appends the connected clients to buf, in no order: the
// once-a-second checks reuse one slice, and make no garbage per client
// (which would grow the heap of a server with many idle clients until
// the next collection).
func (s *Server) appendClients(buf []*Client) []*Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		buf = append(buf, c)
	}
	return buf
}

// clientList returns the connected clients ordered by id.
func (s *Server) clientList() []*Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c)
	}
	sortClients(out)
	return out
}

// Publish sends msg on channel to local subscribers and returns how many
// received it.
func (s *Server) Publish(channel, msg string) int {
	return s.hub.publish(channel, msg)
}
