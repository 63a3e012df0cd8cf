package lint

import (
	"fmt"
	"strconv"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// MinDownAfter is the down-after-milliseconds below which a stalled but
// healthy master (a fork, a slow command, a network hiccup) is likely to
// be declared down.
const MinDownAfter = 500 * time.Millisecond

// RTTMargin is how many times the slowest measured round trip
// down-after-milliseconds should exceed.
const RTTMargin = 10

// MinFailoverTimeout is the failover-timeout below which a failover is
// likely to be aborted before the promotion is confirmed.
const MinFailoverTimeout = 3 * time.Second

// secs formats d in seconds with at most one decimal ("32.3 s", "360 s").
func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + " s"
}

// short formats a phase's duration: in milliseconds below a second
// ("20 ms"), else as secs does.
func short(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + " ms"
	}
	return secs(d)
}

// courseText describes the phases of c, a failover of a host failure by
// fleet, led by a go-sentinel (goLed) or a redis-sentinel, with down-after
// d.
func courseText(c *Course, goLed bool, d time.Duration, fleet Fleet) string {
	until := "until the first unanswered PING"
	if !goLed || !fleet.goQuorum() {
		// The quorum-th SDOWN is a redis-sentinel's.
		until += " and the next run of redis-sentinel's timer"
	}
	detect := fmt.Sprintf("detection takes down-after-milliseconds (%s) plus about %s (up to %s) %s",
		secs(d), short(c.Detect-d), short(c.DetectMax-d), until)
	if goLed {
		hold := ""
		if fleet.Redis > 0 {
			hold = fmt.Sprintf(", and up to %s a step more for a redis-sentinel that says the master is down", short(settings.Duration(goAccel.ElectionHoldMs)))
		}
		return fmt.Sprintf("%s, ODOWN agreement about %s (up to %s: go-sentinel asks the others every %s), "+
			"the election about %s (up to %s: the election ladder gives way to smaller run ids, %s a step%s), "+
			"the promotion about %s (go-sentinel sends INFO as soon as the replica acknowledges SLAVEOF NO ONE), "+
			"the other Sentinels' switch about %s and client reconnection about %s (up to %s)",
			detect, short(c.ODown), short(c.ODownMax), short(settings.Duration(goAccel.ODownAskPeriodMs)),
			short(c.Elect), short(c.ElectMax), short(settings.Duration(goAccel.ElectionStepMs)), hold,
			short(c.Promote), short(c.Switch), short(c.Reconnect), short(c.ReconnectMax))
	}
	return fmt.Sprintf("%s, ODOWN agreement about %s (up to %s: redis-sentinel asks the others once a second), "+
		"the election about %s (up to %s), the promotion about %s (up to %s: SLAVEOF NO ONE two timer ticks after the election, "+
		"confirmed by the replica's INFO, sent every %s from ODOWN on), "+
		"the other Sentinels' switch about %s and client reconnection about %s (up to %s)",
		detect, short(c.ODown), short(c.ODownMax), short(c.Elect), short(c.ElectMax), short(c.Promote), short(c.PromoteMax),
		secs(failoverInfoPeriod), short(c.Switch), short(c.Reconnect), short(c.ReconnectMax))
}

// phasesText describes the phases of e's failover: those of the leader
// the fleet has, or, for a mixed fleet, those of each.
func phasesText(e Estimate, d time.Duration) string {
	switch {
	case e.ByRedis == nil:
		return courseText(e.ByGo, true, d, e.Fleet)
	case e.ByGo == nil:
		return courseText(e.ByRedis, false, d, e.Fleet)
	}
	return fmt.Sprintf("led by a go-sentinel, %s; led by a redis-sentinel, %s",
		courseText(e.ByGo, true, d, e.Fleet), courseText(e.ByRedis, false, d, e.Fleet))
}

