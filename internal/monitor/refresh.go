package monitor

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// refreshFromInfo applies an INFO reply to an instance: what it reports
// (§4.1), then the reactions (§4.2).
func (s *Sentinel) refreshFromInfo(i *instance, text string, now int64) {
	r := inforeply.Parse(text)
	i.info = text
	i.masterLinkDownTime = r.MasterLinkDownTime.Milliseconds()
	if r.RunID != "" {
		if i.runID == "" {
			i.runID = r.RunID
		} else if i.runID != r.RunID {
			i.restartedAt = now
			s.event(event.LevelNotice, event.Reboot, i, "")
			if i.kind == object.Master && i.master.settings.RebootDownAfterMs != 0 {
				i.flags |= object.MasterReboot
				i.rebootTime = now
			}
			i.runID = r.RunID
		}
	}
	if i.kind == object.Master {
		for _, a := range r.Replicas {
			s.discoverReplica(i.master, a, now, false)
		}
		if len(s.addrs.formerIPs) > 0 {
			s.addrs.forgetFormerIPs(i.master, r.Replicas) // addresses.go
		}
		i.master.noteOffsets(&s.addrs, text, now) // proxy_replicas.go
	} else if i.kind == object.Replica {
		s.discoverChained(i.master, r.Replicas, now)
	}
	if r.HasMasterHost && (i.slaveMasterHost == "" || !strings.EqualFold(r.MasterHost, i.slaveMasterHost)) {
		i.slaveMasterHost = r.MasterHost
		i.slaveConfChangeTime = now
	}
	if r.HasMasterPort && i.slaveMasterPort != r.MasterPort {
		i.slaveMasterPort = r.MasterPort
		i.slaveConfChangeTime = now
	}
	if r.HasMasterLinkStatus {
		i.masterLinkUp = r.MasterLinkUp
	}
	if r.HasSlavePriority {
		i.priority = r.SlavePriority
	}
	if r.HasSlaveReplOffset {
		i.replOffset = r.SlaveReplOffset
	}
	if r.HasReplicaAnnounced {
		i.announced = r.ReplicaAnnouncedValue
	}
	if r.HasMasterFailoverState && r.MasterFailoverState != i.failoverReported {
		i.failoverReported = r.MasterFailoverState
		i.failoverReportedTime = now
	}
	idsLearned := i.idsStale
	i.replID, i.replID2, i.idsStale = r.ReplID, r.ReplID2, false
	i.infoRefresh = now
	if i.convertSent {
		i.convertSent, i.reportedAgainAt = false, now
	}

	if r.Role != i.roleReported {
		i.roleReportedTime = now
		i.roleReported = r.Role
		if r.Role == inforeply.RoleSlave {
			i.slaveConfChangeTime = now
		}
		typ := event.RoleChangeUnexpected
		if (i.kind == object.Master && r.Role == inforeply.RoleMaster) || (i.kind == object.Replica && r.Role == inforeply.RoleSlave) {
			typ = event.RoleChange
		}
		s.event(event.LevelVerbose, typ, i, " new reported role is "+object.ShownRole(r.Role))
	}
	if s.tilt {
		return
	}
	m := i.master
	if i.kind == object.Replica && r.Role == inforeply.RoleMaster && !s.promotionReported(m, i, now) {
		s.convertReturning(m, i, now) // rejoin.go
	}
	if i.kind == object.Master && r.Role == inforeply.RoleMaster && idsLearned {
		s.recheckRejoins(m, now) // its replication ids tell a return from a fork now
	}
	if i.kind == object.Replica && r.Role == inforeply.RoleSlave && (i.stuckInServerFailover(now, s.timing.InfoPeriodMs) || i.followsOther(now, &s.addrs, s.timing.InfoPeriodMs)) {
		// Valkey 9 checks the two in turn and may send two transactions
		// for one INFO; one does both.
		if s.sendSlaveOf(i, &m.addr) {
			s.event(event.LevelNotice, event.FixSlaveConfig, i, "")
		}
	}
	if i.kind == object.Replica && r.Role == inforeply.RoleSlave {
		s.replicaReconfProgress(i)
	}
}

