// Package fence holds the rule of the master-following proxy: when the
// proxy of a master may forward client connections to it. The core
// gathers the facts at every tick (Facts) and announces each change of
// the verdict with +proxy-fenced or -proxy-fenced; EXPLAIN and SENTINEL
// MASTER show the verdict the core last announced.
package fence

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Facts are what one Sentinel knows, at one instant, that decides whether
// its proxy of one master may forward. Times are Unix ms, durations ms.
type Facts struct {
	Now int64

	// Tilt: this Sentinel is in TILT.
	Tilt bool
	// FailoverInProgress, ODown, SDown: the master's flags as this
	// Sentinel holds them.
	FailoverInProgress, ODown, SDown bool
	// ReportsReplica: the master's last INFO reported role slave.
	ReportsReplica bool

	// NoFencing is proxy-fencing no: only the checks above apply.
	NoFencing bool

	// VotedAt is when this Sentinel last gave its vote to another one to
	// fail the master over (0: never since it started), Leader and
	// LeaderEpoch that vote; ConfigEpoch is the master's configuration
	// epoch and FailoverTimeout its failover-timeout.
	VotedAt         int64
	Leader          string
	LeaderEpoch     uint64
	ConfigEpoch     uint64
	FailoverTimeout int64

	// Voters is the number of Sentinels a majority is counted over
	// (election.Voters: the known ones, this one included, or the voters
	// floor when larger).
	Voters int
	// FenceAfter is proxy-fence-after, PublishPeriod the hello period.
	FenceAfter, PublishPeriod int64
	// Peers are the master's other Sentinels.
	Peers []Peer
}

// Peer is what the rule needs of another Sentinel of the master.
type Peer struct {
	// Answered: this Sentinel has measured a round trip to it (a PING
	// answered), LastAvail when the last valid reply came.
	Answered  bool
	LastAvail int64
	// HelloSeen: this Sentinel processed a hello of it, LastHello when
	// the last one came.
	HelloSeen bool
	LastHello int64
}

// HelloSlack is the margin of HelloWindow for a hello period's jitter
// (hellos go out at the first tick after the period), in ms.
const HelloSlack = 500

// HelloWindow is how recent a peer's last hello must be for the peer to
// count towards the proxy's majority: fence-after, plus one hello period
// and a margin for its jitter. A peer counts only once this Sentinel has
// processed a hello of it (and so adopted any newer configuration of the
// master it carried) within that window: after a partition heals, or at
// a start from a config that may be stale, the proxy forwards again only
// once the peers told what master they hold, not as soon as they answer
// PINGs. With the window not above down-after, a hello that counts after
// a failover was sent after the partition that led to it began.
func HelloWindow(fenceAfter, publishPeriod int64) int64 {
	return fenceAfter + publishPeriod + HelloSlack
}

// Reason returns why the proxy must not forward, or "" when it may: the
// master is neither SDOWN nor ODOWN for this Sentinel, no failover of it
// is in progress, it does not report itself a replica, this Sentinel is
// not in TILT, and (unless proxy-fencing is off) a majority of the
// master's Sentinels, this one counted (or of the voters floor when it
// is larger, as an election counts), answered a PING of this Sentinel
// within proxy-fence-after and sent a hello within HelloWindow, and this
// Sentinel has not voted for another one to fail the master over in an
// epoch newer than the master's configuration, within failover-timeout.
//
// With fence-after below down-after, a proxy cut off from the majority
// fences before that majority can see the master SDOWN, let alone elect
// a leader and promote a replica. A proxy that still reaches the master
// while the majority does not (an asymmetric partition) fences when a
// candidate asks for its vote, before the candidate can promote: the
// candidate asks every Sentinel it reaches, and promotes only after a
// majority answered. A window remains in which two proxies of one fleet
// forward to two masters (docs/proxy.md, "What is left"); a lease is to
// close it (issue 33).
func Reason(f Facts) string {
	switch {
	case f.Tilt:
		return "this Sentinel is in TILT"
	case f.FailoverInProgress:
		return "a failover is in progress"
	case f.ODown:
		return "the master is objectively down"
	case f.SDown:
		return "the master is subjectively down"
	case f.ReportsReplica:
		return "the master reports itself a replica"
	}
	if f.NoFencing {
		return ""
	}
	if f.VotedAt != 0 && f.LeaderEpoch > f.ConfigEpoch && f.Now-f.VotedAt < f.FailoverTimeout {
		return fmt.Sprintf("this Sentinel voted for %s in epoch %d to fail the master over", f.Leader, f.LeaderEpoch)
	}
	need := election.Majority(f.Voters)
	answered := 1
	helloWindow := HelloWindow(f.FenceAfter, f.PublishPeriod)
	for _, p := range f.Peers {
		if p.Answered && f.Now-p.LastAvail <= f.FenceAfter && p.HelloSeen && f.Now-p.LastHello <= helloWindow {
			answered++
		}
	}
	if answered < need {
		return fmt.Sprintf("%d of the %d Sentinels of the master answered within %s %d ms (a PING, and a hello within %d ms), %d needed",
			answered, f.Voters, settings.OptionProxyFenceAfter, f.FenceAfter, helloWindow, need)
	}
	return ""
}
