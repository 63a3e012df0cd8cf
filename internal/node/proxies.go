package node

import (
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/metrics"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/proxy"
	"github.com/go-sentinel/go-sentinel/internal/respserver"
)

// proxies runs the master-following proxies of the masters that have
// `sentinel proxy` addresses, following the loop's View: their listeners
// are synced when a master's options change, and their connections
// re-check their route at once at each switch and fence.
type proxies struct {
	srv  *proxy.Server
	view func() *monitor.View
	now  func() time.Time
	log  Logger
	sync chan struct{}
	done chan struct{}
	once sync.Once
}

// newProxies starts the listeners the View asks for; an address it
// cannot listen on is an error, and nothing is left running. now is the
// clock switches are timed with; onFirstByte, if set, gets the time from
// each switch to the first byte forwarded to the new master.
func newProxies(view func() *monitor.View, keepAlive time.Duration, log Logger, now func() time.Time,
	onFirstByte func(master string, d time.Duration)) (*proxies, error) {
	p := &proxies{view: view, now: now, log: log, sync: make(chan struct{}, 1), done: make(chan struct{})}
	p.srv = proxy.New(proxy.Config{
		Lookup:          p.route,
		KeepAlive:       keepAlive,
		Denied:          respserver.DeniedReply,
		MaxClientsReply: respserver.MaxClientsReply,
		Log:             log.Noticef,
		OnFirstByte:     onFirstByte,
	})
	if err := p.srv.Sync(p.want()); err != nil {
		p.srv.Close()
		return nil, err
	}
	go p.run()
	return p, nil
}

// route is the proxy's Lookup: the route of master in the latest View.
func (p *proxies) route(master string) (proxy.Route, bool) {
	v := p.view()
	if v == nil {
		return proxy.Route{}, false
	}
	rt, ok := v.ProxyRoute(master)
	if !ok {
		return proxy.Route{}, false
	}
	return proxy.Route{
		Addr:      net.JoinHostPort(rt.Addr.Host, strconv.Itoa(rt.Addr.Port)),
		Fenced:    rt.Fenced,
		Reason:    rt.Reason,
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
	for m, as := range v.Proxies() {
		for _, a := range as {
			out[m] = append(out[m], net.JoinHostPort(a.Host, strconv.Itoa(a.Port)))
		}
	}
	return out
}

// observe sees every event on the loop (it must not block).
func (p *proxies) observe(ev monitor.Event) {
	switch ev.Type {
	case monitor.EventSwitchMaster:
		p.srv.Switched(ev.Master, p.now())
	case monitor.EventProxyFenced:
		p.srv.Notify()
	case monitor.EventSet, monitor.EventMonitor, monitor.EventUnmonitor, monitor.EventResetMaster:
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
			if err := p.srv.Sync(p.want()); err != nil {
				p.log.Warningf("proxy: %v", err)
			}
		}
	}
}

// figures are the proxies' figures for the metrics.
func (p *proxies) figures() []metrics.ProxyFigures {
	var out []metrics.ProxyFigures
	for _, st := range p.srv.Stats() {
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
		p.srv.Close()
	})
}
