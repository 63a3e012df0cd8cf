package monitor

// This file is the election as the core runs it: when to start a
// failover (the ladder), the tally of a running election, the votes this
// Sentinel grants, and the core's state as the values of the election
// rules (internal/election).

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// peerOf describes the Sentinel si for the election rules.
func peerOf(si *instance) election.Peer {
	return object.ElectionPeer(si.runID, si.flags, !si.link.disconnected(object.Sentinel), si.leader, si.leaderEpoch)
}

// peers describes m's other Sentinels for the election rules, in name
// order (the order of sortedSentinels).
func (m *master) peers() []election.Peer {
	sentinels := m.sortedSentinels()
	out := make([]election.Peer, len(sentinels))
	for k, si := range sentinels {
		out[k] = peerOf(si)
	}
	return out
}

// vote is another Sentinel asking for our vote for runID in epoch (§8.2):
// election.Grant decides (at most once per epoch per master, for the
// first asker); vote applies, persists and reports its decision. It
// returns our (possibly older) vote for m.
func (s *Sentinel) vote(m *master, epoch uint64, runID string, now int64) (string, uint64) {
	next, epochRaised, voted := election.Grant(m.voteState(s.currentEpoch), epoch, runID)
	if epochRaised {
		s.newEpoch(m, next.CurrentEpoch, true)
	}
	if voted && m.holdVote(next.LeaderEpoch, now, s.timing.ElectionTimeoutMs) {
		return m.leader, m.leaderEpoch // the leases first (lease.go)
	}
	if voted {
		s.castVote(m, next, now)
	}
	return m.leader, m.leaderEpoch
}

// voteState is our vote state for m at our current epoch, as the
// election rules read it.
func (m *master) voteState(currentEpoch uint64) election.Vote {
	return election.Vote{CurrentEpoch: currentEpoch, Leader: m.leader, LeaderEpoch: m.leaderEpoch}
}

// castVote records the vote next just granted for m (an asker's, or our
// own in an election step): persisted and announced with
// +vote-for-leader; a vote for another Sentinel delays our own failover
// of m, as in Redis.
func (s *Sentinel) castVote(m *master, next election.Vote, now int64) {
	m.leader = next.Leader
	m.leaderEpoch = next.LeaderEpoch
	m.lease.intentEpoch, m.lease.intentAt = 0, 0 // the vote is cast
	s.out.persist("vote")
	s.eventFor(event.LevelWarning, event.VoteForLeader, m, fmt.Sprintf("%s %d", m.leader, m.leaderEpoch))
	if !strings.EqualFold(m.leader, s.myID) {
		m.failoverStartTime = now + int64(s.rnd.Intn(1000))
		m.votedAt = now
		// At once, not at the next tick: the candidate may promote
		// sooner.
		s.checkProxy(m, now)
	}
}

// startFailoverIfNeeded starts a failover of an ODOWN master unless one
// runs or the last one started less than 2 × failover-timeout ago (§8.3).
func (s *Sentinel) startFailoverIfNeeded(m *master, now int64) bool {
	if !m.has(object.ODown) || m.has(object.FailoverInProgress) {
		return false
	}
	if retry := failover.RetryAt(m.failoverStartTime, m.settings.FailoverTimeoutMs); now < retry {
		if m.failoverDelayLogged != m.failoverStartTime {
			m.failoverDelayLogged = m.failoverStartTime
			at := time.UnixMilli(retry)
			s.out.log(event.LevelWarning, "Next failover delay: I will not start a failover before "+at.Format("Mon Jan _2 15:04:05 2006"))
		}
		return false
	}
	if s.currentEpoch == math.MaxUint64 {
		// Redis would wrap to epoch 0 here and every peer would ignore
		// the failover (and our epochs would go back): a hello from any
		// client of an open port can set this epoch. Never start one.
		if !m.epochExhaustedLogged {
			m.epochExhaustedLogged = true
			s.out.log(event.LevelWarning, "Failover of '"+m.name+"' not started: the current epoch is 18446744073709551615 and cannot grow (a peer or a client announced it)")
		}
		return false
	}
	if a := s.opts.Accel; a.ElectionStepMs > 0 || a.ElectionJitterMs > 0 {
		// The election ladder: this Sentinel's rank among those that
		// could lead delays its start and holds it back while one
		// with a smaller run id reports the master down.
		step := a.ElectionStepMs
		peers := m.peers()
		rank, lowerDown := election.Rank(s.myID, peers)
		if m.electionAt == 0 {
			jitter := s.rnd.Int63n(a.ElectionJitterMs + 1)
			m.electionAt, m.electionHoldUntil = election.Ladder(now, rank, step, a.ElectionHoldMs, jitter)
		}
		if a.ElectionBusyHoldMs > 0 {
			for k := range peers {
				peers[k].AskingVotes = s.voteAsks.asked(peers[k].RunID, now, a.ElectionHoldMs)
			}
			m.electionHoldUntil = election.Extend(now, m.electionAt, m.electionHoldUntil, step,
				a.ElectionBusyHoldMs, election.LowerBusy(s.myID, peers))
		}
		if wait, until := election.Wait(now, m.electionAt, m.electionHoldUntil, step, lowerDown); wait {
			s.deadline(until)
			return false
		}
	}
	m.electionAt = 0
	s.startFailover(m, now)
	return true
}

