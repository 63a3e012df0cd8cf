package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/fence"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// This file gathers the facts of the lease (internal/fence) and carries
// its requests: the Sentinel of a master with a proxy asks its peers for
// leases (askLeases, leaseReply), every Sentinel grants them
// (answerLease) and holds back its votes until the leases it granted
// lapsed (elect.go's vote).

// leaseState is what this Sentinel keeps of the leases on one master: as
// a grantor, until when its grants bind its vote and the vote it held
// back; as a holder, when it last asked.
type leaseState struct {
	// lapseAt is when every lease this Sentinel granted on the master
	// has lapsed on its holder's clock (fence.Lapse after the latest
	// grant); 0: none granted since it started.
	lapseAt int64
	// intentEpoch and intentAt are the vote held back (fence.GrantFacts).
	intentEpoch uint64
	intentAt    int64
	// granted: this Sentinel granted a lease on the master, now or
	// before it last started (persisted: settings.MasterSpec).
	granted bool
	// askedAt is when this Sentinel, for its proxy, last asked its
	// peers for leases on the master, and askedEpoch the configuration
	// epoch it asked about.
	askedAt    int64
	askedEpoch uint64
}

// leasePeriod is how often a Sentinel with a proxy asks its peers for
// leases of leaseMs: four times a lease, so that one lost request or a
// slow reply does not let it lapse, and never more often than a tick.
func leasePeriod(leaseMs int64) int64 { return max(leaseMs/4, 100) }

// leaseDue reports whether this Sentinel asks its peers for leases on m
// at now: every leasePeriod; at once when m's configuration changed
// since it last asked (a switch: the proxy forwards to the new master as
// soon as a majority holds it); and every tick while its proxy is fenced
// for want of leases alone, so that it forwards again as soon as they
// grant.
func (s *Sentinel) leaseDue(m *master, now int64) bool {
	st := &m.settings
	switch {
	case !m.leased() || st.ProxyNoFencing:
		return false
	case m.lease.askedEpoch != m.configEpoch || now-m.lease.askedAt >= leasePeriod(st.ProxyFenceAfterMs):
		return true
	}
	return m.proxy.fenced && now-m.lease.askedAt >= 100 && fence.Grant(s.grantFacts(m, m.configEpoch, st.ProxyFenceAfterMs, now)) == "" &&
		!m.has(object.SDown|object.ODown|object.FailoverInProgress)
}

// startLapse is when the leases this Sentinel may have granted before it
// started have lapsed: no grant is ever longer than
// settings.MaxProxyFenceAfterMs.
func startLapse(at int64) int64 { return at + fence.Lapse(settings.MaxProxyFenceAfterMs) }

// voteLapseAt is when this Sentinel may cast a vote about m: once the
// leases it granted on m, and any it may have granted before it started
// (New), have lapsed.
func (m *master) voteLapseAt() int64 { return m.lease.lapseAt }

// grantFacts gathers what fence.Grant decides a lease of leaseMs on m at
// epoch from.
func (s *Sentinel) grantFacts(m *master, epoch uint64, leaseMs, now int64) fence.GrantFacts {
	f := fence.GrantFacts{
		Now: now, Known: true, Epoch: epoch, ConfigEpoch: m.configEpoch, LeaseMs: leaseMs,
		Unanswered:         m.link.unanswered(now),
		FailoverInProgress: m.has(object.FailoverInProgress), ODown: m.has(object.ODown), SDown: m.has(object.SDown),
		ReportsReplica: m.roleReported == inforeply.RoleSlave,
		Leader:         m.leader, LeaderEpoch: m.leaderEpoch, VotedAt: m.votedAt,
		IntentEpoch: m.lease.intentEpoch, IntentAt: m.lease.intentAt,
		FailoverTimeout: m.settings.FailoverTimeoutMs, ElectionTimeout: s.timing.ElectionTimeoutMs,
		Peers: make([]fence.HelloPeer, 0, len(m.sentinels)),
	}
	if f.VotedAt == 0 && f.Leader == "" {
		f.VotedAt = s.startedAt // a vote read from the config file
	}
	for _, si := range m.sentinels {
		p := fence.HelloPeer{Holds: si.helloHolds}
		if si.helloSeen {
			p.LastHello = si.lastHelloTime
		}
		f.Peers = append(f.Peers, p)
	}
	return f
}

// answerLease answers another Sentinel's SENTINEL LEASE: for each master
// asked about, whether this Sentinel grants the lease (fence.Grant). A
// grant binds this Sentinel's vote about the master until it lapses.
func (s *Sentinel) answerLease(now int64, req gossip.LeaseRequest) msg.LeaseAnswer {
	out := make(msg.LeaseAnswer, len(req.Targets))
	for k, t := range req.Targets {
		if req.LeaseMs > settings.MaxProxyFenceAfterMs {
			continue
		}
		m := s.masterAt(t.IP, t.Port)
		if m == nil || fence.Grant(s.grantFacts(m, t.Epoch, req.LeaseMs, now)) != "" {
			continue
		}
		out[k] = true
		m.lease.lapseAt = max(m.lease.lapseAt, now+fence.Lapse(req.LeaseMs))
		if !m.lease.granted {
			m.lease.granted = true
			s.out.persist("leases granted")
		}
	}
	return out
}

