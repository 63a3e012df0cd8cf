package failover

import "fmt"

// This file holds the rule that converts a replica reporting itself a
// master back into a replica (+convert-to-slave): an old master that
// comes back after a failover (its host reachable again, its process
// restarted with its old configuration), or a replica promoted by hand.
// Everything it acknowledges until it is converted is thrown away when it
// resyncs from the master, so the sooner the better; but converting the
// master of a newer configuration this Sentinel has not heard of yet
// would demote the real master. Redis waits (4 × the hello period since
// the role was reported) for such a configuration to reach it; go-sentinel
// converts at once when a majority of the master's Sentinels holds a
// lease on its configuration (internal/fence), which shows that no newer
// configuration can exist (docs/proxy.md, "Why a returning master is
// never the real one"), and keeps Redis's wait only where it cannot
// have that.

// ConvertLeaseMs is the length, in ms, of the leases a Sentinel asks for
// to confirm its configuration before it converts a returning master, on
// a master without a proxy (one with a proxy asks for proxy-fence-after):
// a grant binds its grantor's vote for about as long (fence.Lapse), so a
// failover of the master right after a conversion waits that much more.
const ConvertLeaseMs = 1000

// ConvertPauseMs is how long, in ms, a Sentinel pauses a returning
// master's writes (CLIENT PAUSE WRITE) while it asks for that
// confirmation, and the longest it waits for it: a pause it had no reason
// for (the confirmation did not come) costs the writes of at most this
// long, and it lifts the pause as soon as every Sentinel asked answered
// without a majority.
const ConvertPauseMs = 1000

// ConvertFacts are what one Sentinel knows, at one instant, about a
// replica whose last INFO reports role master, that decides whether and
// how it converts it. Durations are ms.
type ConvertFacts struct {
	// Promoted: the replica is the one this Sentinel's own failover is
	// promoting (it reports master because it was told to).
	Promoted bool
	// MasterSane: the master reports role master, is neither SDOWN nor
	// ODOWN here, and answered INFO within two INFO periods.
	MasterSane bool
	// ReportedFor is how long the replica has reported role master to
	// a Sentinel that could hear it all along (its links up, no restart
	// since); NoDown: it had no SDOWN or ODOWN start within Wait; Wait
	// is Redis's wait, 4 × the hello period.
	ReportedFor int64
	NoDown      bool
	Wait        int64
	// PeerHeard: a hello of another Sentinel about the master reached
	// this one since ReportedFor began. Redis's wait rests on it: a
	// newer configuration reaches a Sentinel by its peers' hellos, so a
	// Sentinel that heard none (the others crashed, or cut from it, it
	// alone restarted on an older configuration) has waited for
	// nothing, and converting then demoted the master of the newest
	// configuration in the simulator.
	PeerHeard bool
	// Unconfirmed says why leases from a majority of the master's
	// Sentinels (this one counted) do not hold the master's
	// configuration now, as fence.Confirmed says it; "" when they do.
	Unconfirmed string
	// Fork says why the replica may be a promotion out of the master's
	// current history rather than a returning master ("" when it is
	// not): its master_replid2 is the master's master_replid (the
	// history it was on before its promotion is the master's), or the
	// replication ids do not tell. A failover's promotion looks so to
	// the other Sentinels until its configuration reaches them, and
	// SENTINEL FAILOVER's needs no votes, so no lease rules it out;
	// one by hand looks the same.
	Fork string
	// Confirmable: asking for those leases may still confirm it: this
	// Sentinel grants itself one, enough Sentinels are reachable to make
	// a majority, and the wait for them (ConvertPauseMs) has not run
	// out, nor has a round of asks ended without a majority.
	Confirmable bool
}

// ConvertAct is what a Sentinel does about a replica reporting role
// master.
type ConvertAct int

