// Package failover holds the rules of a failover, with Redis Sentinel
// 7.0's semantics: the states a leader goes through and when each times
// out (state.go), which replica to promote and which are excluded
// (select.go), and how the other replicas are pointed at the promoted one
// and when that ends (reconf.go). It is a pure leaf the core
// (internal/monitor) uses: the caller describes each replica with ages
// measured against the same now, and carries out the decisions.
package failover

import (
	"errors"
	"sort"
	"strings"
)

// ErrNoGoodReplica means no replica qualifies for promotion.
var ErrNoGoodReplica = errors.New("no suitable replica to promote")

// Candidate is what selection needs to know about one replica.
type Candidate struct {
	// ID identifies the candidate to the caller (its name).
	ID    string
	RunID string
	// Down is true when the replica is SDOWN or ODOWN.
	Down         bool
	Disconnected bool
	// Priority is the replica's replica-priority; 0 never promotes.
	Priority   int
	ReplOffset uint64
	// SinceOKPing is the time since the last valid PING reply, in ms.
	SinceOKPing int64
	// SinceInfo is the time since the last INFO reply, in ms.
	SinceInfo int64
	// MasterLinkDown is how long the replica reports its link to the
	// master has been down (master_link_down_since_seconds), in ms.
	MasterLinkDown int64
	// MasterLinkUp is true when the replica reports its link to the
	// master up (master_link_status:up): it follows the master now.
	MasterLinkUp bool
	// NeverLinked is true when the replica reports its link down and
	// master_link_down_since_seconds:-1: it has not completed a sync
	// since it became a replica (restarted, or just turned from a
	// master), so it holds nothing the master acknowledged since.
	NeverLinked bool
	// FollowsReplica is true when the replica reports as its master
	// another replica of the same master: a failover this Sentinel does
	// not know of yet promoted that one and pointed this one at it.
	FollowsReplica bool
}

// Limits are the freshness thresholds selection applies, in ms.
type Limits struct {
	// MaxSinceOKPing excludes replicas whose last valid PING reply is
	// older (5 × PING-PERIOD in Redis).
	MaxSinceOKPing int64
	// MaxSinceInfo excludes replicas whose INFO is older (5 × PING-PERIOD
	// while the master is SDOWN, else 3 × INFO-PERIOD).
	MaxSinceInfo int64
	// MaxMasterLinkDown excludes replicas disconnected from the master for
	// longer (down-after × 10, plus the time the master has been SDOWN).
	MaxMasterLinkDown int64
}

// Exclusion is the rule that keeps a replica from being promoted; the
// zero value means none does.
type Exclusion string

// The exclusion rules, in the order Redis checks them.
const (
	Eligible           Exclusion = ""
	ExcludedDown       Exclusion = "down"             // SDOWN or ODOWN
	ExcludedLinkDown   Exclusion = "disconnected"     // no live link to it
	ExcludedStalePing  Exclusion = "stale-ping"       // no valid PING reply recently
	ExcludedPriority0  Exclusion = "priority-0"       // replica-priority 0
	ExcludedStaleInfo  Exclusion = "stale-info"       // no INFO reply recently
	ExcludedMasterLink Exclusion = "master-link-down" // away from the master too long
	// ExcludedFollowsReplica is go-sentinel's rule, checked last: the
	// replica follows another replica of the master, promoted by a
	// failover in an epoch this Sentinel has not heard of (it is cut
	// off from that side). Promoting it would start a second master in
	// a second history and throw away the first one's writes.
	ExcludedFollowsReplica Exclusion = "follows-replica"
)

// Exclude returns the first rule, in Redis's order, that keeps c from
// being promoted under l, or Eligible.
func Exclude(c Candidate, l Limits) Exclusion {
	switch {
	case c.Down:
		return ExcludedDown
	case c.Disconnected:
		return ExcludedLinkDown
	case c.SinceOKPing > l.MaxSinceOKPing:
		return ExcludedStalePing
	case c.Priority == 0:
		return ExcludedPriority0
	case c.SinceInfo > l.MaxSinceInfo:
		return ExcludedStaleInfo
	case c.MasterLinkDown > l.MaxMasterLinkDown:
		return ExcludedMasterLink
	case c.FollowsReplica:
		return ExcludedFollowsReplica
	}
	return Eligible
}

// Better reports whether a should be promoted rather than b: lower
// priority first, then higher replication offset, then the smaller run id
// (case-insensitive), a replica without a run id last.
func Better(a, b Candidate) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if a.ReplOffset != b.ReplOffset {
		return a.ReplOffset > b.ReplOffset
	}
	switch {
	case a.RunID == "" && b.RunID == "":
		return false
	case a.RunID == "":
		return false
	case b.RunID == "":
		return true
	}
	return strings.ToLower(a.RunID) < strings.ToLower(b.RunID)
}

// Select returns the best eligible candidate. Two of go-sentinel's rules
// pass candidates over while a better-placed one is eligible (Redis 7.0
// only excludes a link down for longer than MaxMasterLinkDown):
//   - while some eligible candidate reports its link to the master up,
//     those that report it down: one that is not following the master now
//     (still in its first sync, or just pointed at a new master) may lack
//     writes the master acknowledged, and promoting it would throw them
//     away;
//   - while some eligible candidate has synced with the master, those
//     that never did since they became replicas (NeverLinked): Redis
//     reports them with a link down for -1 s, which its rule takes for
//     the freshest of all.
//
// When the master is down every replica reports its link down, and
// Redis's order decides among those that synced.
func Select(cands []Candidate, l Limits) (Candidate, error) {
	var ok []Candidate
	for _, c := range cands {
		if Exclude(c, l) == Eligible {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return Candidate{}, ErrNoGoodReplica
	}
	ok = prefer(ok, func(c Candidate) bool { return c.MasterLinkUp })
	ok = prefer(ok, func(c Candidate) bool { return !c.NeverLinked })
	sort.SliceStable(ok, func(i, j int) bool { return Better(ok[i], ok[j]) })
	return ok[0], nil
}

// prefer returns the candidates for which good holds, or all of them when
// it holds for none.
func prefer(cands []Candidate, good func(Candidate) bool) []Candidate {
	var out []Candidate
	for _, c := range cands {
		if good(c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cands
	}
	return out
}
