package election

import "strings"

// Rank is this Sentinel's place in the election ladder: how many peers
// that CanVote have a smaller run id than myID (compared without regard
// to case), and whether one of them reports the master down (it is about
// to ask for votes, so this Sentinel should hold back).
func Rank(myID string, peers []Peer) (rank int, lowerDown bool) {
	me := strings.ToLower(myID)
	for _, p := range peers {
		if p.CanVote() && strings.ToLower(p.RunID) < me {
			rank++
			lowerDown = lowerDown || p.ReportsDown
		}
	}
	return rank, lowerDown
}

// Ladder staggers the start of an election by rank so that the Sentinel
// with the smallest run id usually asks first and wins: the election may
// start at now + rank × step + jitter, and until holdUntil (at + rank ×
// hold) it gives way to a peer with a smaller run id that reports the
// master down (see Wait). The caller draws jitter, from 0 to its jitter
// setting, so that the random numbers stay the caller's.
func Ladder(now int64, rank int, step, hold, jitter int64) (at, holdUntil int64) {
	at = now + int64(rank)*step + jitter
	holdUntil = at + int64(rank)*hold
	return at, holdUntil
}

// Wait reports whether, at now, a Sentinel whose election ladder gave at
// and holdUntil must still wait before it starts the election, and until
// when: until at; then, before holdUntil and while a peer with a smaller
// run id reports the master down (lowerDown, from Rank), for one more
// step at a time, never past holdUntil.
func Wait(now, at, holdUntil, step int64, lowerDown bool) (wait bool, until int64) {
	if now < at {
		return true, at
	}
	if now < holdUntil && lowerDown {
		return true, min(holdUntil, now+step)
	}
	return false, 0
}

// LowerBusy reports whether a peer that CanVote, with a smaller run id
// than myID, reports the master down and is asking for votes
// (AskingVotes): it is working through a burst of elections, and will
// come to this master.
func LowerBusy(myID string, peers []Peer) bool {
	me := strings.ToLower(myID)
	for _, p := range peers {
		if p.CanVote() && strings.ToLower(p.RunID) < me && p.ReportsDown && p.AskingVotes {
			return true
		}
	}
	return false
}

// Extend lengthens a ladder's hold (holdUntil, from Ladder) while
// LowerBusy: when many masters fail at once, the Sentinel ahead asks for
// votes for each in turn, and a hold of rank × hold ran out before it
// reached them all; the ones behind then started elections of their own,
// each raising the epoch, and split the votes. The hold then lasts one
// step more at a time, never past at + maxHold.
func Extend(now, at, holdUntil, step, maxHold int64, lowerBusy bool) int64 {
	if !lowerBusy || now < at {
		return holdUntil
	}
	return max(holdUntil, min(now+step, at+maxHold))
}
