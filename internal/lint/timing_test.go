package lint

import (
	"fmt"
	"testing"
	"time"
)

func TestFailoverTimingRule(t *testing.T) {
	// The live fleet of 3: one go-sentinel, one redis-sentinel, one whose
	// INFO was not read.
	mixed := fleet(3, goodMaster(), goodReplica(6380))
	mixed.Impls = map[string]Impl{fmt.Sprintf("%040d", 100): ImplGo, fmt.Sprintf("%040d", 101): ImplRedis}
	allGo := fleet(3, goodMaster(), goodReplica(6380))
	allGo.Impls = map[string]Impl{}
	for i := 0; i < 3; i++ {
		allGo.Impls[fmt.Sprintf("%040d", 100+i)] = ImplGo
	}
	runRuleCases(t, RuleFailoverTiming, []ruleCase{
		{name: "no SLA: the figures", conf: conf(2, 2), want: sev(Info),
			contains: []string{"by its 3 Sentinels (taken to run go-sentinel; pass --redis-sentinels N", "30.7 s expected", "at most 32.6 s",
				"393.6 s in the worst case", "2 × failover-timeout (360 s)", "plus about 500 ms (up to 1 s) until the first unanswered PING",
				"ODOWN agreement about 20 ms (up to 140 ms: go-sentinel asks the others every 100 ms)", "the election about 50 ms",
				"the promotion about 40 ms", "client reconnection about 50 ms (up to 1 s)"}},
		{name: "within the SLA", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 5000", "sentinel failover-timeout mymaster 10000"),
			sla: time.Minute, want: sev(Info), contains: []string{"within the SLA of 60 s"}},
		{name: "SLA missed: reported as sla-expected instead", conf: conf(2, 2), sla: 10 * time.Second},
		{name: "redis-sentinels", conf: conf(2, 2), redis: intp(3), want: sev(Info),
			contains: []string{"by its 3 redis-sentinels leaves", "31.8 s expected", "at most 35.8 s", "ODOWN agreement about 72 ms (up to 1.1 s: redis-sentinel asks the others once a second)",
				"the promotion about 964 ms (up to 1.3 s: SLAVEOF NO ONE two timer ticks after the election, confirmed by the replica's INFO, sent every 1 s from ODOWN on)"}},
		{name: "mixed, as the option says", conf: conf(2, 2), redis: intp(1), want: sev(Info),
			contains: []string{"by its 2 go-sentinels and 1 redis-sentinel leaves", "about 31 s expected (30.7 s when a go-sentinel leads it, 31.8 s when a redis-sentinel does, " +
				"which the model takes to happen in 33% of failovers", "led by a go-sentinel, detection", "the election about 50 ms (up to 2.3 s: the election ladder gives way to smaller run ids, 100 ms a step, " +
				"and up to 1 s a step more for a redis-sentinel that says the master is down)", "; led by a redis-sentinel, detection"}},
		{name: "more redis-sentinels than Sentinels", conf: conf(2, 2), redis: intp(5), want: sev(Info), contains: []string{"by its 3 redis-sentinels leaves"}},
		{name: "mixed, as the live Sentinels say", conf: conf(2, 2), facts: mixed, want: sev(Info),
			contains: []string{"by its 2 go-sentinels and 1 redis-sentinel (counting as go-sentinels the 1 whose INFO could not be read) leaves"}},
		{name: "the option wins over the probe", conf: conf(2, 2), facts: mixed, redis: intp(0), want: sev(Info),
			contains: []string{"by its 3 go-sentinels leaves"}},
		{name: "live go-sentinels", conf: conf(2, 0), facts: allGo, want: sev(Info), contains: []string{"by its 3 go-sentinels leaves"}},
	})
}