// masterAt returns the master monitored at ip:port (the host as the
// master's address names it or as it resolved), or nil.
func (s *Sentinel) masterAt(ip string, port int) *master {
	for _, name := range s.names {
		if m := s.masters[name]; m.addr.Port == port && s.addrs.addrMatchesHost(m.addr, ip) {
			return m
		}
	}
	return nil
}

// leaseTarget is one master of a lease request: the peer object it was
// asked of, and the master's address generation and configuration epoch
// when asked, since a grant is for that configuration only.
type leaseTarget struct {
	inst    *instance
	addrGen uint64
	epoch   uint64
}

// askLeases asks each peer of every master with a proxy (and fencing on)
// for a lease, one SENTINEL LEASE per peer and lease length for all
// those masters, every leasePeriod. A peer still answering the previous
// request is not asked again.
func (s *Sentinel) askLeases(now int64) {
	var due []*master
	for _, name := range s.names {
		if m := s.masters[name]; s.leaseDue(m, now) {
			due = append(due, m)
		}
	}
	s.sendLeaseAsks(due, now, false)
}

// sendLeaseAsks asks each peer of the masters ms for a lease on each
// (m.convertLeaseMs long), one SENTINEL LEASE per peer and lease length.
// A peer still answering a previous request is not asked again; for a
// conversion (rejoin.go) neither is one that answered with an error.
func (s *Sentinel) sendLeaseAsks(ms []*master, now int64, conversion bool) {
	type key struct {
		l       *link
		leaseMs int64
	}
	var batches map[key][]leaseTarget
	var order []key
	for _, m := range ms {
		leaseMs := m.convertLeaseMs()
		m.lease.askedAt, m.lease.askedEpoch = now, m.configEpoch
		for _, si := range m.sortedSentinels() {
			l := si.link
			if l == nil || l.disconnected(object.Sentinel) || l.leasePending || conversion && l.refusesLeases() {
				continue
			}
			k := key{l, leaseMs}
			if batches == nil {
				batches = map[key][]leaseTarget{}
			}
			if batches[k] == nil {
				order = append(order, k)
			}
			batches[k] = append(batches[k], leaseTarget{inst: si, addrGen: m.addrGen, epoch: m.configEpoch})
		}
	}
	for _, k := range order {
		ts := batches[k]
		req := gossip.LeaseRequest{RunID: s.myID, LeaseMs: k.leaseMs, Targets: make([]gossip.LeaseTarget, len(ts))}
		for j, t := range ts {
			m := t.inst.master
			req.Targets[j] = gossip.LeaseTarget{IP: s.addrs.announceHost(m.addr), Port: m.addr.Port, Epoch: t.epoch}
		}
		first := ts[0].inst
		if s.links.sendPending(pending{kind: sentLease, inst: first, at: now, leaseMs: k.leaseMs, lease: ts}, req.Args()...) {
			k.l.leasePending = true
		}
	}
}

// leaseReply records a peer's answer r to the SENTINEL LEASE p: each lease
// granted runs until the request's send time plus its length, for the
// configuration it was asked for, and each refused drops the lease that
// peer granted before. A reply of another shape (an error, from
// redis-sentinel) grants nothing.
func (s *Sentinel) leaseReply(p pending, r msg.Reply, now int64) {
	if r.Kind == msg.ReplyError && len(p.lease) > 0 {
		if l := p.lease[0].inst.link; l != nil {
			l.leaseRefusedOn = l.cc
		}
	}
	elems := askElems(r)
	granted, ok := gossip.ParseLeaseReply(elems, r.Kind == msg.ReplyArray, len(p.lease))
	for k, t := range p.lease {
		i := t.inst
		if !i.alive() || i.master.addrGen != t.addrGen || i.master.configEpoch != t.epoch {
			continue
		}
		m := i.master
		switch {
		case ok && granted[k]:
			i.grantedUntil, i.grantedEpoch = max(i.grantedUntil, p.at+p.leaseMs), t.epoch
			if m.proxy.fenced {
				s.checkProxy(m, now) // forward at once, not at the next tick
			}
		case ok && i.grantedUntil != 0 && i.grantedEpoch == t.epoch:
			// A refusal drops the lease that peer granted before on the
			// same configuration: it no longer holds the master as it
			// did (a master it cannot reach, a vote asked of it), and
			// fencing sooner is always safe. One on a configuration the
			// peer has not reached yet (just after a switch) drops
			// nothing.
			i.grantedUntil = 0
			s.checkProxy(m, now)
		}
		if !s.tilt {
			s.checkRejoins(m, now) // convert at once, or end the wait
		}
	}
}

// holdVote reports whether this Sentinel must hold back the vote about m
// it would now cast in epoch (fence.VoteDeferred); if so it records the
// intent, renewed after an election timeout (election ms), which stops
// its grants on m, so that the next ask gets the vote.
func (m *master) holdVote(epoch uint64, now, election int64) bool {
	if !fence.VoteDeferred(now, m.voteLapseAt()) {
		return false
	}
	if epoch > m.lease.intentEpoch || now-m.lease.intentAt >= election {
		m.lease.intentEpoch, m.lease.intentAt = epoch, now
	}
	return true
}
