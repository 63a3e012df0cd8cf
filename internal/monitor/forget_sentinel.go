package monitor

// This file forgets the known Sentinels of a master that are never heard
// from again (go-sentinel's `sentinel forget-sentinel-after`, issue 21):
// a Sentinel restarted with a new run id (a pod without a persistent
// volume) leaves its old entry behind, and in Redis every such entry
// raises the majority a failover needs until none can be authorised.
//
// Forgetting is allowed only while the master has a voters floor
// (`sentinel voters`), so that a Sentinel cut off with a minority, which
// forgets the Sentinels it no longer hears, never lowers its own majority
// below a majority of the fleet (election.Voters, and the safety argument
// in internal/election/voters.go). Without the floor the directive is
// inert, and `go-sentinel check` says so.

import (
	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// forgetSentinels forgets m's known Sentinels that election.Forget makes
// due at now: each one is announced (-sentinel, with Redis's instance
// details), its links are released (closed unless another master's entry
// of the same Sentinel still uses them) and the config is persisted. A
// forgotten Sentinel that speaks again is added back by its next hello
// (+sentinel).
func (s *Sentinel) forgetSentinels(m *master, now int64) {
	after := m.settings.ForgetSentinelAfterMs
	if after <= 0 || m.settings.Voters <= 0 || len(m.sentinels) == 0 {
		return
	}
	forgot := false
	for _, si := range m.sortedSentinels() {
		rule := election.Forget{
			After:              after,
			Floor:              m.settings.Voters,
			FailoverInProgress: m.has(object.FailoverInProgress),
			Tilt:               s.tilt,
			LastHeard:          lastHeard(si),
		}
		if !rule.Due(now) {
			s.deadline(rule.LastHeard + after + 1)
			continue
		}
		s.event(event.LevelNotice, event.SentinelForgotten, si, "")
		s.dropSentinel(m, si)
		forgot = true
	}
	if forgot {
		s.out.persistSoon("forget sentinel")
	}
}

// lastHeard is the last time the Sentinel si was heard from: its last
// hello, its last valid PING reply, or the creation of the entry (both
// start then), whichever is latest.
func lastHeard(si *instance) int64 {
	return max(si.lastHelloTime, si.link.lastAvailTime)
}