func TestSLAExpectedRule(t *testing.T) {
	runRuleCases(t, RuleSLAExpected, []ruleCase{
		{name: "default down-after vs 10 s", conf: conf(2, 2), sla: 10 * time.Second, want: sev(Error),
			contains: []string{"about 30.7 s, above the SLA of 10 s", "down-after-milliseconds (30 s)"}},
		{name: "SLA below what Sentinel can do", conf: conf(2, 2), sla: 800 * time.Millisecond, want: sev(Error)},
		{name: "mixed fleet vs 31 s", conf: conf(2, 2), redis: intp(2), sla: 31 * time.Second, want: sev(Error),
			contains: []string{"about 31.4 s (30.8 s when a go-sentinel leads it, 31.8 s when a redis-sentinel does, which the model takes to happen in 67% of failovers"}},
		{name: "5 s down-after vs 10 s", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 5000"), sla: 10 * time.Second},
		{name: "no SLA", conf: conf(2, 2)},
	})
	// The fix names the largest down-after that fits, or says none does.
	for _, tc := range []struct {
		sla   time.Duration
		redis *int
		fix   string
	}{
		{10 * time.Second, nil, "at most 9320"},
		{10 * time.Second, intp(3), "at most 8234"},
		{800 * time.Millisecond, nil, "takes about 0.9 s at best; relax the SLA"},
		{2 * time.Second, intp(3), "takes about 2 s at best; relax the SLA"},
	} {
		fs := Check(parse(t, conf(2, 2)), nil, Options{SLA: tc.sla, RedisSentinels: tc.redis})
		if f := find(fs, RuleSLAExpected); f == nil || !contains(f.Fix, tc.fix) {
			t.Errorf("SLA %v: fix lacks %q: %+v", tc.sla, tc.fix, f)
		}
	}
}

func TestSLAWorstRule(t *testing.T) {
	fast := "sentinel down-after-milliseconds mymaster 5000"
	runRuleCases(t, RuleSLAWorst, []ruleCase{
		{name: "default failover-timeout vs 30 s", conf: conf(2, 2, fast), sla: 30 * time.Second, want: sev(Warning),
			contains: []string{"about 5.7 s, within the SLA of 30 s", "368.6 s in the worst case", "2 × failover-timeout (360 s)"}},
		{name: "failover-timeout 9 s vs 30 s", conf: conf(2, 2, fast, "sentinel failover-timeout mymaster 9000"), sla: 30 * time.Second},
		{name: "expected already missed", conf: conf(2, 2), sla: 10 * time.Second},
	})
	fs := Check(parse(t, conf(2, 2, fast)), nil, Options{SLA: 30 * time.Second})
	if f := find(fs, RuleSLAWorst); f == nil || !contains(f.Fix, "at most 10707") {
		t.Errorf("fix: %+v", f)
	}
	fs = Check(parse(t, conf(2, 2, fast)), nil, Options{SLA: 13 * time.Second})
	if f := find(fs, RuleSLAWorst); f == nil || !contains(f.Fix, "No safe failover-timeout") {
		t.Errorf("fix: %+v", f)
	}
}

func TestDownAfterSmallRule(t *testing.T) {
	slowNet := goodMaster()
	slowNet.MaxRTT = 150 * time.Millisecond
	runRuleCases(t, RuleDownAfterSmall, []ruleCase{
		{name: "200 ms", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 200"), want: sev(Warning),
			contains: []string{"down-after-milliseconds 200", "below 500 ms", "healthy master"}},
		{name: "1 s over a 150 ms network", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 1000"),
			facts: fleet(3, slowNet, goodReplica(6380)), want: sev(Warning), contains: []string{"10 × the slowest PING round trip", "150ms"}},
		{name: "1 s over a fast network", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 1000"), facts: fleet(3, goodMaster(), goodReplica(6380))},
		{name: "default", conf: conf(2, 2)},
	})
}

func TestFailoverTimeoutSmallRule(t *testing.T) {
	runRuleCases(t, RuleFailoverTimeoutSmall, []ruleCase{
		{name: "1 s", conf: conf(2, 2, "sentinel failover-timeout mymaster 1000"), want: sev(Warning),
			contains: []string{"failover-timeout 1000", "aborted", "all at once"}},
		{name: "10 s", conf: conf(2, 2, "sentinel failover-timeout mymaster 10000")},
	})
}

func find(fs []Finding, rule string) *Finding {
	for i := range fs {
		if fs[i].Rule == rule {
			return &fs[i]
		}
	}
	return nil
}
