package monitor

import (
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/fence"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// This file converts a replica that reports itself a master back into a
// replica (+convert-to-slave): a returning old master, or a replica
// promoted by hand. It gathers the facts of failover.Convert, the rule,
// and carries out its decisions: at once when leases from a majority of
// the master's Sentinels confirm the master's configuration; meanwhile
// it pauses the replica's writes and asks for those leases; where they
// do not come, Redis's wait.

// rejoinState is what this Sentinel keeps of one report of role master
// by a replica (one return) while it converts it.
type rejoinState struct {
	// since is the roleReportedTime of the report this state is about;
	// a new report, after one of role slave, starts a new state.
	since int64
	// endsAt is when the wait for a majority's leases ends
	// (failover.ConvertPauseMs after it began); 0: it has not begun.
	endsAt int64
	// askedAt is when this Sentinel asked the master's Sentinels for
	// leases for it; 0: not yet.
	askedAt int64
	// pausedUntil is when the write pause this Sentinel sent it ends; 0:
	// none sent, or lifted.
	pausedUntil int64
	// verdict is the rule's last decision, made at (EXPLAIN shows it);
	// converted: the SLAVEOF it decided was sent.
	verdict   failover.ConvertVerdict
	at        int64
	converted bool
}

// returning reports whether replica i's last INFO reports role master.
func (i *instance) returning() bool {
	return i.kind == object.Replica && i.roleReported == inforeply.RoleMaster
}

// listeningSince is when this Sentinel began to hear, without a break,
// what replica i reports and what is published on its hello channel:
// the latest of its report of its role, the (re)connection of the links
// to it, its restart, and the first INFO after this Sentinel last
// converted it. Redis counts its wait before a conversion from the
// report alone; a Sentinel that lost its links to the instance, or saw
// it restart, meanwhile may then convert it at its first INFO without
// having been able to hear of a newer configuration, which demoted the
// master of the newest configuration in the simulator. So did one that
// converted it and, at its next INFO (10 s later, a replica's period),
// found it promoted again by a failover whose configuration had not
// reached it: the role had not changed between the two INFOs it saw.
func (i *instance) listeningSince() int64 {
	return max(i.roleReportedTime, i.link.ccConnTime, i.link.pcConnTime, i.restartedAt, i.reportedAgainAt)
}

// peerHeardSince reports whether a hello of another Sentinel about m
// reached this Sentinel after since: only then could one have told it
// of a configuration newer than its own.
func peerHeardSince(m *master, since int64) bool {
	for _, si := range m.sentinels {
		if si.helloSeen && si.lastHelloTime > since {
			return true
		}
	}
	return false
}

// convertLeaseMs is the length of the leases this Sentinel asks its
// peers for on m: proxy-fence-after when m has a proxy or a read port
// that falls back to it (whose leases confirm a conversion too), else
// failover.ConvertLeaseMs.
func (m *master) convertLeaseMs() int64 {
	if m.leased() {
		return m.settings.ProxyFenceAfterMs
	}
	return failover.ConvertLeaseMs
}

// convertFacts gathers what failover.Convert decides the conversion of
// replica i of m from, at now.
func (s *Sentinel) convertFacts(m *master, i *instance, now int64) failover.ConvertFacts {
	wait := 4 * s.timing.PublishPeriodMs
	f := failover.ConvertFacts{
		Promoted:    i.has(object.Promoted),
		MasterSane:  m.looksSane(now, s.timing.InfoPeriodMs),
		ReportedFor: now - i.listeningSince(),
		PeerHeard:   peerHeardSince(m, i.listeningSince()),
		NoDown:      noDownFor(i, wait, now),
		Wait:        wait,
		Fork:        forkOf(m, i),
	}
	ff := s.fenceFacts(m, m.convertLeaseMs(), now)
	f.Unconfirmed = fence.Confirmed(ff)
	if f.Unconfirmed == "" {
		return f
	}
	st := &i.rejoin
	open := st.endsAt == 0 || now < st.endsAt
	answering := st.askedAt == 0 || m.leaseAsksPending()
	reachable := 1
	for _, si := range m.sentinels {
		if !si.link.disconnected(object.Sentinel) && !si.link.refusesLeases() {
			reachable++
		}
	}
	_, need := fence.Held(ff)
	f.Confirmable = open && answering && reachable >= need && fence.Grant(ff.Self) == ""
	return f
}

// forkOf says why replica i, reporting role master, may be a promotion
// out of master m's current replication history (failover.ConvertFacts'
// Fork), or "" when it is not: a returning old master is on the history
// m was promoted from, or (restarted) on a new one.
func forkOf(m *master, i *instance) string {
	switch {
	case m.replID == "" || i.replID == "":
		return "INFO gives no replication ids (master_replid) to tell a returning master from a promotion out of the master's history"
	case i.replID2 == m.replID || i.replID == m.replID:
		return "its master_replid2 is the master's master_replid: it was promoted out of the master's history, as a failover whose configuration has not arrived yet, SENTINEL FAILOVER or an operator does"
	}
	return ""
}

// convertReturning applies failover.Convert to replica i of m, whose
// last INFO reports role master, at now: SLAVEOF its master (with the
// pause this Sentinel sent lifted in the same transaction), or its
// writes paused and leases asked for, or nothing (a pause it sent
// lifted).
func (s *Sentinel) convertReturning(m *master, i *instance, now int64) {
	st := &i.rejoin
	if st.since != i.roleReportedTime {
		*st = rejoinState{since: i.roleReportedTime}
	}
	v := failover.Convert(s.convertFacts(m, i, now))
	st.verdict, st.at, st.converted = v, now, false
	switch v.Act {
	case failover.ConvertNow:
		var unpause []string
		if st.pausedUntil > now {
			unpause = []string{"CLIENT", "UNPAUSE"}
		}
		if s.sendSlaveOf(i, &m.addr, unpause...) {
			st.pausedUntil, st.endsAt, st.converted = 0, now, true
			i.convertSent = true
			s.event(event.LevelNotice, event.ConvertToSlave, i, "")
		}
	case failover.ConvertConfirm:
		m.rejoining = true
		if st.endsAt == 0 {
			st.endsAt = now + failover.ConvertPauseMs
			s.deadline(st.endsAt)
		}
		if st.pausedUntil == 0 && i.failoverReported != "" && i.link.cc != 0 {
			// Redis 6.2 or later (master_failover_state): CLIENT PAUSE
			// WRITE stops its writes and lets its reads and replication
			// go on.
			s.links.send(i, sentOther, "MULTI")
			s.links.send(i, sentOther, "CLIENT", "PAUSE", strconv.FormatInt(st.endsAt-now, 10), "WRITE")
			s.links.send(i, sentOther, "EXEC")
			st.pausedUntil = st.endsAt
		}
		if st.askedAt == 0 {
			st.askedAt = now
			s.sendLeaseAsks([]*master{m}, now, true)
		}
	default:
		if st.pausedUntil > now && i.link.cc != 0 {
			s.links.send(i, sentOther, "CLIENT", "UNPAUSE")
		}
		st.pausedUntil = 0
		if st.endsAt != 0 {
			st.endsAt = min(st.endsAt, now) // no second round in this return
		}
	}
}

// checkRejoins carries on, at now, the conversions of m's replicas that
// wait for leases: converted as soon as a majority granted, and the
// pause lifted once the wait ended without one.
func (s *Sentinel) checkRejoins(m *master, now int64) {
	if !m.rejoining {
		return
	}
	m.rejoining = false
	for _, r := range m.sortedReplicas() {
		if r.returning() && r.rejoin.verdict.Act == failover.ConvertConfirm {
			s.convertReturning(m, r, now) // sets m.rejoining again while it waits
		}
	}
}

// recheckRejoins decides again, at the first INFO of master m after a
// switch, about its replicas that report role master and wait: what kept
// them waiting may have been m's replication ids, unknown until then.
func (s *Sentinel) recheckRejoins(m *master, now int64) {
	for _, r := range m.sortedReplicas() {
		if r.returning() && r.rejoin.verdict.Branch == failover.BranchWaiting {
			s.convertReturning(m, r, now)
		}
	}
}

// leaseAsksPending reports whether a SENTINEL LEASE to one of m's
// Sentinels waits for its reply.
func (m *master) leaseAsksPending() bool {
	for _, si := range m.sentinels {
		if si.link.leasePending {
			return true
		}
	}
	return false
}
