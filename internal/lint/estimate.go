package lint

import "time"

// The Redis 7.0 Sentinel timings the failover estimate is built from
// (sentinel.c; see docs/sentinel-reference.md §2, §7, §8, §10).
const (
	// pingPeriod caps the PING interval: a Sentinel PINGs an instance
	// every min(down-after-milliseconds, 1 s).
	pingPeriod = time.Second
	// askPeriod is how often an SDOWN Sentinel asks the others whether
	// they see the master down (SENTINEL is-master-down-by-addr).
	askPeriod = time.Second
	// failoverInfoPeriod is the INFO period of replicas while their master
	// is ODOWN or failing over; the promotion is confirmed by INFO.
	failoverInfoPeriod = time.Second
	// tick is the longest interval between two runs of the Sentinel timer
	// (10 to 19 Hz, so 52 to 100 ms).
	tick = 100 * time.Millisecond
	// maxDesync is the random delay (rand() % 1000 ms) added to a failover
	// start time, which the retry delay counts from.
	maxDesync = time.Second
	// clientReconnect is the time assumed for clients to learn the new
	// master (a +switch-master message or their next
	// GET-MASTER-ADDR-BY-NAME) and connect to it.
	clientReconnect = time.Second
)

// Estimate is how long a failover leaves a master without a writable
// master, from the moment it fails to the moment clients write to the
// promoted replica. Each phase has an expected and a longest duration;
// the totals add them up.
type Estimate struct {
	// Detect is until the Sentinels see the master subjectively down:
	// down-after-milliseconds after the first unanswered PING, which is
	// sent up to one PING interval after the failure.
	Detect, DetectMax time.Duration
	// ODown is until a quorum agrees (one ask period at most).
	ODown, ODownMax time.Duration
	// Elect is the leader election once a Sentinel starts the failover:
	// the votes come back on the forced ask, or on the next ask period.
	Elect, ElectMax time.Duration
	// Promote is SLAVEOF NO ONE (sent two timer ticks after the election)
	// and its confirmation by the replica's INFO.
	Promote, PromoteMax time.Duration
	// Reconnect is the clients' switch to the new master (assumed).
	Reconnect, ReconnectMax time.Duration
	// Retry is what a failed first attempt (split vote, or a promotion
	// not confirmed within failover-timeout) adds: the next attempt starts
	// 2 × failover-timeout + up to 1 s after the first one.
	Retry time.Duration

	// Expected is the sum of the expected phases.
	Expected time.Duration
	// NoRetry is the longest failover whose first attempt succeeds.
	NoRetry time.Duration
	// Worst is NoRetry plus one Retry.
	Worst time.Duration
}

// EstimateFailover derives the Estimate for a master with the given
// down-after-milliseconds and failover-timeout. The model assumes the
// master's host or network fails (an unanswered PING; a crashed process
// that closes its connections is detected up to one PING interval sooner)
// and that the Sentinels' clocks and links are healthy.
func EstimateFailover(downAfter, failoverTimeout time.Duration) Estimate {
	ping := min(downAfter, pingPeriod)
	e := Estimate{
		Detect: downAfter + ping/2, DetectMax: downAfter + ping,
		ODown: askPeriod / 2, ODownMax: askPeriod,
		Elect: tick, ElectMax: askPeriod,
		Promote: 2*tick + failoverInfoPeriod/2, PromoteMax: 2*tick + failoverInfoPeriod,
		Reconnect: clientReconnect / 2, ReconnectMax: clientReconnect,
		Retry: 2*failoverTimeout + maxDesync,
	}
	e.Expected = e.Detect + e.ODown + e.Elect + e.Promote + e.Reconnect
	e.NoRetry = e.DetectMax + e.ODownMax + e.ElectMax + e.PromoteMax + e.ReconnectMax
	e.Worst = e.NoRetry + e.Retry
	return e
}

// maxDownAfterFor is the largest down-after-milliseconds whose expected
// failover fits in sla (0 if none does).
func maxDownAfterFor(sla time.Duration) time.Duration {
	// Above 1 s the PING interval is 1 s and the rest is a constant.
	over := EstimateFailover(pingPeriod, time.Second).Expected - pingPeriod
	if d := sla - over; d >= pingPeriod {
		return d.Truncate(time.Millisecond)
	}
	// Below, the PING interval is down-after itself: Detect = 1.5 × d.
	rest := EstimateFailover(pingPeriod, time.Second).Expected - 3*pingPeriod/2
	d := (sla - rest) * 2 / 3
	if d <= 0 {
		return 0
	}
	return d.Truncate(time.Millisecond)
}

// maxFailoverTimeoutFor is the largest failover-timeout whose worst-case
// failover fits in sla with the given down-after (0 if none does).
func maxFailoverTimeoutFor(sla, downAfter time.Duration) time.Duration {
	e := EstimateFailover(downAfter, 0)
	f := (sla - e.Worst) / 2
	if f <= 0 {
		return 0
	}
	return f.Truncate(time.Millisecond)
}
