package node

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	mrand "math/rand"
	"os"
	"runtime"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/atomicfile"
	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/links"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/metrics"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/respserver"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/tlsconf"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// ErrMetricsListen wraps Start's error when metrics-addr cannot be bound.
var ErrMetricsListen = errors.New("cannot serve metrics")

// ErrProxyListen wraps Start's error when a `sentinel proxy` address
// cannot be bound.
var ErrProxyListen = errors.New("cannot start the master proxy")

// Node is a running Sentinel: its core loop and its RESP port.
type Node struct {
	cfg     *config.Config
	log     Logger
	loop    *Loop
	srv     *respserver.Server
	links   *links.Links
	certs   *tlsconf.Manager
	users   *acl.Users
	scripts *scriptRunner
	// metrics serves Prometheus metrics (metrics-addr); nil when off.
	metrics *metrics.Server
	// level is the process's log level, owned by the logger; n.cfg is
	// never written after Start.
	level *logging.LevelVar
	// rewriter writes the config file; only the loop's goroutine uses it
	// (persist).
	rewriter *config.Rewriter
	// proxies are the master-following proxies (proxies.go), reads the
	// read ports (proxies_reads.go).
	proxies *proxies
	reads   *proxies

	shutdown chan struct{}
}

// Options are what a Node needs beyond its config.
type Options struct {
	Log  Logger
	Info respserver.ServerInfo
	// Now is the core's clock; nil is the monotonic clock as Unix time
	// (clock.go: a step of the wall clock moves no timer). Wall is the
	// wall clock, which only TILT's trigger reads; nil is the wall clock
	// when Now is nil, else Now itself (a test's clock jumps then do
	// both).
	Now, Wall func() time.Time
	// Seed seeds the core's randomness; 0 draws one from crypto/rand.
	Seed int64
	// Exit ends the process at once (SENTINEL SIMULATE-FAILURE crashes,
	// which Redis carries out with exit(99) where they happen); nil is
	// os.Exit. It is called on the core's loop and must not return for
	// the crash to be exact: the loop carries out nothing more of the
	// core's output of that step, but goes on if it returns.
	Exit func(code int)
	// LogLevel is the logger's level (logging.Logger.LevelVar), which
	// SENTINEL CONFIG GET/SET loglevel and the config rewrite read and
	// change; nil makes one from the config's loglevel.
	LogLevel *logging.LevelVar
	// AdaptProcs runs the process on one P while the Sentinel is quiet and
	// no proxy is configured (procGovernor); false leaves GOMAXPROCS alone.
	AdaptProcs bool
	// ReleasePages gives back the process's pages of its own executable
	// that it is not using once the Sentinel is quiet (pageGovernor);
	// false leaves them mapped.
	ReleasePages bool
}

