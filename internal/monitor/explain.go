package monitor

import (
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/explain"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

func timelineView(t event.Timeline) *explain.TimelineView {
	if len(t.Marks) == 0 {
		return nil
	}
	v := &explain.TimelineView{Led: t.Led, TotalMs: t.Total().Milliseconds()}
	d := t.Durations()
	for k, m := range t.Marks {
		v.Phases = append(v.Phases, explain.PhaseView{Phase: string(m.Phase), At: m.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			DurationMs: d[k].Milliseconds(), Note: m.Note})
	}
	return v
}

// Explain reports where master name stands and why (SENTINEL EXPLAIN).
func (s *Sentinel) Explain(at time.Time, name string) (explain.Explanation, error) {
	m, err := s.master(name)
	if err != nil {
		return explain.Explanation{}, err
	}
	now := ms(at)
	l := m.link
	a := s.addrs.announceAddr(m.addr)
	e := explain.Explanation{Master: m.name, IP: a.Host, Port: a.Port, Stage: explain.StageOK}
	if len(m.settings.Proxy) > 0 {
		h := m.proxyHeadOf()
		e.Proxy = &explain.ProxyView{Listen: m.settings.Proxy, Forwarding: !h.Fenced, FenceAfterMs: h.FenceAfter, HoldMs: h.Hold, Fencing: h.Fencing, Protected: h.Protected}
		if h.Fenced {
			e.Proxy.Reason = h.Reason
		}
	}

	e.Reads = readPort{s, m, now}.explain()

	// Detection.
	d := &e.Detection
	d.SDown, d.ODown = m.has(object.SDown), m.has(object.ODown)
	if d.SDown {
		d.SDownMs = now - m.sdownSince
	}
	if d.ODown {
		d.ODownMs = now - m.odownSince
	}
	d.DownAfterMs = m.downAfter
	d.LinkUp = !l.disconnected(object.Master)
	d.LastValidMs = now - l.lastAvailTime
	if l.actPingTime != 0 {
		d.UnansweredMs = now - l.actPingTime
	}
	d.RoleReported = m.roleReported

	// Agreement and the other Sentinels.
	ag := &e.Agreement
	ag.Quorum = m.settings.Quorum
	ag.Voters = m.known()
	ag.VotersFloor = m.settings.Voters
	ag.Majority = election.Majority(m.voters())
	peers := m.peers()
	ag.Reachable = election.Reachable(peers)
	if d.SDown {
		ag.DownReports = 1
	}
	for k, si := range m.sortedSentinels() {
		p, sa := peers[k], s.addrs.announceAddr(si.addr)
		v := explain.SentinelView{RunID: p.RunID, IP: sa.Host, Port: sa.Port, LinkUp: p.LinkUp,
			SDown: p.SDown, ReportsDown: p.ReportsDown, ReplyAgeMs: now - si.lastMasterDownReplyTime,
			About: s.addrs.announceAddr(m.addr).String(), Answered: si.answered,
			VotedFor: p.Leader, VoteEpoch: p.LeaderEpoch,
			Stale: gossip.AnswerStale(now-si.lastMasterDownReplyTime, s.timing.AskPeriodMs)}
		if v.ReportsDown {
			ag.DownReports++
		}
		e.Sentinels = append(e.Sentinels, v)
	}

	// Election.
	el := &e.Election
	el.CurrentEpoch, el.ConfigEpoch, el.LeaderEpoch = s.currentEpoch, m.configEpoch, m.leaderEpoch
	el.VotedFor = m.leader
	el.LeaseHoldMs = max(0, m.voteLapseAt()-now)
	el.VotedForOther = m.leader != "" && !strings.EqualFold(m.leader, s.myID) && m.leaderEpoch == s.currentEpoch
	// The same tally as an election step (election.Elect): the peers'
	// votes in the current epoch and our own.
	t := election.PeerVotes(peers, s.currentEpoch)
	t.AddVote(m.leader, m.leaderEpoch, s.currentEpoch)
	if m.failoverState == failover.WaitStart {
		// Votes only mean something while an election runs here; after
		// it, the peers' last replies still name who they voted for.
		el.VotesForMe = t.Votes(s.myID)
	}
	el.VotesNeeded = election.RequiredWithFloor(ag.Voters, ag.VotersFloor, m.settings.Quorum)

	// Failover.
	f := &e.Failover
	f.InProgress = m.has(object.FailoverInProgress)
	f.State, f.Machine = m.failoverState.String(), m.failoverState
	f.ParallelSyncs = m.settings.ParallelSyncs
	f.Epoch = m.failoverEpoch
	f.FailoverTimeoutMs = m.settings.FailoverTimeoutMs
	if f.InProgress {
		f.StateMs = now - m.failoverStateChangeTime
		f.DeadlineMs = m.failoverDeadline(now, s.timing.ElectionTimeoutMs)
		if m.promoted != nil {
			f.Promoted = m.promoted.name
		}
		f.Coordinated = m.has(object.CoordFailover)
		if m.pauseUntil != 0 {
			f.PausedMs = now - m.pausedAt
		}
	}
	if next := failover.RetryAt(m.failoverStartTime, m.settings.FailoverTimeoutMs) - now; next > 0 && !f.InProgress {
		f.NextAttemptMs = next
	}

	if a := s.opts.Accel; m.electionAt != 0 && !f.InProgress {
		// The same wait as the election ladder's (startFailoverIfNeeded).
		_, lowerDown := election.Rank(s.myID, peers)
		if wait, until := election.Wait(now, m.electionAt, m.electionHoldUntil, a.ElectionStepMs, lowerDown); wait {
			f.LadderWaitMs, f.LadderHeld = until-now, now >= m.electionAt
		}
	}

	// TILT.
	if s.tilt {
		e.Tilt = explain.TiltView{On: true, ForMs: now - s.tiltStart, EndsMs: max(0, s.tiltStart+s.timing.TiltPeriodMs-now)}
	}

	// Replicas.
	cands, limits := m.replicaCandidates(now, &s.timing)
	best, bestErr := failover.Select(cands, limits)
	for _, c := range cands {
		rule := failover.Exclude(c, limits)
		e.Replicas = append(e.Replicas, explain.ReplicaView{Name: c.ID, Eligible: rule == failover.Eligible, Rule: string(rule),
			Reason: explain.ExclusionReason(rule), Best: bestErr == nil && c.ID == best.ID, Priority: c.Priority, Offset: c.ReplOffset})
	}

	for _, r := range m.sortedReplicas() {
		if st := &r.rejoin; st.at != 0 {
			e.Conversions = append(e.Conversions, explain.ConversionView{Name: r.name, Reporting: r.returning(),
				ReportedMs: now - r.roleReportedTime, Branch: string(st.verdict.Branch), Why: st.verdict.Why,
				DecidedMs: now - st.at, Converted: st.converted})
		}
	}

	e.LastFailover = timelineView(m.lastTimeline)
	e.Current = timelineView(m.timeline)
	explain.Decide(&e)
	return e, nil
}

// failoverDeadline is the time left at now, in ms, before m's failover state
// times out with an election timeout of election ms; 0 when it has no
// deadline.
func (m *master) failoverDeadline(now, election int64) int64 {
	d, ok := failover.Deadline(m.failoverState, m.failoverStartTime, m.failoverStateChangeTime, m.timeouts(election))
	if !ok {
		return 0
	}
	return max(0, d-now)
}
