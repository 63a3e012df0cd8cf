// Package election holds the rules of a Sentinel leader election: which
// Sentinels are usable and which can vote, how a vote is granted, how the
// votes are counted, how many a leader needs (an absolute majority of the
// known Sentinels, or of the operator's voters floor when it is larger,
// and at least the master's quorum), when a known Sentinel may be
// forgotten (voters.go), the staggered start
// of an election by run-id rank, and the SENTINEL CKQUORUM verdict. It is
// a pure leaf the core uses: it imports only the standard library, keeps
// no state of its own and never reads a clock.
//
// Times and durations are Unix milliseconds and milliseconds, as in the
// core.
package election

import "sort"

// Tally counts votes per candidate run id. The zero value is empty and
// ready to use; PeerVotes starts the tally of one epoch's election.
type Tally struct {
	counts map[string]int
	// epoch is the epoch PeerVotes counted, the one AddOwnVote counts
	// in.
	epoch uint64
}

// Add counts one vote for runID and returns its votes so far.
func (t *Tally) Add(runID string) int {
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	t.counts[runID]++
	return t.counts[runID]
}

// AddVote counts a vote for leader cast in leaderEpoch when it is a vote
// of epoch: a vote for nobody ("") or one of another epoch is not
// counted. It reports whether the vote was counted.
func (t *Tally) AddVote(leader string, leaderEpoch, epoch uint64) bool {
	if leader == "" || leaderEpoch != epoch {
		return false
	}
	t.Add(leader)
	return true
}

// PeerVotes starts the tally of an election in epoch: the votes the peers
// last reported for epoch. A Sentinel adds its own vote with AddOwnVote,
// counted in the same epoch, so every vote of the tally is of epoch.
//
// A failover's election is counted in the current epoch (Elect): the
// epoch the peers' votes are asked and cast in, however far other
// masters' elections moved it past the failover's own.
func PeerVotes(peers []Peer, epoch uint64) Tally {
	t := Tally{epoch: epoch}
	for _, p := range peers {
		t.AddVote(p.Leader, p.LeaderEpoch, epoch)
	}
	return t
}

// AddOwnVote counts this Sentinel's own vote for leader, cast in
// leaderEpoch, when it is a vote of the tally's epoch (AddVote). It
// reports whether the vote was counted.
func (t *Tally) AddOwnVote(leader string, leaderEpoch uint64) bool {
	return t.AddVote(leader, leaderEpoch, t.epoch)
}

// Votes returns how many votes runID has.
func (t *Tally) Votes(runID string) int { return t.counts[runID] }

// Leading returns the candidate with the most votes and its count, or ""
// when nobody got a vote. Ties go to the smallest run id so that the
// result does not depend on map order (Redis leaves ties unspecified; a
// tie can never produce two leaders because a winner needs a majority).
func (t *Tally) Leading() (string, int) {
	ids := make([]string, 0, len(t.counts))
	for id := range t.counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	best, max := "", 0
	for _, id := range ids {
		if t.counts[id] > max {
			best, max = id, t.counts[id]
		}
	}
	return best, max
}

// Candidate returns whom a Sentinel running an election votes for: the
// leading candidate, or self when nobody got a vote yet.
func (t *Tally) Candidate(self string) string {
	if id, _ := t.Leading(); id != "" {
		return id
	}
	return self
}

// Majority is the absolute majority of voters: more than half of them.
func Majority(voters int) int { return voters/2 + 1 }

// Required is the number of votes a leader needs: an absolute majority of
// voters (all known Sentinels including this one) and at least quorum.
func Required(voters, quorum int) int {
	return max(Majority(voters), quorum)
}

// Winner returns the elected leader given the tally, or "" if the leading
// candidate lacks the votes Required.
func (t *Tally) Winner(voters, quorum int) string {
	id, n := t.Leading()
	if id == "" || n < Required(voters, quorum) {
		return ""
	}
	return id
}
