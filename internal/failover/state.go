package failover

// State is a step of the failover state machine a leader runs, in the
// order the steps happen (Redis's SENTINEL_FAILOVER_STATE_*).
type State int

// The failover states. None is the zero value: no failover runs.
const (
	None             State = iota
	WaitStart              // elected or not yet: counting votes
	SelectSlave            // elected: choosing the replica to promote
	SendSlaveofNoone       // sending SLAVEOF NO ONE to the chosen replica
	WaitPromotion          // waiting for its INFO to report role master
	ReconfSlaves           // pointing the other replicas at the promoted one
	UpdateConfig           // done: the master's address is switched next
)

// stateNames are the names `failover-state` shows, by State.
var stateNames = [...]string{
	None:             "none",
	WaitStart:        "wait_start",
	SelectSlave:      "select_slave",
	SendSlaveofNoone: "send_slaveof_noone",
	WaitPromotion:    "wait_promotion",
	ReconfSlaves:     "reconf_slaves",
	UpdateConfig:     "update_config",
}

// String returns the name SENTINEL MASTER's failover-state field shows.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return "unknown"
	}
	return stateNames[s]
}

// Promoted reports whether a replica was promoted by the time a failover
// reaches s: from reconf_slaves on, clients are given its address.
func (s State) Promoted() bool { return s >= ReconfSlaves }

// Timeouts are the limits a failover runs under, in milliseconds.
type Timeouts struct {
	// Failover is the master's failover-timeout.
	Failover int64
	// Election is how long a Sentinel waits to be elected (Redis's
	// SENTINEL_ELECTION_TIMEOUT, 10 s); the shorter of the two applies.
	Election int64
	// Coordinated marks a coordinated failover (SENTINEL FAILOVER ...
	// COORDINATED), whose send_slaveof_noone hands over through the
	// master's FAILOVER TO and must leave it MinHandover of the
	// failover-timeout.
	Coordinated bool
}

// MinHandover is the least failover-timeout a coordinated failover must
// have left to send FAILOVER TO (Valkey 9's rule): with less, it is
// aborted (-failover-abort-master-timeout).
const MinHandover = 1000 // ms

// Deadline returns when a failover in state s times out, and false for
// the states that have none. started is when the failover started (its
// failover_start_time, which Redis moves by up to a second at random),
// entered when it entered s (Unix ms, as the deadline). A state times out once the clock is past the
// deadline:
//
//   - wait_start: the election ends min(Election, Failover) after started
//     (-failover-abort-not-elected);
//   - send_slaveof_noone and wait_promotion: Failover after entered
//     (-failover-abort-slave-timeout); for a coordinated failover
//     send_slaveof_noone ends MinHandover earlier
//     (-failover-abort-master-timeout);
//   - reconf_slaves: Failover after entered, when the failover ends
//     anyway (+failover-end-for-timeout).
func Deadline(s State, started, entered int64, t Timeouts) (int64, bool) {
	switch s {
	case WaitStart:
		return started + min(t.Election, t.Failover), true
	case SendSlaveofNoone:
		if t.Coordinated {
			return entered + t.Failover - MinHandover, true
		}
		return entered + t.Failover, true
	case WaitPromotion, ReconfSlaves:
		return entered + t.Failover, true
	}
	return 0, false
}

// Expired reports whether a failover in state s has passed its Deadline
// at now; false for the states that have none.
func Expired(s State, started, entered, now int64, t Timeouts) bool {
	d, ok := Deadline(s, started, entered, t)
	return ok && now > d
}
