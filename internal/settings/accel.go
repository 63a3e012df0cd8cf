package settings

// Accel holds go-sentinel's failover accelerations: local policies that
// change when this Sentinel acts, never what it sends or how it answers,
// so mixed fleets with redis-sentinel keep working. The zero value is
// Redis 7.0.15's timing.
type Accel struct {
	// Every period and delay below is in milliseconds.
	//
	// DeadlineTicks runs the timer when an instance's down-after period
	// runs out, rather than only at the next 52-100 ms tick, so that
	// SDOWN is decided on time.
	DeadlineTicks bool
	// BusyTick, when not zero, is the longest timer period while a
	// failover runs here or a master went down in the last BusyFor: the
	// steps of a failover are a tick apart.
	BusyTickMs int64
	BusyForMs  int64
	// ODownAskPeriod, when not zero, is how often a Sentinel that thinks
	// a master is down asks the others again while it is not yet
	// objectively down (Redis asks once per second).
	ODownAskPeriodMs int64
	// FailoverInfoPeriod, when not zero, is how often INFO goes to the
	// replicas of a master whose failover this Sentinel runs (Redis: 1 s),
	// so promotion and reconfiguration are confirmed without waiting.
	FailoverInfoPeriodMs int64
	// MasterReconnectPeriod, when not zero, is how often a lost
	// connection to a master is dialled again (Redis: once per ping
	// period, 1 s), so that a master that comes back is seen at once.
	MasterReconnectPeriodMs int64
	// InfoAfterExec sends INFO to an instance as soon as it acknowledged
	// a SLAVEOF transaction.
	InfoAfterExec bool
	// ElectionStep and ElectionJitter set the delay between a master
	// becoming objectively down and this Sentinel starting a failover:
	// rank × ElectionStep plus a random share of ElectionJitter, where
	// rank is how many reachable Sentinels of the master have a smaller
	// run id. Sentinels that saw the master die at the same instant would
	// otherwise ask for votes at the same instant and split them; with
	// the ladder the first one asks alone, the others vote for it (a vote
	// holds back one's own start), and the next one steps in only if the
	// first did not ask within a step.
	ElectionStepMs   int64
	ElectionJitterMs int64
	// ElectionHold, when not zero, extends the ladder while a reachable
	// Sentinel of smaller run id reports the master down: that one is
	// about to ask for votes, and starting an election beside it would
	// split them. Sentinels reach ODOWN up to a PING period apart (more
	// than ElectionStep) and, when many masters die at once, each
	// election started raises the current epoch, after which Redis's
	// voting rule refuses the other candidates' older epochs: without the
	// hold every Sentinel ran an election for every master and nearly all
	// split. The hold lasts at most rank × ElectionHold after the ladder
	// delay, so a lower Sentinel that says "down" but cannot lead delays
	// the failover by that much at most.
	ElectionHoldMs int64
	// ElectionBusyHold, when not zero, extends the hold further, up to
	// this long after the ladder delay, while a Sentinel of smaller run
	// id that reports the master down asked this one for a vote (for any
	// master) in the last 2 × ElectionHold: it is working through a burst
	// of elections (election.Extend).
	ElectionBusyHoldMs int64
	// Budget, when not zero, bounds the extra traffic of the fast
	// periods (BusyTick, ODownAskPeriod, FailoverInfoPeriod,
	// MasterReconnectPeriod) to what Budget masters in trouble would
	// cause: with n > Budget masters in trouble (a link down, SDOWN,
	// ODOWN or a failover in progress) each fast period is multiplied by
	// n / Budget, and never exceeds Redis's own period. When a rack
	// dies, 300 masters redialled every 100 ms, asked about every 100 ms
	// and their replicas sent INFO every 25 ms cost 10–40 times Redis's
	// traffic, on a machine already short of CPU (issue 19).
	Budget int
}

// Scaled returns the period of an acceleration whose fast period is fast
// and whose Redis period is slow, given troubled masters in trouble (see
// Accel.Budget).
func (a Accel) Scaled(fast, slow int64, troubled int) int64 {
	if a.Budget <= 0 || troubled <= a.Budget {
		return fast
	}
	return min(slow, fast*int64(troubled)/int64(a.Budget))
}

// DefaultAccel returns the accelerations the daemon runs with.
func DefaultAccel() Accel {
	return Accel{
		DeadlineTicks:           true,
		BusyTickMs:              20,
		BusyForMs:               5000,
		ODownAskPeriodMs:        100,
		FailoverInfoPeriodMs:    25,
		InfoAfterExec:           true,
		MasterReconnectPeriodMs: 100,
		ElectionStepMs:          100,
		ElectionJitterMs:        20,
		ElectionHoldMs:          1000,
		ElectionBusyHoldMs:      10000,
		Budget:                  10,
	}
}