// count is n and the noun, plural unless n is 1: "3 go-sentinels".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// fleetText says which Sentinels the estimate is for ("its 3
// go-sentinels") and where that came from.
func fleetText(t *target, e Estimate) string {
	f := e.Fleet
	var from string
	switch {
	case t.opts.RedisSentinels != nil:
	case t.liveCount && t.unknownImpl > 0:
		from = fmt.Sprintf(" (counting as go-sentinels the %d whose INFO could not be read)", t.unknownImpl)
	case !t.liveCount:
		return "its " + count(f.Go, "Sentinel") + " (taken to run go-sentinel; pass --redis-sentinels N if some run redis-sentinel)"
	}
	switch {
	case f.Mixed():
		return "its " + count(f.Go, "go-sentinel") + " and " + count(f.Redis, "redis-sentinel") + from
	case f.Redis > 0:
		return "its " + count(f.Redis, "redis-sentinel")
	}
	return "its " + count(f.Go, "go-sentinel") + from
}

// leadText is, for a mixed fleet, what each leader's failover takes and
// how often a redis-sentinel leads: " (30.7 s when ...)"; "" otherwise.
func leadText(e Estimate) string {
	if !e.Fleet.Mixed() {
		return ""
	}
	return fmt.Sprintf(" (%s when a go-sentinel leads it, %s when a redis-sentinel does, which the model takes to happen in %d%% of failovers: "+
		"the election ladder gives way to the smallest run id)", secs(e.ByGo.Expected), secs(e.ByRedis.Expected), int(e.RedisLeads*100+0.5))
}

// timingRule reports the failover estimate, against the SLA when given.
func timingRule(t *target) []Finding {
	d, f, name := settings.Duration(t.spec.DownAfterMs), settings.Duration(t.spec.FailoverTimeoutMs), t.spec.Name
	e := EstimateFailover(d, f, t.fleet, HostFailure)
	phases := phasesText(e, d)
	retry := fmt.Sprintf("a split vote or a promotion that times out restarts the failover only 2 × failover-timeout (%s) + up to %s after the first attempt",
		secs(2*f), secs(maxDesync))
	figures := map[string]int64{
		"expected_ms":     e.Expected.Milliseconds(),
		"no_retry_ms":     e.NoRetry.Milliseconds(),
		"worst_ms":        e.Worst.Milliseconds(),
		"go_sentinels":    int64(e.Fleet.Go),
		"redis_sentinels": int64(e.Fleet.Redis),
	}
	sla := t.opts.SLA
	if sla > 0 {
		figures["sla_ms"] = sla.Milliseconds()
	}
	by, lead := fleetText(t, e), leadText(e)
	switch {
	case sla > 0 && e.Expected > sla:
		var fix string
		if to := maxDownAfterFor(sla, t.fleet); to >= MinDownAfter {
			fix = fmt.Sprintf("Lower down-after-milliseconds to at most %d (`SENTINEL SET %s down-after-milliseconds %d` on every Sentinel), "+
				"but not below %d ms nor close to the network's latency spikes.", to.Milliseconds(), name, to.Milliseconds(), MinDownAfter.Milliseconds())
		} else {
			fix = fmt.Sprintf("No safe down-after-milliseconds (%d ms or more) fits a failover in %s: a failover by these Sentinels takes about %s at best; relax the SLA.",
				MinDownAfter.Milliseconds(), secs(sla), secs(EstimateFailover(MinDownAfter, f, t.fleet, HostFailure).Expected))
		}
		fn := t.finding(Error, RuleSLAExpected,
			fmt.Sprintf("a failover of %s by %s is expected to leave it without a writable master for about %s%s, above the SLA of %s (worst case %s): %s.",
				name, by, secs(e.Expected), lead, secs(sla), secs(e.Worst), phases), fix)
		fn.Figures = figures
		return []Finding{fn}
	case sla > 0 && e.Worst > sla:
		var fix string
		if to := maxFailoverTimeoutFor(sla, d, t.fleet); to >= MinFailoverTimeout {
			fix = fmt.Sprintf("Lower failover-timeout to at most %d (`SENTINEL SET %s failover-timeout %d` on every Sentinel); "+
				"it also bounds how long replicas get to resynchronise with the new master, %d at a time (parallel-syncs).",
				to.Milliseconds(), name, to.Milliseconds(), t.spec.ParallelSyncs)
		} else {
			fix = fmt.Sprintf("No safe failover-timeout (%d ms or more) fits a retried failover in %s with down-after-milliseconds %d: "+
				"lower down-after-milliseconds as well, or accept that a retried failover exceeds the SLA.",
				MinFailoverTimeout.Milliseconds(), secs(sla), d.Milliseconds())
		}
		fn := t.finding(Warning, RuleSLAWorst,
			fmt.Sprintf("a failover of %s by %s is expected to take about %s%s, within the SLA of %s, but %s in the worst case: %s.",
				name, by, secs(e.Expected), lead, secs(sla), secs(e.Worst), retry), fix)
		fn.Figures = figures
		return []Finding{fn}
	}
	within := ""
	fix := "down-after-milliseconds drives the expected figure and failover-timeout the worst case; pass --sla DURATION to check them against your availability target."
	if sla > 0 {
		within = fmt.Sprintf(", within the SLA of %s", secs(sla))
		fix = "Nothing to change; keep down-after-milliseconds (the expected figure) and failover-timeout (the worst case) within these bounds."
	}
	fn := t.finding(Info, RuleFailoverTiming,
		fmt.Sprintf("a failover of %s by %s leaves it without a writable master for about %s expected%s, at most %s when the first attempt succeeds "+
			"and %s in the worst case%s: %s; %s.", name, by, secs(e.Expected), lead, secs(e.NoRetry), secs(e.Worst), within, phases, retry), fix)
	fn.Figures = figures
	return []Finding{fn}
}

