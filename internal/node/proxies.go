package node

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/metrics"
	"github.com/go-sentinel/go-sentinel/internal/proxy"
	"github.com/go-sentinel/go-sentinel/internal/respserver"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// proxies runs the master-following proxies of the masters that have
// `sentinel proxy` addresses, following the loop's View: their listeners
// are synced when a master's options change, and their connections
// re-check their route at once at each switch and fence.
//
// The proxy.Server is started with the first proxy address and kept from
// then on: a Server checks its connections' routes every proxy.DefaultPoll
// (10 ms) whether or not it listens anywhere, 100 wake-ups a second that
// a Sentinel without proxies (most of them) does not pay. At 100 masters
// they were 6 % of the idle profile, and more in the scheduler's wake-ups.
type proxies struct {
	// srv is nil until a master has a proxy address; it is set by newProxies
	// or run, and read by observe (on the loop), figures and close.
	srv  atomic.Pointer[proxy.Server]
	cfg  proxy.Config
	view func() *view.View
	// lookup and listens read a route at now and the listen addresses
	// from a View: the master-following proxy's, or the read port's
	// (proxies_reads.go).
	lookup  func(v *view.View, master string, now time.Time) (proxy.Route, bool)
	listens func(v *view.View) map[string][]settings.Addr
	// name is what the log calls them; logPrefix starts the proxy's
	// own log lines ("" for the master-following proxy).
	name, logPrefix string
	now             func() time.Time
	log             Logger
	sync            chan struct{}
	done            chan struct{}
	// mu orders starting srv (run) with close, so that no Server starts
	// after close.
	mu     sync.Mutex
	closed bool
	once   sync.Once
}

// errProxiesClosed is start's error once close has run.
var errProxiesClosed = errors.New("proxies closed")

// newProxies starts the listeners the View asks for; an address it
// cannot listen on is an error, and nothing is left running. now is the
// clock switches are timed with; onFirstByte, if set, gets the time from
// each switch to the first byte forwarded to the new master.
func newProxies(viewOf func() *view.View, keepAlive time.Duration, log Logger, now func() time.Time,
	onFirstByte func(master string, d time.Duration)) (*proxies, error) {
	return startProxies(&proxies{view: viewOf, now: now, log: log, lookup: masterRoute, listens: (*view.View).Proxies, name: "proxy"},
		keepAlive, onFirstByte)
}

// startProxies starts p's listeners (see newProxies).
func startProxies(p *proxies, keepAlive time.Duration, onFirstByte func(master string, d time.Duration)) (*proxies, error) {
	p.sync, p.done = make(chan struct{}, 1), make(chan struct{})
	log := p.log
	p.cfg = proxy.Config{
		Lookup:          p.route,
		KeepAlive:       keepAlive,
		Denied:          respserver.DeniedReply,
		MaxClientsReply: respserver.MaxClientsReply,
		Log:             log.Noticef,
		OnFirstByte:     onFirstByte,
		// The loops are counted now, on Go's default Ps: the proxy may
		// start while the process runs on one (procGovernor).
		Loops: proxy.DefaultLoops(),
	}
	if p.logPrefix != "" {
		p.cfg.Log = func(format string, args ...any) { log.Noticef(p.logPrefix+format, args...) }
	}
	if err := p.syncWith(p.want()); err != nil {
		p.close()
		return nil, err
	}
	go p.run()
	return p, nil
}

// syncWith makes the proxies' listeners those of want, starting the
// proxy.Server if want is the first to name an address.
func (p *proxies) syncWith(want map[string][]string) error {
	srv := p.srv.Load()
	if srv == nil {
		if len(want) == 0 {
			return nil
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return errProxiesClosed
		}
		srv = proxy.New(p.cfg)
		p.srv.Store(srv)
		p.mu.Unlock()
	}
	return srv.Sync(want)
}

// route is the proxy's Lookup: the route of master in the latest View.
func (p *proxies) route(master string) (proxy.Route, bool) {
	v := p.view()
	if v == nil {
		return proxy.Route{}, false
	}
	return p.lookup(v, master, p.now())
}

// masterRoute is the master-following proxy's route of master in v at
// now.
func masterRoute(v *view.View, master string, now time.Time) (proxy.Route, bool) {
	rt, ok := v.ProxyRoute(master)
	if !ok {
		return proxy.Route{}, false
	}
	fenced, reason := rt.Fenced, rt.Reason
	if !fenced && !rt.Forwards(now) {
		fenced, reason = true, view.LeasesLapsed
	}
	return proxy.Route{
		Addr:      rt.Addr.String(),
		Fenced:    fenced,
		Reason:    reason,
		Hold:      rt.Hold,
		Protected: rt.Protected,
	}, true
}

// want is the listen addresses by master of the latest View.
func (p *proxies) want() map[string][]string {
	v := p.view()
	if v == nil {
		return nil
	}
	out := make(map[string][]string)
	for m, as := range p.listens(v) {
		for _, a := range as {
			out[m] = append(out[m], a.String())
		}
	}
	return out
}

// observe sees every event on the loop (it must not block).
func (p *proxies) observe(ev event.Event) {
	switch ev.Type {
	case event.SwitchMaster:
		if srv := p.srv.Load(); srv != nil {
			srv.Switched(ev.Master, p.now())
		}
	case event.ProxyFenced, event.ProxyFencedEnd, event.ProxyReplicaEnd, event.ProxyReplicasFallback,
		event.ProxyReplicasFallbackEnd, event.ProxyReplicasFenced:
		if srv := p.srv.Load(); srv != nil {
			srv.Notify()
		}
	case event.Set, event.Monitor, event.Unmonitor, event.ResetMaster:
		select {
		case p.sync <- struct{}{}:
		default:
		}
	}
}

func (p *proxies) run() {
	for {
		select {
		case <-p.done:
			return
		case <-p.sync:
			if err := p.syncWith(p.want()); err != nil && !errors.Is(err, errProxiesClosed) {
				p.log.Warningf("%s: %v", p.name, err)
			}
		}
	}
}

// active reports whether a proxy was ever configured (its Server runs).
func (p *proxies) active() bool { return p != nil && p.srv.Load() != nil }

// figures are the proxies” figures for the metrics.
func (p *proxies) figures() []metrics.ProxyFigures {
	srv := p.srv.Load()
	if srv == nil {
		return nil
	}
	var out []metrics.ProxyFigures
	for _, st := range srv.Stats() {
		out = append(out, metrics.ProxyFigures{
			Master: st.Master, Open: st.Open, Accepted: st.Accepted, Refused: st.Refused, HoldExpired: st.HoldExpired,
			Cut: st.Cut, BytesToMaster: st.BytesToMaster, BytesToClient: st.BytesToClient, Fenced: st.Fenced, FencedTime: st.FencedTime,
		})
	}
	return out
}

// close stops the proxies; it is safe to call more than once.
func (p *proxies) close() {
	p.once.Do(func() {
		close(p.done)
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		if srv := p.srv.Load(); srv != nil {
			srv.Close()
		}
	})
}