func randomSeed() int64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return time.Now().UnixNano()
	}
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// Start opens the listeners (failing without side effects if one cannot
// be bound), builds the core from cfg and starts serving.
func Start(cfg *config.Config, opts Options) (*Node, error) {
	switch {
	case opts.Now == nil:
		opts.Now = monotonicClock()
		if opts.Wall == nil {
			opts.Wall = wallClock
		}
	case opts.Wall == nil:
		opts.Wall = opts.Now
	}
	if opts.Seed == 0 {
		opts.Seed = randomSeed()
	}
	users, err := acl.Load(acl.Options{
		Requirepass: cfg.Server.Requirepass,
		Lines:       cfg.Server.Users,
		File:        cfg.Server.Aclfile,
		LogMaxLen:   int(cfg.Server.AcllogMaxLen),
		Surface:     cfg.CommandSurface,
	})
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	var certs *tlsconf.Manager
	if cfg.Server.TLSPort != 0 || cfg.Server.TLSReplication {
		certs, err = tlsconf.New(tlsconf.FilesOf(cfg.Server))
		if err != nil {
			return nil, fmt.Errorf("TLS: %w", err)
		}
	}
	if opts.Exit == nil {
		opts.Exit = os.Exit
	}
	level := opts.LogLevel
	if level == nil {
		lv, _ := logging.ParseLevel(cfg.Server.Loglevel)
		level = logging.NewLevelVar(lv)
	}
	n := &Node{users: users, certs: certs, cfg: cfg, log: opts.Log, level: level, shutdown: make(chan struct{}, 1)}
	limits := cfg.ClientLimits()
	n.srv = respserver.New(respserver.Options{
		Port:           cfg.Server.Port,
		Bind:           cfg.Server.Bind,
		ProtectedMode:  cfg.Server.ProtectedMode,
		TLSPort:        cfg.Server.TLSPort,
		TLSConfig:      serverTLS(certs),
		Maxclients:     int(cfg.Server.Maxclients),
		Unixsocket:     cfg.Server.Unixsocket,
		Unixsocketperm: cfg.Server.Unixsocketperm,
		IdleTimeout:    time.Duration(cfg.Server.Timeout) * time.Second,
		TCPKeepalive:   time.Duration(cfg.Server.TCPKeepalive) * time.Second,
		Users:          users,
		Info:           opts.Info,
		Backend:        n,
		Logger:         opts.Log,
		Now:            opts.Now,
		Surface:        cfg.CommandSurface,

		QueryBufferLimit: clampInt(limits.QueryBufferLimit),
		MaxBulkLen:       clampInt(limits.MaxBulkLen),
		OutputLimits:     outputLimits(limits),
	})
	if err := n.srv.Listen(); err != nil {
		return nil, err
	}
	var observe func(event.Event)
	var exporter *metrics.Metrics
	if cfg.Server.MetricsAddr != "" {
		m := metrics.New(n.read)
		exporter = m
		if n.metrics, err = metrics.Listen(cfg.Server.MetricsAddr, m); err != nil {
			n.srv.Close()
			return nil, fmt.Errorf("%w: %w", ErrMetricsListen, err)
		}
		observe = m.Observe
	}
	var linkTLS *tls.Config
	if certs != nil && cfg.Server.TLSReplication {
		linkTLS = certs.Client()
	}
	n.links = links.New(links.Options{
		TLSConfig:  linkTLS,
		Deliver:    func(in msg.Input) { n.loop.Deliver(in) },
		SourceAddr: cfg.Server.BindSourceAddr,
		Logf:       opts.Log.Debugf,
		// One connection per RESP3 instance unless asked for two, as
		// redis-sentinel keeps (internal/links/merge.go).
		TwoLinks: os.Getenv("GO_SENTINEL_TWO_LINKS") != "",
	})
	n.scripts = newScriptRunner(func(in msg.Input) { n.loop.Deliver(in) })
	var governors []func(quiet bool, now time.Time)
	if opts.AdaptProcs && runtime.GOMAXPROCS(0) > 1 {
		g := newProcGovernor()
		governors = append(governors, func(quiet bool, now time.Time) { g.report(quiet && !n.proxies.active() && !n.reads.active(), now) })
	}
	if opts.ReleasePages {
		governors = append(governors, newPageGovernor().report)
	}
	var afterTick func(quiet bool)
	if len(governors) > 0 {
		now := opts.Now
		afterTick = func(quiet bool) {
			at := now()
			for _, report := range governors {
				report(quiet, at)
			}
		}
	}
	core := monitor.New(cfg.Sentinel, monitor.Options{Port: cfg.Server.Port, TLSPort: cfg.Server.TLSPort, TLSReplication: cfg.Server.TLSReplication, RequirePass: cfg.Server.Requirepass, Accel: settings.DefaultAccel(),
		MasterRebootFlag: cfg.CommandSurface >= commands.Surface72}, mrand.New(mrand.NewSource(opts.Seed)), opts.Now())
	n.loop = NewLoop(core, opts.Log, Effects{
		Persist: n.persist,
		Publish: func(ch, msg string) { n.srv.Publish(ch, msg) },
		Links:   n.links,
		Scripts: n.scripts,
		Exit:    opts.Exit,
		Observe: func(ev event.Event) {
			if observe != nil {
				observe(ev)
			}
			if n.proxies != nil {
				n.proxies.observe(ev)
			}
			if n.reads != nil {
				n.reads.observe(ev)
			}
		},
		AfterTick: afterTick,
	}, opts.Now)
	n.loop.wall = opts.Wall
	var onFirstByte func(string, time.Duration)
	if exporter != nil {
		onFirstByte = exporter.ObserveProxyFirstByte
	}
	if n.proxies, err = newProxies(n.loop.View, time.Duration(cfg.Server.TCPKeepalive)*time.Second, opts.Log, opts.Now, onFirstByte); err != nil {
		n.srv.Close()
		if n.metrics != nil {
			n.metrics.Close()
		}
		n.links.Close()
		n.scripts.Close()
		return nil, fmt.Errorf("%w: %w", ErrProxyListen, err)
	}
	if n.reads, err = newReadProxies(n.loop.View, time.Duration(cfg.Server.TCPKeepalive)*time.Second, opts.Log, opts.Now); err != nil {
		n.proxies.close()
		n.srv.Close()
		if n.metrics != nil {
			n.metrics.Close()
		}
		n.links.Close()
		n.scripts.Close()
		return nil, fmt.Errorf("%w: %w", ErrProxyListen, err)
	}
	if exporter != nil {
		exporter.SetProxy(n.proxies.figures)
		exporter.SetProxyReplicas(n.reads.readFigures)
	}
	go n.loop.Run()
	n.srv.Serve()
	if n.metrics != nil {
		n.metrics.Serve()
		opts.Log.Noticef("Serving Prometheus metrics on http://%s%s", n.metrics.Addr(), metrics.Path)
	}
	return n, nil
}

