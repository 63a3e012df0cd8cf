package view

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// ProxyHead is what the View shows of a master's proxy; the zero value
// when it has none. It is comparable, as Head must be.
type ProxyHead struct {
	Listen        string // the addresses, as SENTINEL MASTER shows them
	FenceAfter    int64  // ms
	Hold          int64  // ms
	Fencing       bool
	ProtectedMode bool // proxy-protected-mode
	Protected     bool // protected mode applies: on, and no password
	Fenced        bool // fenced, or not decided yet
	Reason        string
	// ForwardUntil is when the proxy stops forwarding by itself unless a
	// newer View extends it (fence.ForwardUntil, Unix ms); 0: no bound.
	ForwardUntil int64
}

// ProxyRoute is what a master's proxy may do now.
type ProxyRoute struct {
	// Addr is the master's address, as announced.
	Addr settings.Addr
	// Fenced: do not forward; Reason says why.
	Fenced bool
	Reason string
	// Hold is proxy-hold.
	Hold time.Duration
	// Protected: refuse clients from non-loopback addresses.
	Protected bool
	// Until is when the route stops forwarding by itself, the leases
	// that let it forward lapsing (fence.ForwardUntil); zero: no bound.
	Until time.Time
}

// LeasesLapsed is the Reason of a route that Forwards refuses because its
// Until has passed.
const LeasesLapsed = "the leases of a majority lapsed"

// Forwards reports whether the route forwards at now: not fenced, and
// its leases not lapsed. The proxy adapter checks it with its own clock
// at every poll, so a core that stalls cannot stretch a lease.
func (r ProxyRoute) Forwards(now time.Time) bool {
	return !r.Fenced && (r.Until.IsZero() || now.Before(r.Until))
}

// ProxyRoute returns the route of master name's proxy, false when it is
// not monitored or has no proxy.
func (v *View) ProxyRoute(name string) (ProxyRoute, bool) {
	mv, err := v.master(name)
	if err != nil || mv.Proxy.Listen == "" {
		return ProxyRoute{}, false
	}
	return ProxyRoute{
		Addr:      mv.Addr,
		Fenced:    mv.Proxy.Fenced,
		Reason:    mv.Proxy.Reason,
		Hold:      settings.Duration(mv.Proxy.Hold),
		Protected: mv.Proxy.Protected,
		Until:     untilTime(mv.Proxy.ForwardUntil),
	}, true
}

// Proxies returns the proxy addresses of every master that has some, by
// master name.
func (v *View) Proxies() map[string][]settings.Addr {
	out := make(map[string][]settings.Addr)
	for mv := range v.all() {
		if mv.Proxy.Listen != "" {
			as, _ := settings.ParseProxyAddrs(mv.Proxy.Listen)
			out[mv.Inst.Name] = as
		}
	}
	return out
}

// proxyFields are the SENTINEL MASTER fields of a master with a proxy.
func proxyFields(p ProxyHead) []KV {
	state := "forwarding"
	if p.Fenced {
		state = "fenced: " + p.Reason
	}
	return []KV{
		{settings.OptionProxy, p.Listen},
		{settings.OptionProxyFenceAfter, itoa64(p.FenceAfter)},
		{settings.OptionProxyHold, itoa64(p.Hold)},
		{settings.OptionProxyFencing, settings.YesNoText(p.Fencing)},
		{settings.OptionProxyProtectedMode, settings.YesNoText(p.ProtectedMode)},
		{"proxy-state", state},
	}
}

// untilTime is ForwardUntil as a time; zero for 0.
func untilTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
