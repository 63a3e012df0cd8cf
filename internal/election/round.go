package election

import "strings"

// This file is one step of a failover's election as the candidate runs
// it: the epoch it counts, its own vote and the tally (tally.go).

// Step is the outcome of one election step (Elect).
type Step struct {
	// Vote is this Sentinel's vote state for the master afterwards.
	Vote Vote
	// Voted is true when the step cast this Sentinel's own vote (to
	// persist and announce with +vote-for-leader, as any vote).
	Voted bool
	// Epoch is the epoch whose votes the step counted: the current.
	Epoch uint64
	// Winner is the elected leader, "" when nobody has the votes
	// Required.
	Winner string
}

// Won reports whether self is the Winner (run ids compared without
// regard to case): self then goes on with its failover in Epoch.
func (s Step) Won(self string) bool {
	return s.Winner != "" && strings.EqualFold(s.Winner, self)
}

// Elect runs one step of the election of a master's leader by self, a
// candidate whose vote state for the master is v, with the peers as it
// sees them and a leader needing the votes Required by voters and
// quorum. It counts one epoch, v's current one: the peers' votes of it
// (PeerVotes), then self's own vote, granted in it (Grant) to the
// leading candidate, or to self when no peer voted in it yet; a vote of
// self's already cast in it stays as it is. Step.Won tells whether self
// was elected, in Step.Epoch.
//
// Every vote counted is of that one epoch: the peers are asked in the
// current epoch (IS-MASTER-DOWN-BY-ADDR carries it) and vote in it, and
// the own vote is cast in it. A leader is thus elected by an absolute
// majority of votes of one epoch; as every Sentinel votes at most once
// per epoch for a master, one epoch elects at most one leader of a
// master. The winner goes on with that epoch as its failover's: the
// config epoch it announces once its replica is promoted, which may be
// newer than the epoch it started the failover in.
//
// Redis 7.0's sentinelGetLeader counts the peers' votes of the current
// epoch with its own vote of the failover's epoch: once other elections
// moved the current epoch on, a candidate adds up votes of two epochs
// and can win with a majority of neither, while its vote of the current
// epoch is still free to elect another leader there (chaos seeds 7495
// and 8923 of the 5-Sentinel fleet: a leader with the votes of 2 of 5).
// Counting only the failover's epoch is safe but not live: the peers'
// votes are cast in the current epoch, so a Sentinel whose epoch moved
// on (when many masters fail at once, every election started raises it)
// could never be elected. Counting the current epoch keeps Redis's
// liveness: the same peers' votes count, and only the own vote is cast
// anew in each epoch.
func Elect(v Vote, peers []Peer, self string, voters, quorum int) Step {
	t := PeerVotes(peers, v.CurrentEpoch)
	next, _, voted := Grant(v, v.CurrentEpoch, t.Candidate(self))
	t.AddOwnVote(next.Leader, next.LeaderEpoch)
	return Step{Vote: next, Voted: voted, Epoch: v.CurrentEpoch, Winner: t.Winner(voters, quorum)}
}
