package monitor

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Stage is how far along the failure pipeline a master is, as one
// Sentinel sees it.
type Stage string

// The stages, in pipeline order.
const (
	StageOK       Stage = "ok"       // the master answers
	StageSDown    Stage = "sdown"    // subjectively down, not (yet) objectively
	StageODown    Stage = "odown"    // objectively down, no failover running here
	StageFailover Stage = "failover" // this Sentinel runs a failover
)

// Explanation says where a master stands in the SDOWN → ODOWN → vote →
// failover pipeline, as this Sentinel sees it, and why it is not further
// along (SENTINEL EXPLAIN). Every duration is in milliseconds, measured
// back from (or, for deadlines, forward from) the moment it was made.
type Explanation struct {
	Master string `json:"master"`
	IP     string `json:"ip"`
	Port   int    `json:"port"`
	Stage  Stage  `json:"stage"`
	// Why lists, most important first, the reasons the master is not
	// further along the pipeline, one sentence each.
	Why []string `json:"why"`

	Detection    DetectionView  `json:"detection"`
	Agreement    AgreementView  `json:"agreement"`
	Election     ElectionView   `json:"election"`
	Failover     FailoverView   `json:"failover"`
	Tilt         TiltView       `json:"tilt"`
	Replicas     []ReplicaView  `json:"replicas"`
	LastFailover *TimelineView  `json:"last_failover,omitempty"`
	Current      *TimelineView  `json:"current_failover,omitempty"`
	Sentinels    []SentinelView `json:"sentinels"`
	// Proxy is the master-following proxy's state; nil without one.
	Proxy *ProxyView `json:"proxy,omitempty"`
}

// ProxyView is what EXPLAIN shows of a master's proxy.
type ProxyView struct {
	Listen     []settings.Addr `json:"listen"`
	Forwarding bool            `json:"forwarding"`
	// Reason is why it is fenced; "" while it forwards.
	Reason       string `json:"reason,omitempty"`
	FenceAfterMs int64  `json:"fence_after_ms"`
	HoldMs       int64  `json:"hold_ms"`
	Fencing      bool   `json:"fencing"`
	Protected    bool   `json:"protected"`
}

// DetectionView is this Sentinel's own view of the master's health.
type DetectionView struct {
	SDown        bool   `json:"sdown"`
	SDownMs      int64  `json:"sdown_ms"`
	ODown        bool   `json:"odown"`
	ODownMs      int64  `json:"odown_ms"`
	DownAfterMs  int64  `json:"down_after_ms"`
	LinkUp       bool   `json:"link_up"`
	LastValidMs  int64  `json:"last_valid_reply_ms"`
	UnansweredMs int64  `json:"unanswered_ms"` // since the oldest unanswered PING or lost link; 0 if none
	RoleReported string `json:"role_reported"`
}

// AgreementView is the quorum and majority arithmetic for the master.
type AgreementView struct {
	Quorum      int `json:"quorum"`
	Voters      int `json:"voters"`                 // known Sentinels including this one
	VotersFloor int `json:"voters_floor,omitempty"` // `sentinel voters` (0: none); the majority is counted over it when above Voters
	Majority    int `json:"majority"`
	DownReports int `json:"down_reports"` // including this Sentinel's own, when SDOWN
	Reachable   int `json:"reachable"`    // Sentinels that can vote (election.Reachable): this one and the peers with a live link, not SDOWN
}

// counted is the number of Sentinels the majority is counted over: the
// known ones or the voters floor, whichever is larger.
func (ag AgreementView) counted() int { return election.Voters(ag.Voters, ag.VotersFloor) }

// ElectionView is the epoch and vote state.
type ElectionView struct {
	CurrentEpoch uint64 `json:"current_epoch"`
	ConfigEpoch  uint64 `json:"config_epoch"`
	LeaderEpoch  uint64 `json:"leader_epoch"`
	VotedFor     string `json:"voted_for"` // this Sentinel's vote for the master's leader in LeaderEpoch
	VotesForMe   int    `json:"votes_for_me"`
	VotesNeeded  int    `json:"votes_needed"`
}