// leader runs one step of the election of m's failover (§8.4) and
// returns the leader elected, "" for none. election.Elect counts every
// vote in the current epoch: the other Sentinels' votes of it plus our
// own, cast in it for the leading candidate or ourselves. The majority is
// counted over the known Sentinels or the voters floor, whichever is
// larger (election.Voters). When we win, that epoch becomes our
// failover's, the config epoch we announce once our replica is promoted:
// the current epoch may have moved past the one the failover started in
// (other masters' elections raise it), and a win is always a majority of
// the votes of the epoch it carries. Redis 7.0 adds the peers' votes of
// the current epoch to its own of the failover's, and can elect a leader
// with a majority of neither (docs/compatibility.md, hazard j).
func (s *Sentinel) leader(m *master, now int64) string {
	step := election.Elect(m.voteState(s.currentEpoch), m.peers(), s.myID,
		m.voters(), m.settings.Quorum)
	if step.Voted {
		before := m.lease.intentEpoch
		if m.holdVote(step.Vote.LeaderEpoch, now, s.timing.ElectionTimeoutMs) {
			// Our own vote waits for the leases we granted (lease.go),
			// and no winner is counted without it. The failover's new
			// epoch, which the vote would have persisted, is persisted
			// now.
			if m.lease.intentEpoch != before {
				s.out.persist("new epoch")
			}
			s.deadline(m.voteLapseAt())
			return ""
		}
	}
	if step.Voted {
		s.castVote(m, step.Vote, now)
	}
	if step.Won(s.myID) {
		m.failoverEpoch = step.Epoch
	}
	return step.Winner
}

// newEpoch makes epoch the current epoch and announces it (+new-epoch,
// belonging to m). It is persisted now unless persist is false: a
// failover's start, whose self-vote in the next election step persists
// it.
func (s *Sentinel) newEpoch(m *master, epoch uint64, persist bool) {
	s.currentEpoch = epoch
	if persist {
		s.out.persist("new epoch")
	}
	s.eventFor(event.LevelWarning, event.NewEpoch, m, strconv.FormatUint(s.currentEpoch, 10))
}

// voteAsks is when each known Sentinel (run id, lower case) last asked
// this one for a vote (Accel.ElectionBusyHold); nil until one did. Only
// known Sentinels are recorded, so it stays as small as the fleet
// whatever a client sends.
type voteAsks map[string]int64

// asked reports whether the Sentinel runID asked for a vote in the last
// 2 × hold ms (ElectionHold).
func (v voteAsks) asked(runID string, now, hold int64) bool {
	at, ok := v[strings.ToLower(runID)]
	return ok && now-at <= 2*hold
}

// note records that runID asked for a vote at now, if it is a known
// Sentinel of m.
func (v *voteAsks) note(m *master, runID string, now int64) {
	for _, si := range m.sentinels {
		if strings.EqualFold(si.runID, runID) {
			if *v == nil {
				*v = voteAsks{}
			}
			(*v)[strings.ToLower(runID)] = now
			return
		}
	}
}
