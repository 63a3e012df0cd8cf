package monitor

// The core's state as the values of the election rules (internal/election).

import "github.com/go-sentinel/go-sentinel/internal/election"

// grant asks election.Grant whether this Sentinel votes for runID as m's
// leader in epoch; it changes nothing, vote applies the decision.
func (s *Sentinel) grant(m *master, epoch uint64, runID string) (next election.Vote, epochRaised, voted bool) {
	return election.Grant(election.Vote{CurrentEpoch: s.currentEpoch, Leader: m.leader, LeaderEpoch: m.leaderEpoch}, epoch, runID)
}

// peerOf describes the Sentinel si for the election rules.
func peerOf(si *instance) election.Peer {
	return election.Peer{
		RunID:       si.runID,
		LinkUp:      !si.link.disconnected(kindSentinel),
		SDown:       si.has(flagSDown),
		ODown:       si.has(flagODown),
		ReportsDown: si.has(flagMasterDown),
		Leader:      si.leader,
		LeaderEpoch: si.leaderEpoch,
	}
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
