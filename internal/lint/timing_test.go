package lint

import (
	"testing"
	"time"
)

func TestFailoverTimingRule(t *testing.T) {
	runRuleCases(t, RuleFailoverTiming, []ruleCase{
		{name: "no SLA: the figures", conf: conf(2, 2), want: sev(Info),
			contains: []string{"32.3 s expected", "at most 35.2 s", "396.2 s in the worst case", "2 × failover-timeout (360 s)", "ask period"}},
		{name: "within the SLA", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 5000", "sentinel failover-timeout mymaster 10000"),
			sla: time.Minute, want: sev(Info), contains: []string{"within the SLA of 60 s"}},
		{name: "SLA missed: reported as sla-expected instead", conf: conf(2, 2), sla: 10 * time.Second},
	})
}

func TestSLAExpectedRule(t *testing.T) {
	runRuleCases(t, RuleSLAExpected, []ruleCase{
		{name: "default down-after vs 10 s", conf: conf(2, 2), sla: 10 * time.Second, want: sev(Error),
			contains: []string{"about 32.3 s, above the SLA of 10 s", "down-after-milliseconds (30 s)"}},
		{name: "SLA below what Sentinel can do", conf: conf(2, 2), sla: 2 * time.Second, want: sev(Error)},
		{name: "5 s down-after vs 10 s", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 5000"), sla: 10 * time.Second},
		{name: "no SLA", conf: conf(2, 2)},
	})
	// The fix names the largest down-after that fits, or says none does.
	fs := Check(parse(t, conf(2, 2)), nil, Options{SLA: 10 * time.Second})
	if f := find(fs, RuleSLAExpected); f == nil || !contains(f.Fix, "at most 7700") {
		t.Errorf("fix: %+v", f)
	}
	fs = Check(parse(t, conf(2, 2)), nil, Options{SLA: 2 * time.Second})
	if f := find(fs, RuleSLAExpected); f == nil || !contains(f.Fix, "relax the SLA") {
		t.Errorf("fix: %+v", f)
	}
}

func TestSLAWorstRule(t *testing.T) {
	fast := "sentinel down-after-milliseconds mymaster 5000"
	runRuleCases(t, RuleSLAWorst, []ruleCase{
		{name: "default failover-timeout vs 30 s", conf: conf(2, 2, fast), sla: 30 * time.Second, want: sev(Warning),
			contains: []string{"about 7.3 s, within the SLA of 30 s", "371.2 s in the worst case", "2 × failover-timeout (360 s)"}},
		{name: "failover-timeout 9 s vs 30 s", conf: conf(2, 2, fast, "sentinel failover-timeout mymaster 9000"), sla: 30 * time.Second},
		{name: "expected already missed", conf: conf(2, 2), sla: 10 * time.Second},
	})
	fs := Check(parse(t, conf(2, 2, fast)), nil, Options{SLA: 30 * time.Second})
	if f := find(fs, RuleSLAWorst); f == nil || !contains(f.Fix, "at most 9400") {
		t.Errorf("fix: %+v", f)
	}
	fs = Check(parse(t, conf(2, 2, fast)), nil, Options{SLA: 15 * time.Second})
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