// FailoverView is this Sentinel's failover of the master.
type FailoverView struct {
	InProgress bool   `json:"in_progress"`
	State      string `json:"state"`
	Epoch      uint64 `json:"epoch"`
	StateMs    int64  `json:"state_ms"`    // time in the current state
	DeadlineMs int64  `json:"deadline_ms"` // time left before the state times out; 0 when none applies
	// NextAttemptMs is how long until this Sentinel may start a failover
	// of the master (Redis's 2 × failover-timeout rule); 0 when it may now.
	NextAttemptMs     int64  `json:"next_attempt_ms"`
	FailoverTimeoutMs int64  `json:"failover_timeout_ms"`
	Promoted          string `json:"promoted,omitempty"`
	// Coordinated is true for SENTINEL FAILOVER ... COORDINATED: the
	// master hands over through its own FAILOVER TO.
	Coordinated bool `json:"coordinated"`
	// PausedMs is how long this Sentinel has kept the old master's writes
	// paused; 0 when it keeps none paused.
	PausedMs int64 `json:"paused_ms"`
}

// TiltView is the TILT state of this Sentinel.
type TiltView struct {
	On     bool  `json:"on"`
	ForMs  int64 `json:"for_ms"`
	EndsMs int64 `json:"ends_ms"` // time left in TILT
}