// The acts of Convert.
const (
	// ConvertNot: nothing yet.
	ConvertNot ConvertAct = iota
	// ConvertConfirm: stop its writes (CLIENT PAUSE WRITE, once) and ask
	// the master's Sentinels for leases on its configuration.
	ConvertConfirm
	// ConvertNow: send it SLAVEOF the master (+convert-to-slave),
	// lifting the pause this Sentinel sent, if any.
	ConvertNow
)

// ConvertBranch names the way a conversion took, or waits to take, for
// EXPLAIN.
type ConvertBranch string

// The branches of Convert.
const (
	// BranchConfirmed: converted at first contact, on a majority's
	// leases.
	BranchConfirmed ConvertBranch = "confirmed"
	// BranchConfirming: its writes are paused and leases asked for.
	BranchConfirming ConvertBranch = "confirming"
	// BranchWaited: converted after Redis's wait.
	BranchWaited ConvertBranch = "waited"
	// BranchWaiting: Redis's wait runs, the configuration being
	// unconfirmed.
	BranchWaiting ConvertBranch = "waiting"
	// BranchHeld: not converted, whatever the wait: it is being
	// promoted here, or the master does not look sane.
	BranchHeld ConvertBranch = "held"
)

// ConvertVerdict is Convert's decision: the act, its branch and the
// reason in a sentence.
type ConvertVerdict struct {
	Act    ConvertAct
	Branch ConvertBranch
	Why    string
}

// Convert decides what a Sentinel does about a replica reporting role
// master: nothing while it is this Sentinel's own promotion or the master
// does not look sane (Redis's rule); at once when it is no fork of the
// master's history and a majority's leases confirm the master's
// configuration; else after Redis's wait (reported for more than Wait,
// no down state within it, and a peer's hello heard meanwhile); and meanwhile, while the leases may still
// come, stop its writes and ask for them.
func Convert(f ConvertFacts) ConvertVerdict {
	unconfirmed := f.Unconfirmed
	if f.Fork != "" {
		unconfirmed = f.Fork
	}
	if faultLateJoin {
		// The latejoin fault of the histfaults test build, never shipped
		// (fault_histfaults.go): neither first-contact branch is taken
		// (confirmed, confirming), so only Redis's wait converts.
		f.Confirmable = false
		if unconfirmed == "" {
			unconfirmed = "the latejoin test fault ignores the leases"
		}
	}
	switch {
	case f.Promoted:
		return ConvertVerdict{ConvertNot, BranchHeld, "it is the replica this Sentinel's failover promotes"}
	case !f.MasterSane:
		return ConvertVerdict{ConvertNot, BranchHeld, "the master does not look sane here (role master, not down, INFO within two periods)"}
	case unconfirmed == "":
		return ConvertVerdict{ConvertNow, BranchConfirmed,
			"leases from a majority of the master's Sentinels hold its configuration, so no newer configuration can have made this replica a master"}
	case f.NoDown && f.ReportedFor > f.Wait && !f.PeerHeard:
		return ConvertVerdict{ConvertNot, BranchWaiting,
			fmt.Sprintf("not at once, as %s; and though it reported role master for %d ms, longer than Redis's wait of %d ms, no other Sentinel's hello reached this one meanwhile, so none could have told it of a newer configuration", unconfirmed, f.ReportedFor, f.Wait)}
	case f.NoDown && f.ReportedFor > f.Wait:
		return ConvertVerdict{ConvertNow, BranchWaited,
			fmt.Sprintf("not at once, as %s; but it reported role master for %d ms, longer than Redis's wait of %d ms", unconfirmed, f.ReportedFor, f.Wait)}
	case f.Confirmable && f.Fork == "":
		return ConvertVerdict{ConvertConfirm, BranchConfirming,
			fmt.Sprintf("its writes are paused while the master's Sentinels are asked for leases on its configuration (%s)", unconfirmed)}
	}
	return ConvertVerdict{ConvertNot, BranchWaiting,
		fmt.Sprintf("not at once, as %s; Redis's wait of %d ms applies (reported role master for %d ms)", unconfirmed, f.Wait, f.ReportedFor)}
}
