package node

import "time"

// The core runs on the node's monotonic clock, as Unix time: the wall
// clock read when the node starts plus the monotonic time elapsed since
// (monotonicClock). Every timer, deadline, lease and vote hold of the
// core and every lease end the proxy adapters compare is on that clock,
// so a step of the wall clock (NTP, an operator's `date -s`, a VM
// resumed with its clock reset) moves none of them, and a stall (SIGSTOP,
// a VM pause) advances them by the real time that passed. The wall clock
// itself (wallClock) goes to Tick only for TILT's trigger, which Redis
// reads from mstime(): a wall step still enters TILT as it does in
// Redis. Instants the core displays (the failover timeline's marks, the
// "Next failover delay" log line) are on the monotonic clock and drift
// from the wall clock by the steps it took since the start.

// wallClock is the wall clock without a monotonic reading.
func wallClock() time.Time { return time.Now().Round(0) }

// monotonicClock returns a clock that reads the wall clock at this call
// plus the monotonic time elapsed since, without a monotonic reading of
// its own (so that values compare as plain Unix times).
func monotonicClock() func() time.Time {
	base := time.Now()
	start := base.Round(0)
	return func() time.Time { return start.Add(time.Since(base)) }
}
