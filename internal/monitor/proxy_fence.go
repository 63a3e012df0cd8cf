package monitor

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/fence"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// This file gathers the facts of the master-following proxy's rule
// (internal/fence) at every tick and announces each change of its verdict
// with +proxy-fenced or -proxy-fenced; the proxy adapter (internal/proxy)
// reads the verdict from the View.

// proxyState is a master's proxy decision, as the last tick made it.
type proxyState struct {
	// known: a decision was made (and announced) since the master got a
	// proxy.
	known  bool
	fenced bool
	reason string // why fenced
}

// proxyFence returns why m's proxy must not forward at now (Unix ms), or
// "" when it may: fence.Reason decides from the facts gathered here.
func (s *Sentinel) proxyFence(m *master, now int64) string {
	f := fence.Facts{
		Self:       s.grantFacts(m, m.configEpoch, now),
		NoFencing:  m.settings.ProxyNoFencing,
		Voters:     m.voters(),
		FenceAfter: m.settings.ProxyFenceAfterMs,
		Peers:      make([]fence.Peer, 0, len(m.sentinels)),
	}
	for _, si := range m.sentinels {
		f.Peers = append(f.Peers, fence.Peer{GrantedUntil: si.grantedUntil})
	}
	return fence.Reason(f)
}

// checkProxy makes m's proxy decision at now and announces a change.
func (s *Sentinel) checkProxy(m *master, now int64) {
	if len(m.settings.Proxy) == 0 {
		if m.proxy.known {
			m.proxy = proxyState{}
			s.views.changed(m)
		}
		return
	}
	reason := s.proxyFence(m, now)
	fenced := reason != ""
	if m.proxy.known && m.proxy.fenced == fenced && m.proxy.reason == reason {
		return
	}
	announce := !m.proxy.known || m.proxy.fenced != fenced
	m.proxy = proxyState{known: true, fenced: fenced, reason: reason}
	s.views.changed(m)
	if !announce {
		return
	}
	if fenced {
		s.event(event.LevelWarning, event.ProxyFenced, &m.instance, " #"+reason)
	} else {
		s.event(event.LevelWarning, event.ProxyFencedEnd, &m.instance, "")
	}
}

// proxyHead is what the View shows of a master's proxy; the zero value
// when it has none. It is comparable, as masterHead must be.
type proxyHead struct {
	listen        string // the addresses, as SENTINEL MASTER shows them
	fenceAfter    int64  // ms
	hold          int64  // ms
	fencing       bool
	protectedMode bool // proxy-protected-mode
	protected     bool // protected mode applies: on, and no password
	fenced        bool // fenced, or not decided yet
	reason        string
}

func (m *master) proxyHeadOf() proxyHead {
	st := &m.settings
	if len(st.Proxy) == 0 {
		return proxyHead{}
	}
	reason := m.proxy.reason
	if !m.proxy.known {
		reason = "not decided yet"
	}
	return proxyHead{
		listen:        settings.FormatProxyAddrs(st.Proxy),
		fenceAfter:    st.ProxyFenceAfterMs,
		hold:          st.ProxyHoldMs,
		fencing:       !st.ProxyNoFencing,
		protectedMode: !st.ProxyNoProtectedMode,
		protected:     !st.ProxyNoProtectedMode && st.AuthPass == "" && st.AuthUser == "",
		fenced:        !m.proxy.known || m.proxy.fenced,
		reason:        reason,
	}
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
}

// ProxyRoute returns the route of master name's proxy, false when it is
// not monitored or has no proxy.
func (v *View) ProxyRoute(name string) (ProxyRoute, bool) {
	mv, err := v.master(name)
	if err != nil || mv.proxy.listen == "" {
		return ProxyRoute{}, false
	}
	return ProxyRoute{
		Addr:      mv.addr,
		Fenced:    mv.proxy.fenced,
		Reason:    mv.proxy.reason,
		Hold:      msDuration(mv.proxy.hold),
		Protected: mv.proxy.protected,
	}, true
}

// Proxies returns the proxy addresses of every master that has some, by
// master name.
func (v *View) Proxies() map[string][]settings.Addr {
	out := make(map[string][]settings.Addr)
	for mv := range v.all() {
		if mv.proxy.listen != "" {
			as, _ := settings.ParseProxyAddrs(mv.proxy.listen)
			out[mv.inst.name] = as
		}
	}
	return out
}

// proxyFields are the SENTINEL MASTER fields of a master with a proxy.
func proxyFields(p proxyHead) []KV {
	state := "forwarding"
	if p.fenced {
		state = "fenced: " + p.reason
	}
	return []KV{
		{settings.OptionProxy, p.listen},
		{settings.OptionProxyFenceAfter, itoa64(p.fenceAfter)},
		{settings.OptionProxyHold, itoa64(p.hold)},
		{settings.OptionProxyFencing, settings.YesNoText(p.fencing)},
		{settings.OptionProxyProtectedMode, settings.YesNoText(p.protectedMode)},
		{"proxy-state", state},
	}
}
