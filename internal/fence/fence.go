// Package fence holds the rules of the master-following proxy: when the
// proxy of a master may forward client connections to it (Reason), and
// the lease that makes two proxies of one fleet never forward to two
// masters: when a Sentinel grants a peer's proxy a lease (Grant), how
// long a grant binds its grantor (Lapse), and when a vote must wait for
// the grants given before it (VoteDeferred). The core gathers the facts
// and announces each change of the verdict with +proxy-fenced or
// -proxy-fenced; EXPLAIN and SENTINEL MASTER show the verdict the core
// last announced.
package fence

import (
	"fmt"
	"slices"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Facts are what one Sentinel knows, at one instant, that decides whether
// its proxy of one master may forward. Times are Unix ms, durations ms.
type Facts struct {
	// Self are this Sentinel's facts about the master, as it would
	// grant a peer a lease on it at its own configuration epoch: its
	// proxy counts its own grant as one of the majority.
	Self GrantFacts

	// NoFencing is proxy-fencing no: only this Sentinel's own view of the
	// master applies, no lease. Tilt: this Sentinel is in TILT, when
	// that view is not trusted.
	NoFencing, Tilt bool

	// Voters is the number of Sentinels a majority is counted over
	// (election.Voters: the known ones, this one included, or the voters
	// floor when larger).
	Voters int
	// FenceAfter is proxy-fence-after: the length of the leases this
	// Sentinel asks its peers for.
	FenceAfter int64
	// Peers are the master's other Sentinels.
	Peers []Peer
}

// Peer is what the rule needs of another Sentinel of the master: until
// when its lease on the master, at the configuration epoch this Sentinel
// holds, runs on this Sentinel's clock (the request's send time plus the
// lease's length; 0: none). redis-sentinel never grants one.
type Peer struct {
	GrantedUntil int64
}

// Reason returns why the proxy must not forward, or "" when it may: the
// master is neither SDOWN nor ODOWN for this Sentinel, no failover of it
// is in progress, it does not report itself a replica, and, unless
// proxy-fencing is off (then only: this Sentinel is not in TILT, its own
// view being all there is), this Sentinel grants
// itself a lease on the master by the rule it grants peers (Grant) and
// holds unexpired leases from enough peers that, itself counted, they
// make a majority of the master's Sentinels (or of the voters floor when
// it is larger, as an election counts).
//
// No two proxies forward to two masters: a leader promotes only with a
// majority of votes, every Sentinel casts its vote only once the leases
// it granted on the master have lapsed (VoteDeferred) and grants none on
// the old configuration after it, and any two majorities share a
// Sentinel (docs/proxy.md gives the argument and its assumptions).
func Reason(f Facts) string {
	s := &f.Self
	switch {
	case s.FailoverInProgress:
		return "a failover is in progress"
	case s.ODown:
		return "the master is objectively down"
	case s.SDown:
		return "the master is subjectively down"
	case s.ReportsReplica:
		return "the master reports itself a replica"
	}
	if f.NoFencing {
		if f.Tilt {
			return "this Sentinel is in TILT"
		}
		return ""
	}
	if faultNoFence {
		// The nofence fault of the histfaults test build, never shipped
		// (fault_histfaults.go): the lease is ignored, so the proxy keeps
		// forwarding to a master cut off from the other Sentinels.
		return ""
	}
	if why := Grant(f.Self); why != "" {
		return why
	}
	if held, need := Held(f); held < need {
		return fmt.Sprintf("%d of the %d Sentinels of the master granted a lease within %s %d ms (this one counted), %d needed",
			held, f.Voters, settings.OptionProxyFenceAfter, f.FenceAfter, need)
	}
	return ""
}

// Held counts the Sentinels that hold the master's configuration for
// the lease at f.Self.Now: this one and the peers whose leases have not
// lapsed (less HolderMargin); need is a majority of f.Voters.
func Held(f Facts) (held, need int) {
	held = 1
	for _, p := range f.Peers {
		if p.GrantedUntil-HolderMargin > f.Self.Now {
			held++
		}
	}
	return held, election.Majority(f.Voters)
}

// Confirmed returns why this Sentinel and leases from its peers do not
// make a majority holding the master's configuration at f.Self.Now, or
// "" when they do: it grants itself a lease by the rule it grants peers
// (Grant), and the leases it holds make a majority (Held). While they
// do, no replica can have been promoted in a newer epoch (the argument
// of Reason), which is what lets a Sentinel convert a returning master
// at once (failover.Convert). f.FenceAfter is the leases' length.
func Confirmed(f Facts) string {
	if why := Grant(f.Self); why != "" {
		return why
	}
	if held, need := Held(f); held < need {
		return fmt.Sprintf("%d of the %d Sentinels of the master hold a lease of %d ms on its configuration (this one counted), %d needed",
			held, f.Voters, f.FenceAfter, need)
	}
	return ""
}

// HolderMargin is how long before a lease lapses its holder stops
// counting it, in ms: the proxy adapter checks ForwardUntil every 10 ms
// with its own clock, and a connection it cuts may have a request in
// flight; 100 ms covers both with room to spare.
const HolderMargin = 100

// ForwardUntil is when the leases that let the proxy forward at f.Now no
// longer make a majority, less HolderMargin: the proxy adapter stops
// forwarding then by itself, whether or not the core has run since, so
// a stalled loop cannot stretch a lease. It is 0 (no bound) when the
// proxy needs no lease: proxy-fencing no, or this Sentinel alone is a
// majority. Call it only when Reason(f) is "".
func ForwardUntil(f Facts) int64 {
	need := election.Majority(f.Voters) - 1 // this Sentinel counts itself
	if f.NoFencing || need <= 0 {
		return 0
	}
	if faultNoFence {
		// The nofence fault (see Reason): no lease bounds the
		// forwarding, so the adapter's own clock check never stops it.
		return 0
	}
	until := make([]int64, 0, len(f.Peers))
	for _, p := range f.Peers {
		until = append(until, p.GrantedUntil)
	}
	if len(until) < need {
		return f.Self.Now
	}
	slices.Sort(until)
	return until[len(until)-need] - HolderMargin
}
