package lint

import (
	"testing"
)

func TestSentinelUnreachableRule(t *testing.T) {
	f := fleet(3, goodMaster(), goodReplica(6380))
	f.Sentinels = append(f.Sentinels, SentinelFacts{Addr: "127.0.0.1:1", Err: "connection refused"})
	fs := Check(parse(t, conf(2, 2)), f, Options{})
	got := find(fs, RuleSentinelUnreachable)
	if got == nil || got.Severity != Warning || got.Master != "" || !contains(got.Reason, "127.0.0.1:1 did not answer (connection refused)") {
		t.Fatalf("got %+v", got)
	}
	if g := find(Check(parse(t, conf(2, 2)), fleet(3, goodMaster(), goodReplica(6380)), Options{}), RuleSentinelUnreachable); g != nil {
		t.Fatalf("all reachable: %+v", g)
	}
}

func TestNotMonitoredRule(t *testing.T) {
	f := fleet(3, goodMaster(), goodReplica(6380))
	mf := f.Masters["mymaster"]
	mf.Views = append(mf.Views, SentinelView{Sentinel: "127.0.0.1:26999"})
	f.Masters["mymaster"] = mf
	runRuleCases(t, RuleNotMonitored, []ruleCase{
		{name: "one sentinel does not monitor", conf: conf(2, 2), facts: f, want: sev(Warning), contains: []string{"127.0.0.1:26999 does not monitor mymaster"}},
		{name: "all monitor", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
	})
}

func TestCKQuorumRule(t *testing.T) {
	f := fleet(3, goodMaster(), goodReplica(6380))
	mf := f.Masters["mymaster"]
	mf.Views[0].CKQuorumOK = false
	mf.Views[0].CKQuorum = "NOQUORUM 1 usable Sentinels. Not enough available Sentinels to reach the majority and authorize a failover"
	f.Masters["mymaster"] = mf
	runRuleCases(t, RuleCKQuorum, []ruleCase{
		{name: "noquorum", conf: conf(2, 2), facts: f, want: sev(Error), contains: []string{"NOQUORUM 1 usable", "would not be failed over"}},
		{name: "ok", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
	})
}

func TestMasterDisagreementRule(t *testing.T) {
	f := fleet(3, goodMaster(), goodReplica(6380))
	mf := f.Masters["mymaster"]
	mf.Views[2].MasterAddr = "127.0.0.1:6380"
	f.Masters["mymaster"] = mf
	runRuleCases(t, RuleMasterDisagreement, []ruleCase{
		{name: "one sentinel behind", conf: conf(2, 2), facts: f, want: sev(Error),
			contains: []string{"127.0.0.1:26381 says 127.0.0.1:6380", "127.0.0.1:26379, 127.0.0.1:26380 says 127.0.0.1:6379"}},
		{name: "agree", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
	})
}

func TestInstanceUnreachableRule(t *testing.T) {
	down := goodReplica(6381)
	down.Err = "dial tcp 127.0.0.1:6381: connect: connection refused"
	runRuleCases(t, RuleInstanceUnreachable, []ruleCase{
		{name: "replica down", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380), down), want: sev(Warning),
			contains: []string{"the replica 127.0.0.1:6381 of mymaster did not answer"}},
		{name: "all up", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
	})
}

// TestCleanTopology is the configuration and fleet the rules are happy
// with: only the timing figures are reported.
func TestCleanTopology(t *testing.T) {
	fs := Check(parse(t, conf(2, 2, "sentinel down-after-milliseconds mymaster 5000", "sentinel failover-timeout mymaster 9000")),
		fleet(3, goodMaster(), goodReplica(6380), goodReplica(6381)), Options{SLA: 30e9})
	if len(fs) != 1 || fs[0].Rule != RuleFailoverTiming || ExitCode(fs) != 0 {
		t.Fatalf("got %+v", fs)
	}
}
