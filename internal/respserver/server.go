// Package respserver is the Sentinel's own RESP port: connections (parsed
// by redcon), a RESP2/RESP3 reply writer, command dispatch with Redis's
// error texts, authentication, protected mode and pub/sub of events. It
// reads and changes the core only through Backend.
package respserver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/tidwall/redcon"
)

// ErrStopped is returned by a Backend whose loop is no longer running.
var ErrStopped = errors.New("sentinel loop stopped")

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
	Maxclients int
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
}

// Server is the RESP listener and its clients.
type Server struct {
	opts  Options
	users *acl.Users
	log   Logger
	now   func() time.Time
	hub   *hub
	stats stats
	pause pauseState

	mu        sync.Mutex
	listeners []net.Listener
	clients   map[int64]*Client
	nextID    int64
	closed    bool
	wg        sync.WaitGroup
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
	}
	if s.users == nil {
		s.users, _ = acl.New("", nil)
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
	s.mu.Lock()
	s.listeners = lns
	s.mu.Unlock()
	return nil
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
	if s.opts.IdleTimeout > 0 {
		s.wg.Add(1)
		go s.closeIdleClients()
	}
	s.wg.Add(1)
	go s.sampleStats()
	s.mu.Lock()
	lns := append([]net.Listener(nil), s.listeners...)
	s.mu.Unlock()
	for _, ln := range lns {
		ln := ln
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = redcon.Serve(countingListener{ln, &s.stats}, s.handle, s.accept, nil)
		}()
	}
}

// closeIdleClients closes, once a second, the clients idle for longer
// than IdleTimeout, except pub/sub clients.
func (s *Server) closeIdleClients() {
	defer s.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for range tick.C {
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
		now := s.now()
		for _, c := range s.clientList() {
			c.mu.Lock()
			idle := now.Sub(c.lastActive) > s.opts.IdleTimeout && c.subscriptions() == 0
			c.mu.Unlock()
			if idle {
				c.close()
			}
		}
	}
}

// ServeListener serves an already open listener (tests, socket
// activation) in addition to the configured ones, and returns at once.
func (s *Server) ServeListener(ln net.Listener) {
	s.mu.Lock()
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = redcon.Serve(countingListener{ln, &s.stats}, s.handle, s.accept, nil)
	}()
}

// Close stops listening and disconnects every client.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
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
	s.wg.Wait()
	if s.opts.Unixsocket != "" {
		_ = os.Remove(s.opts.Unixsocket)
	}
	return nil
}

// isLocal reports whether a peer counts as local for protected mode. As in
// Redis only 127.0.0.1, ::1 and unix sockets do: 127.0.0.2 does not.
func isLocal(addr net.Addr) bool {
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

// accept registers a new connection, or refuses it (protected mode,
// maxclients) with Redis's message.
func (s *Server) accept(conn redcon.Conn) bool {
	nc := conn.NetConn()
	raw := uncounted(nc) // Redis does not count its refusals as output
	s.stats.connections.Add(1)
	if tc, ok := raw.(*net.TCPConn); ok {
		if s.opts.TCPKeepalive > 0 {
			_ = tc.SetKeepAlive(true)
			_ = tc.SetKeepAlivePeriod(s.opts.TCPKeepalive)
		} else {
			_ = tc.SetKeepAlive(false)
		}
	}
	if s.opts.ProtectedMode && s.users.DefaultNoPass() && !isLocal(nc.RemoteAddr()) {
		raw.Write([]byte(deniedMsg))
		s.stats.rejected.Add(1)
		return false
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	if s.opts.Maxclients > 0 && len(s.clients) >= s.opts.Maxclients {
		s.mu.Unlock()
		raw.Write([]byte("-ERR max number of clients reached\r\n"))
		s.stats.rejected.Add(1)
		return false
	}
	s.nextID++
	c := newClient(s, s.nextID, nc, s.now())
	s.clients[c.ID] = c
	s.mu.Unlock()
	conn.SetContext(c)
	return true
}

// handle receives the first command of a connection from redcon, detaches
// the connection and serves it from then on in the client's own loop, so
// replies and pub/sub pushes share one ordered writer.
func (s *Server) handle(conn redcon.Conn, cmd redcon.Command) {
	c, _ := conn.Context().(*Client)
	if c == nil {
		conn.Close()
		return
	}
	dc := conn.Detach()
	go s.readLoop(c, dc, cmd)
}

func (s *Server) readLoop(c *Client, dc redcon.DetachedConn, first redcon.Command) {
	defer s.forget(c)
	cmd := first
	for {
		if len(cmd.Args) > 0 {
			s.stats.noteQuery(len(cmd.Raw), s.now())
			if !s.dispatch(c, cmd.Args) {
				return
			}
		}
		var err error
		cmd, err = dc.ReadCommand()
		if err != nil {
			if strings.HasPrefix(err.Error(), "Protocol error") {
				c.send(Err("ERR " + err.Error()))
				c.closeAfterReplies()
				<-c.done
			}
			return
		}
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
