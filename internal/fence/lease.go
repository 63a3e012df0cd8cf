package fence

import "fmt"

// This file holds the lease: what a Sentinel grants a peer's proxy
// (Grant), how long a grant binds the grantor (Lapse), and when a vote
// must wait for the grants given before it (VoteDeferred). docs/proxy.md
// gives the argument that, with these rules, no two proxies forward to
// two masters.

// DriftMargin is the margin Lapse adds to a lease of leaseMs ms for the
// rates of two clocks, the holder's and the grantor's, differing: 2 %
// (the holder's clock 1 % slow and the grantor's 1 % fast, far beyond
// what NTP or an unsynchronised quartz allows) plus 50 ms, in ms.
func DriftMargin(leaseMs int64) int64 { return leaseMs/50 + 50 }

// Lapse is how long after a grant of a lease of leaseMs ms, on the
// grantor's clock, the lease has lapsed on the holder's clock too: the
// holder counts leaseMs from when it sent the request, which came before
// the grant, and its clock may run slower than the grantor's by the
// DriftMargin. In ms.
func Lapse(leaseMs int64) int64 { return leaseMs + DriftMargin(leaseMs) }

// VoteDeferred reports whether a Sentinel must hold back a vote it would
// cast at now to fail over a master whose leases it granted until
// lapseAt (the latest grant's time plus its Lapse; 0: none granted): a
// vote cast before every such lease has lapsed could let its candidate
// promote a replica while the holder still forwards to the old master.
// A Sentinel that holds back a vote records an intent (GrantFacts.Intent)
// and grants no more leases, so its leases lapse and the next ask gets
// the vote.
func VoteDeferred(now, lapseAt int64) bool { return now < lapseAt }

// SettledAt is when a vote given at votedAt for a failover of a master
// no longer decides anything but what the fleet now says of the master:
// the candidate's election lasts at most electionTimeout, sending the
// promotion and waiting for it at most failoverTimeout each, so by then
// its failover either promoted a replica, and its configuration epoch is
// newer, or ended without one. In Unix ms.
func SettledAt(votedAt, failoverTimeout, electionTimeout int64) int64 {
	return votedAt + 2*failoverTimeout + electionTimeout
}

// UnansweredLimit is, in ms, how long the master may leave a grantor's
// PINGs unanswered for it still to grant a lease of leaseMs: half the
// lease. A master slower than that for a moment costs nothing (the
// holder's lease runs on, and a later ask is granted); one cut off from
// the grantors is refused within it, and its holder, which drops a
// lease at a refusal, fences about as soon as when it cannot reach them
// at all (a lease after the last ask that went through).
func UnansweredLimit(leaseMs int64) int64 { return leaseMs / 2 }

// LeasePingPeriodMs is how often, in ms, a Sentinel PINGs a master on
// which a lease it granted still binds it: its PINGs are what tell it
// the master went silent (UnansweredLimit), and Redis's period (1 s) would
// add up to a second to that.
const LeasePingPeriodMs = 250

// GrantFacts are what one Sentinel knows, at one instant, that decides
// whether it grants a lease on one master at one configuration epoch, to
// a peer or to its own proxy. Times are Unix ms, durations ms.
type GrantFacts struct {
	Now int64
	// Known: the master at the asked address is monitored here;
	// ConfigEpoch is its configuration epoch here, Epoch the one asked.
	Known              bool
	Epoch, ConfigEpoch uint64

	// LeaseMs is the length of the lease asked for. Unanswered is how
	// long the master has not answered this Sentinel's PINGs (0 while
	// it answers).
	LeaseMs, Unanswered int64

	// FailoverInProgress, ODown, SDown: the master's flags here.
	// ReportsReplica: the master's last INFO reported role slave.
	FailoverInProgress, ODown, SDown bool
	ReportsReplica                   bool

	// Leader and LeaderEpoch are this Sentinel's last vote for the
	// master (LeaderEpoch is persisted, Leader is not), VotedAt when it
	// was cast, or when this Sentinel started if it was cast before.
	Leader      string
	LeaderEpoch uint64
	VotedAt     int64
	// IntentEpoch and IntentAt: a vote in IntentEpoch was asked for at
	// IntentAt and held back (VoteDeferred); 0 when none was.
	IntentEpoch uint64
	IntentAt    int64
	// FailoverTimeout is the master's failover-timeout, ElectionTimeout
	// the election's.
	FailoverTimeout, ElectionTimeout int64
	// Peers are the master's other Sentinels, for a vote to settle.
	Peers []HelloPeer
}

// HelloPeer is what Grant needs of another Sentinel of the master: when
// its last hello came (0: none since this Sentinel started) and whether
// that hello held the master at the address and configuration epoch
// this Sentinel holds.
type HelloPeer struct {
	LastHello int64
	Holds     bool
}

// Grant returns why a lease on the master at f.Epoch is refused, or ""
// when it is granted: the master is monitored here at that epoch, it is
// neither SDOWN nor ODOWN nor failing over here, it does not report
// itself a replica, it has not left this Sentinel's PINGs unanswered for
// longer than UnansweredLimit (so that a master cut from the grantors
// alone, one way, stops being granted within about that, and its
// holder, told so at its next ask, drops the lease: it fences as soon as
// in a two-way cut), no
// vote in a newer epoch was held back within the election timeout, and
// this Sentinel has not voted to fail it over in a newer epoch — unless
// that vote has settled (SettledAt) and every peer's hello since then
// holds the master as this Sentinel does, which shows the failover voted
// for promoted nobody. A grant binds the grantor's vote for Lapse.
//
// TILT refuses nothing: the leases and the votes they hold back are
// measured on the monotonic clock, which a step of the wall clock does
// not move, and a Sentinel resuming from a stall has cast no vote while
// stalled, so it grants again at once.
func Grant(f GrantFacts) string {
	switch {
	case !f.Known:
		return "the master is not monitored here"
	case f.FailoverInProgress:
		return "a failover is in progress"
	case f.ODown:
		return "the master is objectively down"
	case f.SDown:
		return "the master is subjectively down"
	case f.ReportsReplica:
		return "the master reports itself a replica"
	case f.Unanswered > UnansweredLimit(f.LeaseMs):
		return fmt.Sprintf("the master has not answered this Sentinel for %d ms, longer than half the lease's %d ms", f.Unanswered, f.LeaseMs)
	case f.Epoch != f.ConfigEpoch:
		return fmt.Sprintf("the master's configuration epoch is %d here, not %d", f.ConfigEpoch, f.Epoch)
	case f.IntentEpoch > f.ConfigEpoch && f.Now-f.IntentAt < f.ElectionTimeout:
		return fmt.Sprintf("this Sentinel was asked to vote in epoch %d to fail the master over", f.IntentEpoch)
	case f.LeaderEpoch > f.ConfigEpoch && !settled(f):
		who := f.Leader
		if who == "" {
			who = "a Sentinel"
		}
		return fmt.Sprintf("this Sentinel voted for %s in epoch %d to fail the master over", who, f.LeaderEpoch)
	}
	return ""
}

// settled reports whether f's vote has settled and every peer has since
// said it holds the master as this Sentinel does.
func settled(f GrantFacts) bool {
	at := SettledAt(f.VotedAt, f.FailoverTimeout, f.ElectionTimeout)
	if f.Now < at {
		return false
	}
	for _, p := range f.Peers {
		if p.LastHello < at || !p.Holds {
			return false
		}
	}
	return true
}
