package monitor

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// vote is another Sentinel asking for our vote for runID in epoch (§8.2):
// election.Grant decides (at most once per epoch per master, for the
// first asker); vote applies, persists and reports its decision. It
// returns our (possibly older) vote for m.
func (s *Sentinel) vote(m *master, epoch uint64, runID string, now int64) (string, uint64) {
	next, epochRaised, voted := s.grant(m, epoch, runID)
	if epochRaised {
		s.currentEpoch = next.CurrentEpoch
		s.persist("new epoch")
		s.eventFor(LevelWarning, EventNewEpoch, m, strconv.FormatUint(s.currentEpoch, 10))
	}
	if voted {
		m.leader = next.Leader
		m.leaderEpoch = next.LeaderEpoch
		s.persist("vote")
		s.eventFor(LevelWarning, EventVoteForLeader, m, fmt.Sprintf("%s %d", m.leader, m.leaderEpoch))
		if !strings.EqualFold(m.leader, s.myID) {
			m.failoverStartTime = now + int64(s.rnd.Intn(1000))
		}
	}
	return m.leader, m.leaderEpoch
}

// MasterDownReply is the answer to SENTINEL IS-MASTER-DOWN-BY-ADDR.
type MasterDownReply struct {
	Down        bool
	Leader      string // "*" when no vote was asked for or none was cast
	LeaderEpoch uint64
}

// IsMasterDownByAddr answers another Sentinel (§7.5): whether we think the
// master at ip:port is down (never while in TILT) and, when runID is not
// "*", our vote for the leader of epoch.
func (s *Sentinel) IsMasterDownByAddr(at time.Time, ip string, port int, epoch uint64, runID string) MasterDownReply {
	now := ms(at)
	rep := MasterDownReply{Leader: "*"}
	var m *master
	for _, name := range s.names {
		cand := s.masters[name]
		if cand.addr.Port == port && s.addrMatchesHost(cand.addr, ip) {
			m = cand
			break
		}
	}
	if m == nil {
		return rep
	}
	rep.Down = m.has(flagSDown) && !s.tilt
	if runID != "*" {
		leader, le := s.vote(m, epoch, runID, now)
		if leader != "" {
			rep.Leader = leader
		}
		rep.LeaderEpoch = le
	}
	return rep
}
