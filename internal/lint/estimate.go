package lint

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// The Redis 7.0 Sentinel timings the failover estimate is built from
// (sentinel.c; internal/monitor runs the same with Accel off).
const (
	// pingPeriod caps the PING interval: a Sentinel PINGs an instance
	// every min(down-after-milliseconds, 1 s).
	pingPeriod = time.Second
	// askPeriod is how often an SDOWN redis-sentinel asks the others
	// whether they see the master down (SENTINEL is-master-down-by-addr).
	askPeriod = time.Second
	// failoverInfoPeriod is the INFO period of the replicas from the
	// moment their master is ODOWN; a redis-sentinel confirms the
	// promotion by the first INFO after SLAVEOF NO ONE.
	failoverInfoPeriod = time.Second
	// tick is the longest interval between two runs of the Sentinel timer
	// (10 to 19 Hz, so 52 to 100 ms).
	tick = settings.TickMaxInterval
	// tickMean is the mean interval between two runs of that timer (the
	// mean of 1000/hz ms over hz = 10..19); an event waits about half of
	// it for the next run.
	tickMean = 72 * time.Millisecond
	// maxDesync is the random delay (rand() % 1000 ms) added to a failover
	// start time, which the retry delay counts from.
	maxDesync = time.Second
	// clientReconnect is the time assumed for clients to write to the new
	// master once their Sentinel answers its address: a client that asks
	// again on its first failed write or on +switch-master (go-redis's
	// FailoverClient took 0 to 0.08 s in `make bench-failover`).
	// clientReconnectMax is the bound assumed for clients that retry less
	// eagerly.
	clientReconnect    = 50 * time.Millisecond
	clientReconnectMax = time.Second
)

// goAccel is the failover accelerations go-sentinel runs with: its ODOWN
// ask period, election ladder, busy timer and promotion INFO period.
var goAccel = settings.DefaultAccel()

// Failure is how the master fails, which decides when the Sentinels start
// counting down-after-milliseconds.
type Failure int

const (
	// HostFailure is the master's host or network failing: each Sentinel
	// counts from its first unanswered PING, sent up to one PING interval
	// after the failure.
	HostFailure Failure = iota
	// ProcessCrash is the master's process dying on a live host (a crash,
	// SIGKILL, the OOM killer): the host closes the connections, and the
	// Sentinels count from then on (`make bench-failover` kills the master
	// so).
	ProcessCrash
)

// Fleet is the Sentinels that watch a master, by implementation, and the
// master's quorum.
type Fleet struct {
	// Go is the number of go-sentinels; Redis the number of other
	// Sentinels, which the model times as Redis 7.0's redis-sentinel.
	Go, Redis int
	// Quorum is the master's quorum, clamped to 1..Go+Redis.
	Quorum int
}

// size is the number of Sentinels, at least 1 (a Fleet of 0 is taken
// as one go-sentinel).
func (f Fleet) size() int { return max(f.Go+f.Redis, 1) }

// quorum is the quorum clamped to 1..size.
func (f Fleet) quorum() int { return min(max(f.Quorum, 1), f.size()) }

// goQuorum reports whether the go-sentinels make the quorum on their own.
func (f Fleet) goQuorum() bool { return f.Redis == 0 || f.Go >= f.quorum() }

// Mixed reports whether the fleet runs both go-sentinels and
// redis-sentinels.
func (f Fleet) Mixed() bool { return f.Go > 0 && f.Redis > 0 }

// redisLeads is the model's probability that a redis-sentinel leads the
// failover. After a host failure it is the redis-sentinels' share of the
// fleet: the Sentinels see the master down up to a PING interval apart,
// and the election ladder gives way to the smallest run id, which is as
// likely to be any Sentinel's. After a crash the go-sentinels see it down
// together at the deadline, the redis-sentinels up to two timer runs
// later: when the go-sentinels make the quorum alone, the first of them in
// the ladder starts at once unless a redis-sentinel has the smallest run
// id, and then it waits one ElectionStep, a race (taken as even) against
// that redis-sentinel's ODOWN; when they do not, a go-sentinel leads only
// if it is first in the ladder and wins that race.
func (f Fleet) redisLeads(failure Failure) float64 {
	n := float64(f.Go + f.Redis)
	switch {
	case f.Redis == 0:
		return 0
	case f.Go == 0:
		return 1
	case failure == HostFailure:
		return float64(f.Redis) / n
	case f.goQuorum():
		return float64(f.Redis) / n / 2
	}
	return 1 - float64(f.Go)/n/2
}

