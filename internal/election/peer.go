package election

// Peer is another Sentinel of a master, as this Sentinel sees it.
type Peer struct {
	// RunID is the peer's run id, as it announced it.
	RunID string
	// LinkUp is true while this Sentinel has a live command link to it.
	LinkUp bool
	// SDown and ODown are this Sentinel's opinion of the peer itself.
	// Only masters become ODOWN, so ODown is false for every Sentinel
	// the core describes; CKQUORUM still checks it as Redis does.
	SDown, ODown bool
	// ReportsDown is true when the peer's last IS-MASTER-DOWN-BY-ADDR
	// reply said the master is down.
	ReportsDown bool
	// Leader and LeaderEpoch are the peer's last reported vote: whom it
	// voted for as leader ("" for nobody) and in which epoch.
	Leader      string
	LeaderEpoch uint64
	// AskingVotes is true when the peer asked this Sentinel for a vote,
	// for any master, a moment ago (the core decides how long): it is
	// working through elections.
	AskingVotes bool
}

// Usable reports whether the peer counts for SENTINEL CKQUORUM: this
// Sentinel does not think it is down (neither SDOWN nor ODOWN). It is
// Redis 7.0's exact rule; the link state does not matter.
func (p Peer) Usable() bool { return !p.SDown && !p.ODown }

// CanVote reports whether the peer can take part in an election now: it
// is Usable and this Sentinel has a live link to it, so it can be asked
// for its vote.
func (p Peer) CanVote() bool { return p.Usable() && p.LinkUp }

// UsableCount is how many Sentinels are Usable: this one plus the
// usable peers.
func UsableCount(peers []Peer) int {
	n := 1
	for _, p := range peers {
		if p.Usable() {
			n++
		}
	}
	return n
}

// Reachable is how many Sentinels can vote now: this one plus the peers
// that CanVote.
func Reachable(peers []Peer) int {
	n := 1
	for _, p := range peers {
		if p.CanVote() {
			n++
		}
	}
	return n
}
