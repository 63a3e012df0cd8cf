package lint

import "testing"

func TestSentinelCountRule(t *testing.T) {
	runRuleCases(t, RuleSentinelCount, []ruleCase{
		{name: "two sentinels from the file", conf: conf(2, 1), want: sev(Error),
			contains: []string{"only 2 Sentinels", "majority of 2", "host with the master and one Sentinel dies"}},
		{name: "one sentinel, fresh file", conf: conf(1, 0), want: sev(Error), contains: []string{"only 1 Sentinel", "majority of 1"}},
		{name: "three sentinels from the file", conf: conf(2, 2)},
		{name: "fresh file but three running", conf: conf(2, 0), facts: fleet(3, goodMaster(), goodReplica(6380))},
		{name: "file knows three but two running", conf: conf(2, 2), facts: fleet(2, goodMaster(), goodReplica(6380)),
			want: sev(Error), contains: []string{"as the running Sentinels report", "majority of 2"}},
		{name: "fresh file, voters 3", conf: conf(2, 0, "sentinel voters mymaster 3")},
		{name: "fresh file, voters 2", conf: conf(2, 0, "sentinel voters mymaster 2"), want: sev(Error),
			contains: []string{"only 2 Sentinels", "as its `sentinel voters` declares"}},
		{name: "the file knows more than voters", conf: conf(2, 1, "sentinel voters mymaster 1"), want: sev(Error),
			contains: []string{"only 2 Sentinels", "known-sentinel` lines"}},
	})
}

func TestQuorumUnreachableRule(t *testing.T) {
	runRuleCases(t, RuleQuorumUnreachable, []ruleCase{
		{name: "quorum 3 of 2", conf: conf(3, 1), want: sev(Error), contains: []string{"quorum 3", "only 2", "ODOWN"}},
		{name: "debian default: quorum 2, fresh file", conf: conf(2, 0), want: sev(Error)},
		{name: "quorum 2, fresh file, voters 3", conf: conf(2, 0, "sentinel voters mymaster 3")},
		{name: "quorum 3 of 3", conf: conf(3, 2)},
		{name: "quorum 2 of 3", conf: conf(2, 2)},
	})
}

func TestQuorumBelowMajorityRule(t *testing.T) {
	runRuleCases(t, RuleQuorumBelowMajority, []ruleCase{
		{name: "quorum 1 of 3", conf: conf(1, 2), want: sev(Warning),
			contains: []string{"below the majority of 2", "detection is easier than authorisation", "first candidate that asks"}},
		{name: "quorum 2 of 5", conf: conf(2, 4), want: sev(Warning), contains: []string{"majority of 3 (of 5 Sentinels)"}},
		{name: "quorum 2 of 3", conf: conf(2, 2)},
		{name: "quorum 3 of 5", conf: conf(3, 4)},
	})
}

func TestQuorumAllRule(t *testing.T) {
	runRuleCases(t, RuleQuorumAll, []ruleCase{
		{name: "quorum 3 of 3", conf: conf(3, 2), want: sev(Warning), contains: []string{"all 3 must see mymaster down"}},
		{name: "quorum 2 of 3", conf: conf(2, 2)},
		{name: "quorum 2 of 2 is a sentinel-count error instead", conf: conf(2, 1)},
	})
}

func TestEvenSentinelsRule(t *testing.T) {
	runRuleCases(t, RuleEvenSentinels, []ruleCase{
		{name: "four", conf: conf(3, 3), want: sev(Warning), contains: []string{"4 Sentinels", "majority is 3", "two halves of 2"}},
		{name: "six live", conf: conf(4, 2), facts: fleet(6, goodMaster(), goodReplica(6380)), want: sev(Warning)},
		{name: "three", conf: conf(2, 2)},
		{name: "five", conf: conf(3, 4)},
		{name: "two is reported as sentinel-count", conf: conf(2, 1)},
	})
}

func TestQuorumUnreachableFix(t *testing.T) {
	if f := find(Check(parse(t, conf(4, 2)), nil, Options{}), RuleQuorumUnreachable); f == nil || !contains(f.Fix, "Lower the quorum to 2, the majority of 3") {
		t.Errorf("3 Sentinels, quorum 4: %+v", f)
	}
	if f := find(Check(parse(t, conf(2, 0)), nil, Options{}), RuleQuorumUnreachable); f == nil || !contains(f.Fix, "Run more Sentinels") {
		t.Errorf("1 Sentinel, quorum 2: %+v", f)
	}
}