// Course is how long each phase of a failover led by one implementation
// takes, from the failure to the clients' first write to the promoted
// replica. Each phase has an expected and a longest duration.
type Course struct {
	// Detect is until the quorum-th Sentinel sees the master subjectively
	// down (SDOWN): down-after-milliseconds after its first unanswered
	// PING, or after the closed connection of a crashed process, as its
	// timer sees it.
	Detect, DetectMax time.Duration
	// ODown is until the Sentinel that will lead finds the master
	// objectively down (ODOWN): the quorum's replies to its
	// is-master-down-by-addr, counted at its next timer run.
	ODown, ODownMax time.Duration
	// Elect is until it is elected: its start (go-sentinel: the election
	// ladder), the vote requests, the tally.
	Elect, ElectMax time.Duration
	// Promote is until it sees the replica it chose report role master:
	// the choice and SLAVEOF NO ONE a timer run apart, then the INFO that
	// confirms the promotion.
	Promote, PromoteMax time.Duration
	// Switch is until every Sentinel answers GET-MASTER-ADDR-BY-NAME with
	// the new address: the leader does from the promotion on, the others
	// once the hello it sends at its next timer run reaches them.
	Switch, SwitchMax time.Duration
	// Reconnect is the clients' switch to the new master (assumed).
	Reconnect, ReconnectMax time.Duration

	// Expected is the sum of the expected phases, NoRetry the sum of the
	// longest.
	Expected, NoRetry time.Duration
}

// total fills in Expected and NoRetry.
func (c *Course) total() {
	c.Expected = c.Detect + c.ODown + c.Elect + c.Promote + c.Switch + c.Reconnect
	c.NoRetry = c.DetectMax + c.ODownMax + c.ElectMax + c.PromoteMax + c.SwitchMax + c.ReconnectMax
}

// Estimate is how long a failover leaves a master without a writable
// master, from the moment it fails to the moment clients write to the
// promoted replica, for a given fleet.
type Estimate struct {
	// Fleet and Failure are the fleet and the failure it is for.
	Fleet   Fleet
	Failure Failure
	// ByGo is the course of a failover a go-sentinel leads, ByRedis of one
	// a redis-sentinel leads; each is nil when the fleet has no Sentinel
	// of that implementation.
	ByGo, ByRedis *Course
	// RedisLeads is the probability, 0 to 1, that a redis-sentinel leads
	// the failover (see Fleet.redisLeads).
	RedisLeads float64
	// Retry is what a failed first attempt (split vote, or a promotion
	// not confirmed within failover-timeout) adds: the next attempt starts
	// 2 × failover-timeout + up to 1 s after the first one.
	Retry time.Duration

	// Expected is the courses' expected totals weighted by who leads,
	// to the millisecond.
	Expected time.Duration
	// NoRetry is the longest failover whose first attempt succeeds,
	// whoever leads.
	NoRetry time.Duration
	// Worst is NoRetry plus one Retry.
	Worst time.Duration
}

// Slowest is the course with the larger expected total (the only one
// for a fleet of one implementation).
func (e Estimate) Slowest() *Course {
	if e.ByGo == nil || (e.ByRedis != nil && e.ByRedis.Expected > e.ByGo.Expected) {
		return e.ByRedis
	}
	return e.ByGo
}

