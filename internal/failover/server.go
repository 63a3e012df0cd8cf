package failover

// This file holds the rules about a server-side FAILOVER (Redis 6.2's
// FAILOVER command) that no Sentinel started, or that a Sentinel's
// coordinated failover left behind: someone ran FAILOVER TO a replica
// that never answers (FORCE makes the master give up its role without
// waiting for the replica), and the server stays in
// `master_failover_state:failover-in-progress` with its writes paused and
// SLAVEOF refused ("REPLICAOF not allowed while failing over") until
// FAILOVER ABORT. Valkey 9's Sentinel ends it; these are its rules
// (sentinel.c, sentinelRefreshInstanceInfo and sentinelSendReplicaOf).

// NoServerFailover is the master_failover_state a server reports when no
// server-side FAILOVER runs.
const NoServerFailover = "no-failover"

// ServerFailing reports whether a master_failover_state shows a
// server-side FAILOVER running: any state but NoServerFailover
// ("waiting-for-sync", "failover-in-progress"). The empty state, never
// reported (a server older than Redis 6.2, or no INFO yet), is not one.
func ServerFailing(state string) bool {
	return state != "" && state != NoServerFailover
}

// AbortBeforeSlaveOf reports whether a SLAVEOF transaction sent to a
// server that last reported state must end its server-side FAILOVER
// first, with FAILOVER ABORT ahead of SLAVEOF in the same MULTI: the
// server refuses SLAVEOF while a FAILOVER runs, yet executes the rest of
// the transaction (CLIENT KILL TYPE normal among it), so without the
// abort every attempt disconnects its clients and changes nothing.
func AbortBeforeSlaveOf(state string) bool { return ServerFailing(state) }

// StuckReplica is what the stuck-FAILOVER rule reads about one replica
// (an instance this Sentinel counts as a replica that reports role
// slave).
type StuckReplica struct {
	// State is its master_failover_state as last reported.
	State string
	// For is how long, in ms, it has reported State without a change.
	For int64
	// MasterSane is true when its master reports role master, is
	// neither SDOWN nor ODOWN, and answered INFO within two INFO periods.
	MasterSane bool
	// DownRecently is true when the replica became SDOWN or ODOWN within
	// the last failover-timeout.
	DownRecently bool
}

// StuckInServerFailover reports whether a replica is stuck in a
// server-side FAILOVER and must be sent SLAVEOF its master (with FAILOVER
// ABORT first, AbortBeforeSlaveOf), which Sentinel logs as
// +fix-slave-config: it has reported a FAILOVER running for longer than
// the failover-timeout (a FAILOVER that works ends in about a
// replication handshake), while its master looks sane and the replica
// itself was not down within the failover-timeout. Every Sentinel applies
// it, leader or not, as Valkey 9 does. A master object in the same state
// reports role slave, and becomes SDOWN through that (down-after plus two
// INFO periods), which leads to an ordinary failover; the rule then
// applies to it as a replica of the promoted one.
func StuckInServerFailover(r StuckReplica, failoverTimeout int64) bool {
	return ServerFailing(r.State) && r.For > failoverTimeout && r.MasterSane && !r.DownRecently
}
