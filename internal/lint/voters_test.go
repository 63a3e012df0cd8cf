package lint

import "testing"

func TestVotersRules(t *testing.T) {
	const (
		fsa    = "sentinel forget-sentinel-after mymaster 5000"
		voters = "sentinel voters mymaster 3"
	)
	runRuleCases(t, RuleForgetSentinelInert, []ruleCase{
		{name: "neither", conf: conf(2, 2)},
		{name: "with voters", conf: conf(2, 2, fsa, voters)},
		{name: "without voters", conf: conf(2, 2, fsa), want: sev(Warning),
			contains: []string{"forget-sentinel-after 5000 ms", "does nothing"}, fix: []string{"voters 3"}},
	})
	runRuleCases(t, RuleVotersBelowSentinels, []ruleCase{
		{name: "no voters", conf: conf(2, 4)},
		{name: "equal", conf: conf(2, 2, voters)},
		{name: "above", conf: conf(2, 1, voters)},
		{name: "below the known", conf: conf(2, 4, voters), want: sev(Warning),
			contains: []string{"voters 3", "below the 5 Sentinels"}, fix: []string{"voters 5", "raise voters first"}},
	})
}