// EstimateFailover derives the Estimate for a master with the given
// down-after-milliseconds and failover-timeout, watched by fleet, failing
// as failure says. Every duration is wall-clock time; the expected figures
// are means, the longest ones bounds of a first attempt that succeeds.
// The model assumes healthy Sentinels (clocks, links, disks: a vote's
// config fsync takes milliseconds) and replicas that answer at once; after
// a host failure, the quorum-th of n Sentinels' first unanswered PINGs
// comes quorum/(n+1) of a PING interval after it on average. In a mixed
// fleet the leader is a redis-sentinel with the probability RedisLeads,
// and a go-sentinel that leads waits for the redis-sentinels' replies when
// the go-sentinels alone do not make the quorum. It was checked against
// `make bench-failover` (ProcessCrash; docs/configuration.md, "Checking a topology").
func EstimateFailover(downAfter, failoverTimeout time.Duration, fleet Fleet, failure Failure) Estimate {
	e := Estimate{Fleet: fleet, Failure: failure, RedisLeads: fleet.redisLeads(failure),
		Retry: 2*failoverTimeout + maxDesync}
	if fleet.Go > 0 || fleet.Redis == 0 {
		c := goCourse(downAfter, fleet, failure)
		e.ByGo = &c
	}
	if fleet.Redis > 0 {
		c := redisCourse(downAfter, fleet, failure)
		e.ByRedis = &c
	}
	p := e.RedisLeads
	switch {
	case e.ByGo == nil:
		e.Expected, e.NoRetry = e.ByRedis.Expected, e.ByRedis.NoRetry
	case e.ByRedis == nil:
		e.Expected, e.NoRetry = e.ByGo.Expected, e.ByGo.NoRetry
	default:
		e.Expected = time.Duration((1-p)*float64(e.ByGo.Expected) + p*float64(e.ByRedis.Expected)).Round(time.Millisecond)
		e.NoRetry = max(e.ByGo.NoRetry, e.ByRedis.NoRetry)
	}
	e.Worst = e.NoRetry + e.Retry
	return e
}

// hostDetect is the detection of a host failure by the quorum-th
// Sentinel before its timer decides: down-after plus the wait for its
// first unanswered PING (quorum/(n+1) of a PING interval on average, one
// at most).
func hostDetect(downAfter time.Duration, fleet Fleet) (expected, longest time.Duration) {
	ping := min(downAfter, pingPeriod)
	return downAfter + ping*time.Duration(fleet.quorum())/time.Duration(fleet.size()+1), downAfter + ping
}

// redisDetect is the detection by a redis-sentinel, whose timer decides
// SDOWN at its first run past the deadline. After a crash, the closed link
// is redialled at the next run, whose PING starts the clock.
func redisDetect(downAfter time.Duration, fleet Fleet, failure Failure) (expected, longest time.Duration) {
	if failure == ProcessCrash {
		return downAfter + tickMean, downAfter + 2*tick
	}
	d, dMax := hostDetect(downAfter, fleet)
	return d + tickMean/2, dMax + tick
}

// goCourse is the course of a failover a go-sentinel leads. Its timer
// runs every 10 to 20 ms (BusyTick) once a master is down, and at the
// exact down-after deadline; a step of the failover (a tally, a state
// change) is taken as one BusyTick, round trips and config fsyncs
// included, two at most.
func goCourse(downAfter time.Duration, fleet Fleet, failure Failure) Course {
	step := settings.Duration(goAccel.BusyTickMs)
	n := time.Duration(fleet.size())
	var c Course
	if failure == ProcessCrash {
		// The closed link starts the clock; SDOWN at the deadline.
		c.Detect, c.DetectMax = downAfter, downAfter+step
	} else {
		c.Detect, c.DetectMax = hostDetect(downAfter, fleet)
	}
	// The quorum-th Sentinel asks at once, the others answer "down";
	// an ask that reached a peer a moment before its own SDOWN is
	// repeated ODownAskPeriod later.
	c.ODown, c.ODownMax = step, settings.Duration(goAccel.ODownAskPeriodMs)+2*step
	if !fleet.goQuorum() {
		// The quorum needs redis-sentinels: the quorum-th SDOWN is one
		// of theirs, and the go-sentinel hears of it at its next ask.
		c.Detect, c.DetectMax = redisDetect(downAfter, fleet, failure)
		c.ODown = settings.Duration(goAccel.ODownAskPeriodMs)/2 + step
		if failure == ProcessCrash {
			// Its ask at its own deadline precedes their SDOWN: the next
			// one, ODownAskPeriod later, counts.
			c.ODown = settings.Duration(goAccel.ODownAskPeriodMs) + step - tickMean
		}
	}
	// The ladder: rank × ElectionStep plus a random share of
	// ElectionJitter (rank 0 is the expected leader), then the vote
	// requests and the tally. Held back while a Sentinel of smaller run id
	// says "down", for at most rank × ElectionHold more: in a mixed fleet
	// that can be a redis-sentinel that asks only once a second.
	c.Elect = settings.Duration(goAccel.ElectionJitterMs)/2 + 2*step
	c.ElectMax = (n-1)*settings.Duration(goAccel.ElectionStepMs) + settings.Duration(goAccel.ElectionJitterMs) + 4*step
	if fleet.Redis > 0 {
		c.ElectMax += (n - 1) * settings.Duration(goAccel.ElectionHoldMs)
	}
	// select_slave, then SLAVEOF NO ONE at the next run; INFO goes out as
	// soon as the replica acknowledges it (and every FailoverInfoPeriod).
	c.Promote, c.PromoteMax = 2*step, 4*step+settings.Duration(goAccel.FailoverInfoPeriodMs)
	// Hellos at the next run; a follower switches on receipt.
	c.Switch, c.SwitchMax = step, 2*step
	c.Reconnect, c.ReconnectMax = clientReconnect, clientReconnectMax
	c.total()
	return c
}