// followsOther reports whether replica i has replicated from an address
// other than its master's for longer than the failover-timeout, while
// the master looks sane and i was not down meanwhile: it is sent SLAVEOF
// its master (+fix-slave-config). Hosts match as b matches them; INFO
// comes every infoPeriod ms.
func (i *instance) followsOther(now int64, b *addrBook, infoPeriod int64) bool {
	m := i.master
	if i.slaveMasterPort == m.addr.Port && b.addrMatchesHost(m.addr, i.slaveMasterHost) {
		return false
	}
	wait := m.settings.FailoverTimeoutMs
	return m.looksSane(now, infoPeriod) && noDownFor(i, wait, now) && now-i.slaveConfChangeTime > wait
}

// stuckInServerFailover reports whether replica i is stuck in a
// server-side FAILOVER (failover.StuckInServerFailover) at now, with INFO
// every infoPeriod ms: it is sent SLAVEOF its master, FAILOVER ABORT
// first (+fix-slave-config).
func (i *instance) stuckInServerFailover(now, infoPeriod int64) bool {
	m := i.master
	wait := m.settings.FailoverTimeoutMs
	return failover.StuckInServerFailover(failover.StuckReplica{
		State:        i.failoverReported,
		For:          now - i.failoverReportedTime,
		MasterSane:   m.looksSane(now, infoPeriod),
		DownRecently: !noDownFor(i, wait, now),
	}, wait)
}

// discoverReplica adds a replica a master reported in its INFO, if new;
// chained: a replica of m reported it (discoverChained).
func (s *Sentinel) discoverReplica(m *master, a settings.Addr, now int64, chained bool) {
	valid, ok := s.addrs.validAddr(a)
	if !ok {
		if s.global.ResolveHostnames || a.Host == "" {
			return
		}
		s.out.log(event.LevelWarning, "Failed to resolve hostname '"+a.Host+"'")
		return
	}
	if r := s.addrs.findReplicaByName(m, valid); r != nil {
		r.listedByMaster = r.listedByMaster || !chained
		return
	}
	if other := m.replicas[s.addrs.announceAddr(valid).String()]; other != nil {
		// The name an entry stored by hostname got when its host
		// resolved elsewhere (announce-hostnames no): never two entries
		// under one name.
		return
	}
	r := s.createReplica(m, valid, now)
	r.listedByMaster = !chained
	s.event(event.LevelNotice, event.Replica, r, "")
	s.out.persistSoon("new replica")
}

// looksSane reports whether m reports itself master, is not down and
// answered INFO in the last two INFO periods (infoPeriod ms) at now;
// only then do we push replicas towards it.
func (m *master) looksSane(now, infoPeriod int64) bool {
	return m.roleReported == inforeply.RoleMaster && !m.has(object.SDown|object.ODown) &&
		now-m.infoRefresh < 2*infoPeriod
}

// noDownFor reports whether the instance had no SDOWN or ODOWN start in
// the last d ms (the start times are never cleared by -sdown/-odown).
func noDownFor(i *instance, d, now int64) bool {
	recent := i.sdownSince
	if i.odownSince > recent {
		recent = i.odownSince
	}
	return recent == 0 || now-recent > d
}

// sendSlaveOf sends the SLAVEOF transaction (§10.8); to == nil means
// SLAVEOF NO ONE. When i's last INFO showed a server-side FAILOVER
// running, FAILOVER ABORT goes first, as Valkey 9 sends it
// (failover.AbortBeforeSlaveOf). A command in extra goes in the
// transaction last (the demotion's CLIENT UNPAUSE). It reports whether
// the commands were queued.
func (s *Sentinel) sendSlaveOf(i *instance, to *settings.Addr, extra ...string) bool {
	if i.link.cc == 0 {
		return false
	}
	host, port := "NO", "ONE"
	if to != nil {
		host, port = s.addrs.announceHost(*to), strconv.Itoa(to.Port)
	}
	s.links.send(i, sentOther, "MULTI")
	at := 1 // the SLAVEOF's place in the EXEC reply, from 1
	if failover.AbortBeforeSlaveOf(i.failoverReported) {
		s.links.send(i, sentOther, "FAILOVER", "ABORT")
		at++
	}
	s.links.send(i, sentOther, "SLAVEOF", host, port)
	s.links.send(i, sentOther, "CONFIG", "REWRITE")
	s.links.send(i, sentOther, "CLIENT", "KILL", "TYPE", "normal")
	s.links.send(i, sentOther, "CLIENT", "KILL", "TYPE", "pubsub")
	if len(extra) > 0 {
		s.links.send(i, sentOther, extra...)
	}
	s.links.sendPending(pending{kind: sentExec, inst: i, slaveOfAt: at}, "EXEC")
	return true
}
