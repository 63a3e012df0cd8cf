package monitor

import (
	"fmt"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// This file holds the rule of the master-following proxy (issue 20): when
// the proxy of a master may forward client connections to it. The core
// decides at every tick and announces each change with +proxy-fenced or
// -proxy-fenced; the proxy adapter (internal/proxy) reads the decision
// from the View.

// proxyState is a master's proxy decision, as the last tick made it.
type proxyState struct {
	// known: a decision was made (and announced) since the master got a
	// proxy.
	known  bool
	fenced bool
	reason string // why fenced
}

// proxyFence returns why m's proxy must not forward at now (Unix ms), or
// "" when it may: the master is neither SDOWN nor ODOWN for this
// Sentinel, no failover of it is in progress, it does not report itself
// a replica, this Sentinel is not in TILT, and (unless proxy-fencing is
// off) a majority of the master's Sentinels, this one counted (or of the
// voters floor when it is larger, as an election counts), answered
// a PING of this Sentinel within proxy-fence-after, and this Sentinel
// has not voted for another one to fail the master over in an epoch
// newer than the master's configuration, within failover-timeout.
//
// With fence-after below down-after, a proxy cut off from the majority
// fences before that majority can see the master SDOWN, let alone elect
// a leader and promote a replica. A proxy that still reaches the master
// while the majority does not (an asymmetric partition) fences when a
// candidate asks for its vote, before the candidate can promote: the
// candidate asks every Sentinel it reaches, and promotes only after a
// majority answered. A window remains in which two proxies of one fleet
// forward to two masters (docs/proxy.md, "What is left"; the chaos
// campaign's failed seeds in docs/feature-status.md); a lease is to close
// it (issue 33).
func (s *Sentinel) proxyFence(m *master, now int64) string {
	switch {
	case s.tilt:
		return "this Sentinel is in TILT"
	case m.has(flagFailoverInProgress):
		return "a failover is in progress"
	case m.has(flagODown):
		return "the master is objectively down"
	case m.has(flagSDown):
		return "the master is subjectively down"
	case m.roleReported == inforeply.RoleSlave:
		return "the master reports itself a replica"
	}
	if m.settings.ProxyNoFencing {
		return ""
	}
	if m.votedAt != 0 && m.leaderEpoch > m.configEpoch && now-m.votedAt < m.settings.FailoverTimeout.Milliseconds() {
		return fmt.Sprintf("this Sentinel voted for %s in epoch %d to fail the master over", m.leader, m.leaderEpoch)
	}
	total := m.voters()
	need := election.Majority(total)
	answered := 1
	window := m.settings.ProxyFenceAfter.Milliseconds()
	helloWindow := s.proxyHelloWindow(m)
	for _, si := range m.sentinels {
		l := si.link
		if l != nil && l.hasRTT && now-l.lastAvailTime <= window && si.helloSeen && now-si.lastHelloTime <= helloWindow {
			answered++
		}
	}
	if answered < need {
		return fmt.Sprintf("%d of the %d Sentinels of the master answered within %s %d ms (a PING, and a hello within %d ms), %d needed",
			answered, total, settings.OptionProxyFenceAfter, window, helloWindow, need)
	}
	return ""
}

// proxyHelloWindow is how recent a peer's last hello must be for the peer
// to count towards the proxy's majority: fence-after, plus one hello
// period and a margin for its jitter. A peer counts only once this
// Sentinel has processed a hello of it (and so adopted any newer
// configuration of the master it carried) within that window: after a
// partition heals, or at a start from a config that may be stale, the
// proxy forwards again only once the peers told what master they hold,
// not as soon as they answer PINGs. With the window not above
// down-after, a hello that counts after a failover was sent after the
// partition that led to it began.
func (s *Sentinel) proxyHelloWindow(m *master) int64 {
	return m.settings.ProxyFenceAfter.Milliseconds() + s.timing.PublishPeriod.Milliseconds() + proxyHelloSlack
}

// proxyHelloSlack is the margin of proxyHelloWindow for a hello period's
// jitter (hellos go out at the first tick after the period), in ms.
const proxyHelloSlack = 500

// checkProxy makes m's proxy decision at now and announces a change.
func (s *Sentinel) checkProxy(m *master, now int64) {
	if len(m.settings.Proxy) == 0 {
		if m.proxy.known {
			m.proxy = proxyState{}
			s.changed(m)
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
	s.changed(m)
	if !announce {
		return
	}
	if fenced {
		s.event(LevelWarning, EventProxyFenced, &m.instance, " #"+reason)
	} else {
		s.event(LevelWarning, EventProxyFencedEnd, &m.instance, "")
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

func (s *Sentinel) proxyHeadOf(m *master) proxyHead {
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
		fenceAfter:    st.ProxyFenceAfter.Milliseconds(),
		hold:          st.ProxyHold.Milliseconds(),
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
