package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/fence"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
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
	// until is when the proxy stops forwarding by itself unless the
	// core extends it (fence.ForwardUntil, Unix ms); 0: no bound.
	until int64
}

// proxyFence returns why m's proxy must not forward at now (Unix ms), or
// "" when it may, and then until when (fence.ForwardUntil): fence.Reason
// decides from the facts gathered here.
func (s *Sentinel) proxyFence(m *master, now int64) (string, int64) {
	f := s.fenceFacts(m, m.settings.ProxyFenceAfterMs, now)
	f.NoFencing, f.Tilt = m.settings.ProxyNoFencing, s.tilt
	if why := fence.Reason(f); why != "" {
		return why, 0
	}
	return "", fence.ForwardUntil(f)
}

// fenceFacts gathers the lease's facts about m at now for leases of
// leaseMs: this Sentinel's own grant on its configuration and the leases
// its peers granted it.
func (s *Sentinel) fenceFacts(m *master, leaseMs, now int64) fence.Facts {
	f := fence.Facts{
		Self:       s.grantFacts(m, m.configEpoch, leaseMs, now),
		Voters:     m.voters(),
		FenceAfter: leaseMs,
		Peers:      make([]fence.Peer, 0, len(m.sentinels)),
	}
	for _, si := range m.sentinels {
		f.Peers = append(f.Peers, fence.Peer{GrantedUntil: si.grantedUntil})
	}
	return f
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
	reason, until := s.proxyFence(m, now)
	fenced := reason != ""
	if m.proxy.known && m.proxy.fenced == fenced && m.proxy.reason == reason && m.proxy.until == until {
		return
	}
	announce := !m.proxy.known || m.proxy.fenced != fenced
	m.proxy = proxyState{known: true, fenced: fenced, reason: reason, until: until}
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

// proxyHeadOf is what the View shows of m's proxy.
func (m *master) proxyHeadOf() view.ProxyHead {
	st := &m.settings
	if len(st.Proxy) == 0 {
		return view.ProxyHead{}
	}
	reason := m.proxy.reason
	if !m.proxy.known {
		reason = "not decided yet"
	}
	return view.ProxyHead{
		Listen:        settings.FormatProxyAddrs(st.Proxy),
		FenceAfter:    st.ProxyFenceAfterMs,
		Hold:          st.ProxyHoldMs,
		Fencing:       !st.ProxyNoFencing,
		ProtectedMode: !st.ProxyNoProtectedMode,
		Protected:     !st.ProxyNoProtectedMode && st.AuthPass == "" && st.AuthUser == "",
		Fenced:        !m.proxy.known || m.proxy.fenced,
		Reason:        reason,
		ForwardUntil:  m.proxy.until,
	}
}