// ReplicaView is one replica and whether it may be promoted.
type ReplicaView struct {
	Name     string `json:"name"`
	Eligible bool   `json:"eligible"`
	// Rule is the exclusion rule (failover.Exclusion) and Reason says it
	// in a sentence; both empty when eligible.
	Rule     string `json:"rule,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Best     bool   `json:"best"` // the one a failover would pick now
	Priority int    `json:"priority"`
	Offset   uint64 `json:"offset"`
}

// SentinelView is another Sentinel's opinion of the master, as last
// reported to this one.
type SentinelView struct {
	RunID       string `json:"runid"`
	IP          string `json:"ip"`
	Port        int    `json:"port"`
	LinkUp      bool   `json:"link_up"`
	SDown       bool   `json:"sdown"` // this Sentinel thinks that one is down
	ReportsDown bool   `json:"reports_down"`
	// About is the master address the opinion is about: always the
	// master's current one (answers about an earlier address are
	// dropped at a switch). Answered is false until that Sentinel
	// answered about it; ReplyAgeMs then counts from the switch or from
	// when this Sentinel learnt of it.
	About      string `json:"about"`
	Answered   bool   `json:"answered"`
	ReplyAgeMs int64  `json:"reply_age_ms"`
	VotedFor   string `json:"voted_for,omitempty"`
	VoteEpoch  uint64 `json:"vote_epoch,omitempty"`
}

// TimelineView is a failover timeline with phase durations.
type TimelineView struct {
	Led     bool        `json:"led"`
	Phases  []PhaseView `json:"phases"`
	TotalMs int64       `json:"total_ms"`
}

// PhaseView is one phase of a timeline.
type PhaseView struct {
	Phase      Phase  `json:"phase"`
	At         string `json:"at"` // RFC 3339 with milliseconds
	DurationMs int64  `json:"duration_ms"`
	Note       string `json:"note,omitempty"`
}

func timelineView(t Timeline) *TimelineView {
	if len(t.Marks) == 0 {
		return nil
	}
	v := &TimelineView{Led: t.Led, TotalMs: t.Total().Milliseconds()}
	d := t.Durations()
	for k, m := range t.Marks {
		v.Phases = append(v.Phases, PhaseView{Phase: m.Phase, At: m.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			DurationMs: d[k].Milliseconds(), Note: m.Note})
	}
	return v
}

// exclusionReasons says each failover.Exclusion in a sentence.
var exclusionReasons = map[failover.Exclusion]string{
	failover.ExcludedDown:           "it is itself down (SDOWN)",
	failover.ExcludedLinkDown:       "this Sentinel has no live connection to it",
	failover.ExcludedStalePing:      "it gave no valid PING reply in the last 5 ping periods",
	failover.ExcludedPriority0:      "its replica-priority is 0 (never promoted)",
	failover.ExcludedStaleInfo:      "its INFO is too old (over 5 ping periods while the master is down, else 3 INFO periods)",
	failover.ExcludedMasterLink:     "it has been disconnected from the master for longer than 10 × down-after (plus the time the master has been down)",
	failover.ExcludedFollowsReplica: "it follows another replica of this master: a failover this Sentinel has not heard of promoted that one",
}

// Explain reports where master name stands and why (SENTINEL EXPLAIN).
func (s *Sentinel) Explain(at time.Time, name string) (Explanation, error) {
	m, err := s.master(name)
	if err != nil {
		return Explanation{}, err
	}
	now := ms(at)
	l := m.link
	a := s.announceAddr(m.addr)
	e := Explanation{Master: m.name, IP: a.Host, Port: a.Port, Stage: StageOK}
	if len(m.settings.Proxy) > 0 {
		h := s.proxyHeadOf(m)
		e.Proxy = &ProxyView{Listen: m.settings.Proxy, Forwarding: !h.fenced, FenceAfterMs: h.fenceAfter, HoldMs: h.hold, Fencing: h.fencing, Protected: h.protected}
		if h.fenced {
			e.Proxy.Reason = h.reason
		}
	}

	// Detection.
	d := &e.Detection
	d.SDown, d.ODown = m.has(flagSDown), m.has(flagODown)
	if d.SDown {
		d.SDownMs = now - m.sdownSince
	}
	if d.ODown {
		d.ODownMs = now - m.odownSince
	}
	d.DownAfterMs = m.downAfter
	d.LinkUp = !l.disconnected(kindMaster)
	d.LastValidMs = now - l.lastAvailTime
	if l.actPingTime != 0 {
		d.UnansweredMs = now - l.actPingTime
	}
	d.RoleReported = m.roleReported

	// Agreement and the other Sentinels.
	ag := &e.Agreement
	ag.Quorum = m.settings.Quorum
	ag.Voters = len(m.sentinels) + 1
	ag.VotersFloor = m.settings.Voters
	ag.Majority = election.Majority(ag.counted())
	peers := m.peers()
	ag.Reachable = election.Reachable(peers)
	if d.SDown {
		ag.DownReports = 1
	}
	for k, si := range m.sortedSentinels() {
		p, sa := peers[k], s.announceAddr(si.addr)
		v := SentinelView{RunID: p.RunID, IP: sa.Host, Port: sa.Port, LinkUp: p.LinkUp,
			SDown: p.SDown, ReportsDown: p.ReportsDown, ReplyAgeMs: now - si.lastMasterDownReplyTime,
			About: s.announceAddr(m.addr).String(), Answered: si.answered,
			VotedFor: p.Leader, VoteEpoch: p.LeaderEpoch}
		if v.ReportsDown {
			ag.DownReports++
		}
		e.Sentinels = append(e.Sentinels, v)
	}

	// Election.
	el := &e.Election
	el.CurrentEpoch, el.ConfigEpoch, el.LeaderEpoch = s.currentEpoch, m.configEpoch, m.leaderEpoch
	el.VotedFor = m.leader
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
	f.InProgress = m.has(flagFailoverInProgress)
	f.State = m.failoverState.String()
	f.Epoch = m.failoverEpoch
	f.FailoverTimeoutMs = m.settings.FailoverTimeout.Milliseconds()
	if f.InProgress {
		f.StateMs = now - m.failoverStateChangeTime
		f.DeadlineMs = s.failoverDeadline(m, now)
		if m.promoted != nil {
			f.Promoted = m.promoted.name
		}
		f.Coordinated = m.has(flagCoordFailover)
		if m.pauseUntil != 0 {
			f.PausedMs = now - m.pausedAt
		}
	}
	if next := failover.RetryAt(m.failoverStartTime, m.settings.FailoverTimeout.Milliseconds()) - now; next > 0 && !f.InProgress {
		f.NextAttemptMs = next
	}

	// TILT.
	if s.tilt {
		e.Tilt = TiltView{On: true, ForMs: now - s.tiltStart, EndsMs: max(0, s.tiltStart+s.timing.TiltPeriod.Milliseconds()-now)}
	}

	// Replicas.
	cands, limits := s.replicaCandidates(m, now)
	best, bestErr := failover.Select(cands, limits)
	for _, c := range cands {
		rule := failover.Exclude(c, limits)
		e.Replicas = append(e.Replicas, ReplicaView{Name: c.ID, Eligible: rule == failover.Eligible, Rule: string(rule),
			Reason: exclusionReasons[rule], Best: bestErr == nil && c.ID == best.ID, Priority: c.Priority, Offset: c.ReplOffset})
	}

	e.LastFailover = timelineView(m.lastTimeline)
	e.Current = timelineView(m.timeline)
	e.Stage, e.Why = s.explainWhy(m, e)
	return e, nil
}

// failoverDeadline is the time left, in ms, before m's failover state
// times out; 0 when it has no deadline.
func (s *Sentinel) failoverDeadline(m *master, now int64) int64 {
	d, ok := failover.Deadline(m.failoverState, time.UnixMilli(m.failoverStartTime),
		time.UnixMilli(m.failoverStateChangeTime), s.timeouts(m))
	if !ok {
		return 0
	}
	return max(0, ms(d)-now)
}

// explainWhy decides the stage and the reasons the master is not
// further along.
func (s *Sentinel) explainWhy(m *master, e Explanation) (Stage, []string) {
	var why []string
	d, ag, f := e.Detection, e.Agreement, e.Failover
	if e.Tilt.On {
		why = append(why, fmt.Sprintf("this Sentinel is in TILT mode (entered %s ago: its timer was late or the clock jumped), so it decides nothing about instances and starts no failover for another %s",
			msText(e.Tilt.ForMs), msText(e.Tilt.EndsMs)))
	}
	stage := StageOK
	switch {
	case f.InProgress:
		stage = StageFailover
	case d.ODown:
		stage = StageODown
	case d.SDown:
		stage = StageSDown
	}
	if !d.SDown && !f.InProgress {
		if d.UnansweredMs > 0 {
			why = append(why, fmt.Sprintf("the master has not answered for %s, less than down-after-milliseconds (%s): not subjectively down yet",
				msText(d.UnansweredMs), msText(d.DownAfterMs)))
		} else {
			why = append(why, fmt.Sprintf("the master answers PING (last valid reply %s ago; down-after-milliseconds is %s)",
				msText(d.LastValidMs), msText(d.DownAfterMs)))
		}
		return stage, why
	}
	if !d.ODown && !f.InProgress {
		why = append(why, fmt.Sprintf("only %d of the %d Sentinels needed (quorum) report the master down", ag.DownReports, ag.Quorum))
		for _, sv := range e.Sentinels {
			switch {
			case !sv.LinkUp:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) cannot be asked: no live connection", short(sv.RunID), sv.IP, sv.Port))
			case !sv.Answered && !sv.ReportsDown:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) has not answered IS-MASTER-DOWN-BY-ADDR about %s yet", short(sv.RunID), sv.IP, sv.Port, sv.About))
			case !sv.ReportsDown && gossip.AnswerStale(sv.ReplyAgeMs, s.timing.AskPeriod.Milliseconds()):
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) has not answered IS-MASTER-DOWN-BY-ADDR for %s", short(sv.RunID), sv.IP, sv.Port, msText(sv.ReplyAgeMs)))
			case !sv.ReportsDown:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) answered %s ago that the master is not down", short(sv.RunID), sv.IP, sv.Port, msText(sv.ReplyAgeMs)))
			}
		}
		if ag.Quorum > ag.Voters {
			why = append(why, fmt.Sprintf("the quorum (%d) is larger than the number of Sentinels that know this master (%d): it can never be reached", ag.Quorum, ag.Voters))
		}
		return stage, why
	}
	if !f.InProgress {
		if f.NextAttemptMs > 0 {
			if m.leader != "" && !strings.EqualFold(m.leader, s.myID) && m.leaderEpoch == s.currentEpoch {
				why = append(why, fmt.Sprintf("this Sentinel voted for %s as leader in epoch %d; it waits %s (%d × failover-timeout after the vote) before it may try itself",
					short(m.leader), m.leaderEpoch, msText(f.NextAttemptMs), failover.RetryFactor))
			} else {
				why = append(why, fmt.Sprintf("a failover was attempted recently; the next may start in %s (%d × failover-timeout = %s after the previous start)",
					msText(f.NextAttemptMs), failover.RetryFactor, msText(failover.RetryAt(0, f.FailoverTimeoutMs))))
			}
		}
		if ag.Reachable < ag.Majority {
			why = append(why, fmt.Sprintf("only %d of %d Sentinels can vote; a failover needs a majority of %d votes (and at least the quorum, %d)",
				ag.Reachable, ag.counted(), ag.Majority, ag.Quorum))
		}
		s.explainReplicas(e, &why)
		return stage, why
	}
	switch m.failoverState {
	case failover.WaitStart:
		// An election step counts the current epoch's votes
		// (election.Elect), whatever epoch the failover started in.
		why = append(why, fmt.Sprintf("waiting to be elected leader of epoch %d: %d vote(s) for this Sentinel, %d needed (majority of %d Sentinels, at least the quorum %d); gives up in %s",
			e.Election.CurrentEpoch, e.Election.VotesForMe, e.Election.VotesNeeded, ag.counted(), ag.Quorum, msText(f.DeadlineMs)))
		if ag.Reachable < e.Election.VotesNeeded {
			why = append(why, fmt.Sprintf("only %d Sentinels can vote: the election cannot be won", ag.Reachable))
		}
	case failover.SelectSlave:
		s.explainReplicas(e, &why)
	case failover.SendSlaveofNoone:
		if f.Coordinated {
			why = append(why, fmt.Sprintf("coordinated: waiting for a live connection to the master to send it CLIENT PAUSE WRITE and FAILOVER TO %s; gives up in %s (less than 1s of failover-timeout left)", f.Promoted, msText(f.DeadlineMs)))
		} else {
			why = append(why, fmt.Sprintf("waiting for a live connection to %s to send SLAVEOF NO ONE; gives up in %s", f.Promoted, msText(f.DeadlineMs)))
		}
	case failover.WaitPromotion:
		if f.Coordinated {
			why = append(why, fmt.Sprintf("coordinated: the master was sent FAILOVER TO %s, its writes paused for %s so far; waiting for %s to report role master once it has every write; gives up in %s", f.Promoted, msText(f.PausedMs), f.Promoted, msText(f.DeadlineMs)))
		} else {
			why = append(why, fmt.Sprintf("SLAVEOF NO ONE sent to %s; waiting for its INFO to report role master; gives up in %s", f.Promoted, msText(f.DeadlineMs)))
			if f.PausedMs > 0 {
				why = append(why, fmt.Sprintf("the old master's writes are paused (for %s so far) so that it acknowledges none the promotion would throw away", msText(f.PausedMs)))
			}
		}
	case failover.ReconfSlaves:
		why = append(why, fmt.Sprintf("%s is promoted; pointing the other replicas at it (parallel-syncs %d); ends at the latest in %s", f.Promoted, m.settings.ParallelSyncs, msText(f.DeadlineMs)))
	}
	return stage, why
}

// explainReplicas adds why no replica can be promoted, when none can.
func (s *Sentinel) explainReplicas(e Explanation, why *[]string) {
	for _, r := range e.Replicas {
		if r.Eligible {
			return
		}
	}
	if len(e.Replicas) == 0 {
		*why = append(*why, "the master has no known replica to promote")
		return
	}
	*why = append(*why, "no replica can be promoted:")
	for _, r := range e.Replicas {
		*why = append(*why, fmt.Sprintf("replica %s: %s (%s)", r.Name, r.Reason, r.Rule))
	}
}

func short(runID string) string {
	if len(runID) > 8 {
		return runID[:8]
	}
	return runID
}

// msText renders milliseconds for a sentence: "850ms", "12.3s".
func msText(v int64) string {
	if v < 1000 {
		return fmt.Sprintf("%dms", v)
	}
	return fmt.Sprintf("%.1fs", float64(v)/1000)
}
