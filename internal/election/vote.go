package election

// Vote is the state the vote-granting rule reads and changes: this
// Sentinel's current epoch and its vote for one master's leader.
type Vote struct {
	// CurrentEpoch is this Sentinel's current epoch (one for all masters).
	CurrentEpoch uint64
	// Leader is whom this Sentinel last voted for as the master's
	// leader, "" when it never voted.
	Leader string
	// LeaderEpoch is the epoch of that vote.
	LeaderEpoch uint64
}

// Grant is Redis 7.0's sentinelVoteLeader: another Sentinel (or this one)
// asks for a vote for runID as the master's leader in epoch. A higher
// epoch is adopted first (epochRaised). Then the vote goes to runID when
// no vote was cast yet in epoch and epoch is not older than the current
// epoch (voted): at most one vote per epoch per master, for the first
// asker. next is the state afterwards; its Leader and LeaderEpoch are the
// vote to report, the new one or the earlier one.
func Grant(v Vote, epoch uint64, runID string) (next Vote, epochRaised, voted bool) {
	if epoch > v.CurrentEpoch {
		v.CurrentEpoch = epoch
		epochRaised = true
	}
	if v.LeaderEpoch < epoch && v.CurrentEpoch <= epoch {
		v.Leader = runID
		v.LeaderEpoch = v.CurrentEpoch
		voted = true
	}
	return v, epochRaised, voted
}