// read runs fn on the core's loop for the metrics.
func (n *Node) read(fn func(monitor.Handle, time.Time)) error {
	_, err := n.loop.Exec(fn)
	return err
}

// MetricsAddr returns the address metrics are served on, "" when off.
func (n *Node) MetricsAddr() string {
	if n.metrics == nil {
		return ""
	}
	return n.metrics.Addr().String()
}

func (n *Node) persist(p settings.Persisted, t settings.Timing) error {
	srv := n.cfg.Server
	srv.Loglevel = n.LogLevel()
	if !n.users.HasFile() {
		// Users created or changed at runtime are persisted as `user`
		// lines, as Redis does when there is no aclfile.
		srv.Users = n.users.ConfigLines()
	}
	opts := config.RewriteOptions{
		DefaultDownAfterMs:       t.DefaultDownAfterMs,
		DefaultFailoverTimeoutMs: t.DefaultFailoverTimeoutMs,
	}
	if n.cfg.StateFile != "" {
		// The config file is only read: the state goes to its own file
		// (config/state.go), written atomically: what differs from the
		// config file as it was read at start (the base), and the config
		// file's masters SENTINEL REMOVE removed; a new one is 0600, as it
		// holds auth-pass and sentinel-pass.
		if err := atomicfile.WriteNew(n.cfg.StateFile, config.StateBytes(srv.Loglevel, p, n.cfg.StateBase(), opts), 0o600); err != nil {
			return fmt.Errorf("write the state-config-file %s: %w", n.cfg.StateFile, err)
		}
		return nil
	}
	if n.rewriter == nil {
		n.rewriter = &config.Rewriter{Path: n.cfg.File}
	}
	return n.rewriter.Rewrite(srv, p, opts)
}

// Exec implements respserver.Backend.
func (n *Node) Exec(fn func(monitor.Handle, time.Time)) (monitor.Outcome, error) {
	return n.loop.Exec(fn)
}

// View implements respserver.Backend: the core's View as the loop last
// published it (Loop.View), nil once the loop has ended.
func (n *Node) View() *view.View { return n.loop.View() }

// Shutdown implements respserver.Backend: it asks whoever waits on
// ShutdownRequested to stop the node.
func (n *Node) Shutdown() {
	select {
	case n.shutdown <- struct{}{}:
	default:
	}
}

// outputLimits turns the configured client-output-buffer-limit classes
// into the port's, keeping Redis's default for a class not configured.
func outputLimits(l config.ClientLimits) *respserver.OutputLimits {
	out := respserver.DefaultOutputLimits
	conv := func(o config.OutputLimit) respserver.OutputLimit {
		return respserver.OutputLimit{Hard: int64(min(o.Hard, math.MaxInt64)), Soft: int64(min(o.Soft, math.MaxInt64)), SoftSeconds: int(o.SoftSeconds)}
	}
	if l.HasNormal {
		out.Normal = conv(l.Normal)
	}
	if l.HasPubSub {
		out.PubSub = conv(l.PubSub)
	}
	return &out
}

// clampInt converts a byte count that may exceed an int.
func clampInt(v uint64) int { return int(min(v, math.MaxInt)) }

func serverTLS(m *tlsconf.Manager) *tls.Config {
	if m == nil {
		return nil
	}
	return m.Server()
}

// ReloadTLS reads the TLS certificates again (SIGHUP); new connections
// use them.
func (n *Node) ReloadTLS() error {
	if n.certs == nil {
		return nil
	}
	return n.certs.Reload()
}

// LogLevel implements respserver.Backend. It is the one accessor of the
// log level: SENTINEL CONFIG GET and the config rewrite both read it, from
// any goroutine.
func (n *Node) LogLevel() string { return n.level.String() }

// SetLogLevel implements respserver.Backend: it changes the logger's level
// (the caller has checked the name). It is called on the core's loop, so
// the rewrite that follows writes the new level.
func (n *Node) SetLogLevel(level string) {
	if lv, err := logging.ParseLevel(level); err == nil {
		n.level.SetLevel(lv)
	}
}

// ShutdownRequested delivers a value when a client sent SHUTDOWN.
func (n *Node) ShutdownRequested() <-chan struct{} { return n.shutdown }

// Addrs returns the addresses the RESP port listens on.
func (n *Node) Addrs() []string {
	var out []string
	for _, a := range n.srv.Addrs() {
		out = append(out, a.String())
	}
	return out
}

// Stop closes the listeners and clients, then lets the core persist its
// state and end. It is safe to call more than once.
func (n *Node) Stop() {
	if n.metrics != nil {
		n.metrics.Close()
	}
	n.srv.Close()
	n.loop.Stop()
	if n.proxies != nil {
		n.proxies.close()
	}
	if n.reads != nil {
		n.reads.close()
	}
	n.links.Close()
	n.scripts.Close()
}
