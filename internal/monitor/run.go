package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// failoverRun is the state of one failover of a master, from its start
// (startFailover, SENTINEL FAILOVER) to its end (the switch, an abort or
// SENTINEL RESET). Its zero value is no failover: every field is zero
// while none runs, and a run ends only by dropRun, which drops it whole.
//
// What outlives a run stays in master: the vote (votedAt, and the
// instance's leader and leaderEpoch), configEpoch, addrGen, lastTimeline,
// failoverEpoch (reported as the epoch of the last failover this
// Sentinel started), failoverStartTime and failoverDelayLogged (the
// retry delay after an abort), the election ladder that runs before a
// failover starts (electionAt, electionHoldUntil) and
// epochExhaustedLogged.
type failoverRun struct {
	// failoverState is the state the run is in; failover.None when no
	// failover runs.
	failoverState failover.State
	// failoverStateChangeTime is when the run entered failoverState.
	failoverStateChangeTime int64
	// promoted is the replica the run selected to promote (it carries
	// object.Promoted); nil before select_slave.
	promoted *instance
	// pauseUntil is when the pause of the master's writes this Sentinel
	// sent ends (handover.go); 0 when it sent none or lifted it.
	pauseUntil int64
	// pausedAt is when that pause was sent; meaningful only while
	// pauseUntil is not 0.
	pausedAt int64
	// demoted: this Sentinel demoted the old master when the promotion
	// was confirmed; +convert-to-slave is emitted at the switch.
	demoted bool
	// timeline records the failover in progress (timeline.go); a config
	// hop (adoptConfig) begins and ends one at once.
	timeline event.Timeline
}

// dropRun ends m's failover run, whatever state it reached: the failover
// flags go, the replica it promoted loses object.Promoted and every per-run
// field returns to zero. It is the one way a run ends (abortFailover, and
// resetMaster at the switch and at SENTINEL RESET); it sends nothing and
// emits nothing, which is the callers' part.
func (m *master) dropRun() {
	m.flags &^= object.FailoverInProgress | object.ForceFailover | object.CoordFailover
	if m.promoted != nil {
		m.promoted.flags &^= object.Promoted
	}
	m.failoverRun = failoverRun{}
}
