package monitor

import "github.com/go-sentinel/go-sentinel/internal/election"

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
