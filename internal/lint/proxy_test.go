package lint

import "testing"

func TestProxyRules(t *testing.T) {
	const (
		px  = "sentinel proxy mymaster 127.0.0.1 6380"
		da  = "sentinel down-after-milliseconds mymaster 5000"
		pub = "sentinel proxy mymaster 10.0.0.1 6380"
	)
	runRuleCases(t, RuleProxyFencingOff, []ruleCase{
		{name: "no proxy", conf: conf(2, 2, "sentinel proxy-fencing mymaster no")},
		{name: "fencing on", conf: conf(2, 2, px, da)},
		{name: "fencing off", conf: conf(2, 2, px, da, "sentinel proxy-fencing mymaster no"), want: sev(Warning),
			contains: []string{"proxy-fencing no", "both masters take writes"}, fix: []string{"proxy-fencing yes"}},
	})
	runRuleCases(t, RuleProxyFenceLate, []ruleCase{
		{name: "default 2000 below 5000", conf: conf(2, 2, px, da)},
		{name: "default 2000 against 2400", conf: conf(2, 2, px, "sentinel down-after-milliseconds mymaster 2400"), want: sev(Warning),
			contains: []string{"proxy-fence-after 2000 ms", "down-after-milliseconds (2400 ms)"}, fix: []string{"proxy-fence-after 1900"}},
		{name: "within the margin", conf: conf(2, 2, px, da, "sentinel proxy-fence-after mymaster 4800"), want: sev(Warning)},
		{name: "above down-after", conf: conf(2, 2, px, "sentinel down-after-milliseconds mymaster 3000", "sentinel proxy-fence-after mymaster 4000"), want: sev(Warning)},
		{name: "fencing off reported as such", conf: conf(2, 2, px, da, "sentinel proxy-fence-after mymaster 4800", "sentinel proxy-fencing mymaster no")},
	})
	runRuleCases(t, RuleProxyFenceShort, []ruleCase{
		{name: "default", conf: conf(2, 2, px, da)},
		{name: "below the PING period", conf: conf(2, 2, px, da, "sentinel proxy-fence-after mymaster 500"), want: sev(Warning),
			contains: []string{"proxy-fence-after 500 ms", "once a second"}, fix: []string{"proxy-fence-after 2000"}},
	})
	runRuleCases(t, RuleProxyOpen, []ruleCase{
		{name: "loopback", conf: conf(2, 2, px, da)},
		{name: "remote, protected", conf: conf(2, 2, pub, da), want: sev(Info), contains: []string{"10.0.0.1 6380", "protected mode"}},
		{name: "remote, opted out", conf: conf(2, 2, pub, da, "sentinel proxy-protected-mode mymaster no"), want: sev(Warning),
			contains: []string{"from any host"}, fix: []string{"auth-pass"}},
		{name: "remote with a password", conf: conf(2, 2, pub, da, "sentinel auth-pass mymaster secret", "sentinel proxy-protected-mode mymaster no")},
	})
}

// TestProxyMixedFleetRule: redis-sentinels among a proxied master's
// Sentinels never grant leases: a warning while the go-sentinels still
// make a majority, an error when they cannot.
func TestProxyMixedFleetRule(t *testing.T) {
	const (
		px = "sentinel proxy mymaster 127.0.0.1 6380"
		da = "sentinel down-after-milliseconds mymaster 5000"
	)
	mixed := func(without ...int) *Facts {
		f := fleet(3, goodMaster(), goodReplica(6380))
		mf := f.Masters["mymaster"]
		for _, k := range without {
			mf.Views[k].NoLease = true
		}
		f.Masters["mymaster"] = mf
		return f
	}
	runRuleCases(t, RuleProxyMixedFleet, []ruleCase{
		{name: "all go-sentinels", conf: conf(2, 2, px, da), facts: mixed()},
		{name: "no proxy", conf: conf(2, 2, da), facts: mixed(1, 2)},
		{name: "one redis-sentinel", conf: conf(2, 2, px, da), facts: mixed(2), want: sev(Warning),
			contains: []string{"1 of the 3 Sentinels", "127.0.0.1:26381", "2 of the 2 go-sentinels", "No two proxies forward to two masters"}},
		{name: "two redis-sentinels", conf: conf(2, 2, px, da), facts: mixed(1, 2), want: sev(Error), contains: []string{"it never forwards"}},
		{name: "fencing off", conf: conf(2, 2, px, da, "sentinel proxy-fencing mymaster no"), facts: mixed(1, 2)},
	})
}