// downAfterSmallRule reports a down-after-milliseconds that a healthy but
// briefly slow master, or a slow network, can exceed.
func downAfterSmallRule(t *target) []Finding {
	d, name := settings.Duration(t.spec.DownAfterMs), t.spec.Name
	var rtt time.Duration
	if t.live != nil {
		for _, i := range append([]Instance{t.live.Master}, t.live.Replicas...) {
			rtt = max(rtt, i.MaxRTT)
		}
	}
	var why string
	switch {
	case d < MinDownAfter:
		why = fmt.Sprintf("below %d ms", MinDownAfter.Milliseconds())
	case rtt > 0 && d < RTTMargin*rtt:
		why = fmt.Sprintf("less than %d × the slowest PING round trip measured to its instances (%s)", RTTMargin, rtt.Round(10*time.Microsecond))
	default:
		return nil
	}
	return []Finding{t.finding(Warning, RuleDownAfterSmall,
		fmt.Sprintf("down-after-milliseconds %d for %s is %s: a fork for a snapshot, a slow command or a network hiccup that delays PING replies that long "+
			"makes the Sentinels see a healthy master down, and once a quorum agrees they fail it over, losing the writes it accepted in the meantime.",
			d.Milliseconds(), name, why),
		fmt.Sprintf("Raise down-after-milliseconds to a few seconds (`SENTINEL SET %s down-after-milliseconds 5000` on every Sentinel); "+
			"with --sla, check lets you know how far you can lower it.", name))}
}

// failoverTimeoutSmallRule reports a failover-timeout too short for a
// failover to complete.
func failoverTimeoutSmallRule(t *target) []Finding {
	f, name := settings.Duration(t.spec.FailoverTimeoutMs), t.spec.Name
	if f >= MinFailoverTimeout {
		return nil
	}
	c := EstimateFailover(settings.Duration(t.spec.DownAfterMs), f, t.fleet, HostFailure).Slowest()
	return []Finding{t.finding(Warning, RuleFailoverTimeoutSmall,
		fmt.Sprintf("failover-timeout %d for %s is below %s: the election may take up to %s and the promotion up to %s "+
			"(until the replica's INFO confirms it), an attempt that does not get there within failover-timeout is aborted "+
			"and retried 2 × failover-timeout later, and once it elapses the remaining replicas are reconfigured all at once instead of parallel-syncs at a time.",
			f.Milliseconds(), name, secs(MinFailoverTimeout), short(c.ElectMax), short(c.PromoteMax)),
		fmt.Sprintf("Raise failover-timeout to at least %d (`SENTINEL SET %s failover-timeout 10000` on every Sentinel is a common choice); "+
			"with --sla, check tells you how high it may go.", MinFailoverTimeout.Milliseconds(), name))}
}
