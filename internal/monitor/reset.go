package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// resetMaster forgets what was learned about m (§10.7): replicas, and the
// Sentinels unless keepSentinels, flags, the failover run (dropRun) and
// its retry delay, vote target, run id; its connections are reopened by
// the next ticks. It sends no command: a pause of the master's writes this
// Sentinel sent ends at its deadline.
func (s *Sentinel) resetMaster(m *master, keepSentinels bool, now int64) {
	for _, r := range m.sortedReplicas() {
		s.dropReplica(m, r)
	}
	if !keepSentinels {
		for _, si := range m.sortedSentinels() {
			s.dropSentinel(m, si)
		}
	} else {
		// The Sentinels stay, their opinions of the old address do not:
		// Redis keeps them (up to 5 ask periods), and a peer's "down"
		// about the old master then counts toward the new one's ODOWN.
		for _, si := range m.sentinels {
			si.flags &^= object.MasterDown
			si.leader = ""
			si.answered = false
			si.lastMasterDownReplyTime = now
		}
	}
	s.links.closeLinks(&m.instance)
	m.dropRun()
	m.flags = 0
	m.leader = ""
	// Unlike an abort, a reset also forgets the retry delay, as Redis's
	// sentinelResetMaster does: the next failover may start at once.
	m.failoverStartTime = 0
	m.runID = ""
	m.slaveMasterHost = ""
	l := m.link
	// Reconnect at the next tick, not a ping period after the last
	// attempt to the old address: a just-promoted master must be pinged
	// at once, or with a short down-after it looks down before its first
	// PING was even sent (and with quorum 1 it is failed over again).
	l.lastReconnTime = 0
	l.actPingTime = now
	l.lastPingTime = 0
	l.hasRTT = false
	l.lastAvailTime = now
	l.lastPongTime = now
	s.views.linkChanged(l)
	m.roleReported = inforeply.RoleMaster
	m.roleReportedTime = now
	// Its replication ids are those of the address it had; the new one's
	// come with its first INFO, asked at once (sendPeriodic), for a
	// returning old master to be told from a fork (rejoin.go).
	m.replID, m.replID2, m.idsStale = "", "", true
}

// resetMasterAndChangeAddress points m at a new address after a failover
// (§10.7): the old master and the other replicas become its replicas. It
// returns false, changing nothing, if the address is not valid.
func (s *Sentinel) resetMasterAndChangeAddress(m *master, to settings.Addr, now int64) bool {
	to, ok := s.addrs.validAddr(to)
	if !ok {
		return false
	}
	to = s.addrs.namedAddr(m, to)
	var keep []settings.Addr
	for _, r := range m.sortedReplicas() {
		if !s.addrs.sameInstanceAddr(r.addr, to) {
			keep = append(keep, r.addr)
		}
	}
	if !s.addrs.sameInstanceAddr(m.addr, to) {
		keep = append(keep, m.addr)
	}
	s.resetMaster(m, true, now)
	m.addr = to
	m.addrGen++
	m.sdownSince = 0
	m.odownSince = 0
	for _, a := range keep {
		if s.addrs.findReplicaByName(m, a) != nil {
			continue
		}
		r := s.createReplica(m, a, now)
		s.event(event.LevelNotice, event.Replica, r, "")
	}
	// The proxy follows the new master at once, not at the next tick.
	s.checkProxy(m, now)
	readPort{s, m, now}.check()
	s.out.persist("switch master")
	return true
}
