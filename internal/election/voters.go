package election

// This file is the voters floor and the rule that forgets a known
// Sentinel (go-sentinel's extensions `sentinel voters` and `sentinel
// forget-sentinel-after`, issue 21).
//
// Redis counts a leader's majority over the Sentinels it knows, this one
// included. A Sentinel restarted with a new run id leaves its old entry
// behind forever, and every stale entry raises the majority until no
// failover can be authorised. Forgetting entries cures that, but alone it
// is unsafe: a Sentinel cut off with a minority would forget the others
// and lower its own majority until the minority authorises a failover.
// So forgetting is allowed only with a floor: the operator states how
// many Sentinels monitor the master (voters), and the majority is never
// counted over fewer. Votes come only from Sentinels that run, so with a
// floor at least the number that really run, a leader's votes are a
// majority of the real fleet whatever was forgotten.

// Voters is the number of Sentinels a leader's majority is counted over:
// known (the known Sentinels, this one included) or floor (the operator's
// `sentinel voters`), whichever is larger. A floor of 0 is none, Redis's
// count.
func Voters(known, floor int) int { return max(known, floor) }

// RequiredWithFloor is the number of votes a leader needs when known
// Sentinels (this one included) are known and the floor is floor: an
// absolute majority of Voters and at least quorum.
func RequiredWithFloor(known, floor, quorum int) int {
	return Required(Voters(known, floor), quorum)
}

// Forget is what the rule that forgets a known Sentinel entry looks at.
// Times are Unix milliseconds, durations milliseconds.
type Forget struct {
	// After is forget-sentinel-after; 0 never forgets.
	After int64
	// Floor is the master's voters; 0 (no floor) never forgets.
	Floor int
	// FailoverInProgress is true while a failover of the master runs
	// here (its election included).
	FailoverInProgress bool
	// Tilt is true while this Sentinel is in TILT.
	Tilt bool
	// LastHeard is the last time the entry was heard from: its last
	// hello, its last valid PING reply, or when the entry was created,
	// whichever is latest.
	LastHeard int64
}

// Due reports whether the entry is forgotten at now: forgetting is on
// (After and Floor both set), no failover of the master is in progress,
// this Sentinel is not in TILT, and the entry was not heard from for
// longer than After.
func (f Forget) Due(now int64) bool {
	if f.After <= 0 || f.Floor <= 0 || f.FailoverInProgress || f.Tilt {
		return false
	}
	return now-f.LastHeard > f.After
}