// redisCourse is the course of a failover a redis-sentinel (Redis 7.0)
// leads: every decision waits for a run of its 52-100 ms timer, and the
// promotion for the replica's INFO, sent once a second from ODOWN on.
func redisCourse(downAfter time.Duration, fleet Fleet, failure Failure) Course {
	var c Course
	c.Detect, c.DetectMax = redisDetect(downAfter, fleet, failure)
	// It asks at its SDOWN run and counts the replies at the next one;
	// an ask that came too early is repeated a second later.
	c.ODown, c.ODownMax = tickMean, askPeriod+tick
	// It starts the failover at its ODOWN run and asks for votes at
	// once; the next run counts them (a peer not asked then is asked at
	// the next ask period).
	c.Elect, c.ElectMax = tickMean, askPeriod+tick
	// The replicas got an INFO at the ODOWN run; the next comes one
	// failoverInfoPeriod later (plus the wait for a run), after
	// select_slave and SLAVEOF NO ONE, two runs after the election: it
	// confirms the promotion. At worst the INFO arrives before the role
	// changed, and the one after confirms.
	c.Promote = failoverInfoPeriod + tickMean/2 - c.Elect
	c.PromoteMax = 3*tick + failoverInfoPeriod
	c.Switch, c.SwitchMax = tickMean, 2*tick
	c.Reconnect, c.ReconnectMax = clientReconnect, clientReconnectMax
	c.total()
	return c
}

// maxDownAfterFor is the largest down-after-milliseconds (whole
// milliseconds) whose expected failover by fleet fits in sla, 0 if none
// does. The expected figure grows with down-after, so a binary search
// finds it.
func maxDownAfterFor(sla time.Duration, fleet Fleet) time.Duration {
	fits := func(d time.Duration) bool {
		return EstimateFailover(d, time.Second, fleet, HostFailure).Expected <= sla
	}
	if !fits(time.Millisecond) {
		return 0
	}
	// fits(lo) holds and fits(hi) does not: Expected exceeds down-after.
	lo, hi := time.Millisecond, sla.Truncate(time.Millisecond)+time.Millisecond
	for hi-lo > time.Millisecond {
		mid := (lo + hi) / 2 / time.Millisecond * time.Millisecond
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// maxFailoverTimeoutFor is the largest failover-timeout (whole
// milliseconds) whose worst-case failover by fleet fits in sla with the
// given down-after, 0 if none does.
func maxFailoverTimeoutFor(sla, downAfter time.Duration, fleet Fleet) time.Duration {
	e := EstimateFailover(downAfter, 0, fleet, HostFailure)
	f := (sla - e.Worst) / 2
	if f <= 0 {
		return 0
	}
	return f.Truncate(time.Millisecond)
}
