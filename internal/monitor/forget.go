package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// The rule that forgets stale replicas (go-sentinel's extension, issue
// 21): in Kubernetes a replica pod comes back with a new address, the
// master lists it there, and Redis keeps the old address as a replica
// forever. With forget-replica-after set, a replica is forgotten when
// all of these hold, so that a replica that may still exist is kept:
//
//   - it gave no valid PING reply for longer than forget-replica-after
//     (the clock SDOWN reads: the time since the last valid reply);
//   - this Sentinel saw it as a replica of this master since it made the
//     object: the master's INFO listed it, or its own INFO reported
//     role:slave of this master; and its last INFO, if any, still did.
//     An object that neither the master listed nor answered may be an
//     old master added as a replica at a failover, or loaded from the
//     config file, and a master that comes back at its address must be
//     found there and demoted, as Redis does; a replica that last
//     reported role:master may be one too, and one that last followed
//     another server must be pointed back. Those are kept;
//   - the master is trusted to know its replicas: it reports the master
//     role, it is not SDOWN or ODOWN, its INFO is fresh (as
//     master.looksSane), no failover of it is in progress, and this
//     Sentinel is not in TILT;
//   - that INFO was sent after the replica stopped answering, and it does
//     not list the replica;
//   - the replica is not the one a failover promoted.
//
// A replica the master lists again later is discovered again (+slave).
// One that comes back behind another replica (it still follows an old
// master that a failover made a replica) is not listed by the master:
// with forget-replica-after set, the replicas a replica lists are
// discovered too (discoverChained), so that it is found there and
// pointed at the master (+fix-slave-config), as Redis would had it not
// been forgotten.

// discoverChained adds the replicas a replica of m lists in its INFO
// (replicas of a replica), when m forgets replicas: a forgotten replica
// that comes back following another replica is found that way. The
// master's own address is never added as its replica.
func (s *Sentinel) discoverChained(m *master, listed []settings.Addr, now int64) {
	if m.settings.ForgetReplicaAfterMs <= 0 {
		return
	}
	for _, a := range listed {
		if sameAddr(a, m.addr) || s.addrs.sameInstanceAddr(m.addr, a) {
			continue
		}
		s.discoverReplica(m, a, now, true)
	}
}

// replicaListing is the replicas the master's INFO listed, parsed once
// per INFO reply, and only when a replica could be forgotten.
type replicaListing struct {
	// at is the infoRefresh of the INFO parsed; 0: none yet.
	at    int64
	addrs []settings.Addr
}

// forgetReplicas forgets the replicas of m that forgettable allows, with
// an event.ReplicaForgotten each, and persists the config if it forgot
// any.
func (s *Sentinel) forgetReplicas(m *master, now int64) {
	after := m.settings.ForgetReplicaAfterMs
	if after <= 0 || s.tilt || len(m.replicas) == 0 || !m.listingTrusted(now, s.timing.InfoPeriodMs) {
		return
	}
	forgot := false
	for _, r := range m.sortedReplicas() {
		if !m.forgettable(r, after, now, &s.addrs) {
			continue
		}
		s.event(event.LevelNotice, event.ReplicaForgotten, r, "")
		s.dropReplica(m, r)
		forgot = true
	}
	if forgot {
		s.out.persist("forgot replica")
	}
}

// listingTrusted reports whether m's last INFO can tell which replicas
// it has at now, with INFO every infoPeriod ms: a master that looks sane,
// and no failover of it in progress.
func (m *master) listingTrusted(now, infoPeriod int64) bool {
	return !m.has(object.FailoverInProgress) && m.promoted == nil && m.looksSane(now, infoPeriod)
}

// forgettable reports whether replica r of m is stale by the rule above,
// given that m's listing can be trusted, matching addresses with b.
func (m *master) forgettable(r *instance, after, now int64, b *addrBook) bool {
	l := r.link
	if r.has(object.Promoted) || r == m.promoted || l.actPingTime == 0 || now-l.lastAvailTime <= after {
		return false
	}
	if r.infoRefresh == 0 && !r.listedByMaster {
		return false
	}
	if r.infoRefresh != 0 && (r.roleReported != inforeply.RoleSlave || r.slaveMasterPort != m.addr.Port ||
		!b.addrMatchesHost(m.addr, r.slaveMasterHost)) {
		return false
	}
	// The INFO must have been asked after the replica stopped answering:
	// one asked before may describe the world before it went away.
	if m.infoSentAt == 0 || m.infoSentAt <= l.actPingTime {
		return false
	}
	return !m.lists(r, b)
}

// lists reports whether m's last INFO lists r, matching addresses with b
// as discovery does and, with hostnames, also by what they resolved to.
func (m *master) lists(r *instance, b *addrBook) bool {
	if m.listing.at != m.infoRefresh {
		m.listing = replicaListing{at: m.infoRefresh, addrs: inforeply.Parse(m.info).Replicas}
	}
	for _, a := range m.listing.addrs {
		if v, ok := b.validAddr(a); ok && sameAddr(r.addr, v) {
			return true
		}
		if b.sameInstanceAddr(r.addr, a) {
			return true
		}
	}
	return false
}
