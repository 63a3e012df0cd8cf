package monitor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
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

// answerAsk answers another Sentinel's IsMasterDownByAddr (§7.5): whether
// we think the master at req.IP:req.Port is down (never while in TILT)
// and, when req asks for a vote, our vote for the leader of
// req.CurrentEpoch.
func (s *Sentinel) answerAsk(now int64, req gossip.AskRequest) gossip.AskReply {
	rep := gossip.NoVoteReply()
	var m *master
	for _, name := range s.names {
		cand := s.masters[name]
		if cand.addr.Port == req.Port && s.addrMatchesHost(cand.addr, req.IP) {
			m = cand
			break
		}
	}
	if m == nil {
		return rep
	}
	rep.Down = m.has(flagSDown) && !s.tilt
	if req.AsksVote() {
		leader, le := s.vote(m, req.CurrentEpoch, req.RunID, now)
		if leader != "" {
			rep.Leader = leader
		}
		rep.LeaderEpoch = le
	}
	return rep
}
