// Package explain holds what SENTINEL EXPLAIN shows: the Explanation, the
// facts one Sentinel gathers about one master, and the pure rules that
// turn those facts into a stage and its reasons (Decide) and into text
// (Text). The core gathers the facts with the same leaf functions it
// decides with (election, failover, gossip); nothing here reads the core.
package explain

import (
	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/failover"
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

	Detection DetectionView `json:"detection"`
	Agreement AgreementView `json:"agreement"`
	Election  ElectionView  `json:"election"`
	Failover  FailoverView  `json:"failover"`
	Tilt      TiltView      `json:"tilt"`
	Replicas  []ReplicaView `json:"replicas"`
	// Conversions are the replicas that reported themselves a master
	// (a returning old master, one promoted by hand) and what this
	// Sentinel decided about each (failover.Convert), the last decision
	// first kept until the replica reports a master again.
	Conversions  []ConversionView `json:"conversions,omitempty"`
	LastFailover *TimelineView    `json:"last_failover,omitempty"`
	Current      *TimelineView    `json:"current_failover,omitempty"`
	Sentinels    []SentinelView   `json:"sentinels"`
	// Proxy is the master-following proxy's state; nil without one.
	Proxy *ProxyView `json:"proxy,omitempty"`
	// Reads is the read port's state (`proxy-replicas`); nil without one.
	Reads *ReadsView `json:"proxy_replicas,omitempty"`
}

// ReadsView is what EXPLAIN shows of a master's read port.
type ReadsView struct {
	Listen []settings.Addr `json:"listen"`
	// State is proxy-replicas-state, as SENTINEL MASTER shows it.
	State    string `json:"state"`
	MaxLagMs int64  `json:"max_lag_ms"`
	// Excluded are the replicas not served and why.
	Excluded []ReadExclusion `json:"excluded,omitempty"`
}

// ReadExclusion is a replica the read port does not serve.
type ReadExclusion struct {
	Addr settings.Addr `json:"addr"`
	Why  string        `json:"why"`
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

// Counted is the number of Sentinels the majority is counted over: the
// known ones or the voters floor, whichever is larger.
func (ag AgreementView) Counted() int { return election.Voters(ag.Voters, ag.VotersFloor) }

// ElectionView is the epoch and vote state.
type ElectionView struct {
	CurrentEpoch uint64 `json:"current_epoch"`
	ConfigEpoch  uint64 `json:"config_epoch"`
	LeaderEpoch  uint64 `json:"leader_epoch"`
	VotedFor     string `json:"voted_for"` // this Sentinel's vote for the master's leader in LeaderEpoch
	// VotedForOther: this Sentinel gave its vote in the current epoch to
	// another Sentinel (so it waits before it may try itself).
	VotedForOther bool `json:"-"`
	VotesForMe    int  `json:"votes_for_me"`
	// LeaseHoldMs is how long this Sentinel still holds back its votes
	// about the master, its own included, for the leases it granted
	// proxies on it (fence.VoteDeferred); 0 when it holds none back.
	LeaseHoldMs int64 `json:"lease_hold_ms,omitempty"`
	VotesNeeded int   `json:"votes_needed"`
}

// FailoverView is this Sentinel's failover of the master.
type FailoverView struct {
	InProgress bool   `json:"in_progress"`
	State      string `json:"state"`
	// Machine is State as the failover state machine's value, which
	// Decide reads.
	Machine failover.State `json:"-"`
	// ParallelSyncs is the master's parallel-syncs.
	ParallelSyncs int    `json:"-"`
	Epoch         uint64 `json:"epoch"`
	StateMs       int64  `json:"state_ms"`    // time in the current state
	DeadlineMs    int64  `json:"deadline_ms"` // time left before the state times out; 0 when none applies
	// NextAttemptMs is how long until this Sentinel may start a failover
	// of the master (Redis's 2 × failover-timeout rule); 0 when it may now.
	NextAttemptMs int64 `json:"next_attempt_ms"`
	// LadderWaitMs is how long this Sentinel still waits for its turn
	// on the election ladder (election.Wait) before it starts a
	// failover of the ODOWN master; 0 when it need not wait.
	LadderWaitMs int64 `json:"ladder_wait_ms,omitempty"`
	// LadderHeld: its own turn has come, but a Sentinel with a smaller
	// run id reports the master down, so this one holds back a step at a
	// time for it to lead.
	LadderHeld        bool   `json:"ladder_held,omitempty"`
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

// ConversionView is one replica's conversion back from reporting role
// master: the branch it took or waits in (failover.ConvertBranch: confirmed,
// confirming, waited, waiting, held), why, and when.
type ConversionView struct {
	Name string `json:"name"`
	// Reporting: its last INFO still reports role master, since
	// ReportedMs ago.
	Reporting  bool   `json:"reporting_master"`
	ReportedMs int64  `json:"reported_ms"`
	Branch     string `json:"branch"`
	Why        string `json:"why"`
	// DecidedMs is how long ago the decision was made.
	DecidedMs int64 `json:"decided_ms"`
	// Converted: the decision sent SLAVEOF (+convert-to-slave).
	Converted bool `json:"converted"`
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
	// Stale: its last answer is older than the ask rule allows
	// (gossip.AnswerStale), so it counts for nothing.
	Stale bool `json:"-"`
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
	Phase      string `json:"phase"` // the timeline's phase name (sdown, odown, try-failover, ...)
	At         string `json:"at"`    // RFC 3339 with milliseconds
	DurationMs int64  `json:"duration_ms"`
	Note       string `json:"note,omitempty"`
}
