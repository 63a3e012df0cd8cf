package lint

import "testing"

func TestReadRules(t *testing.T) {
	const (
		rp  = "sentinel proxy-replicas mymaster 127.0.0.1 6381"
		pub = "sentinel proxy-replicas mymaster 10.0.0.1 6381"
	)
	runRuleCases(t, RuleProxyReplicaLagShort, []ruleCase{
		{name: "no read port", conf: conf(2, 2, "sentinel proxy-replica-max-lag mymaster 1000")},
		{name: "default", conf: conf(2, 2, rp)},
		{name: "no lag check", conf: conf(2, 2, rp, "sentinel proxy-replica-max-lag mymaster 0")},
		{name: "short", conf: conf(2, 2, rp, "sentinel proxy-replica-max-lag mymaster 1500"), want: sev(Warning),
			contains: []string{"proxy-replica-max-lag 1500 ms", "about 2 s"}, fix: []string{"proxy-replica-max-lag 3000"}},
	})
	runRuleCases(t, RuleProxyOpen, []ruleCase{
		{name: "loopback", conf: conf(2, 2, rp)},
		{name: "remote, protected", conf: conf(2, 2, pub), want: sev(Info), contains: []string{"read port", "10.0.0.1 6381", "protected mode"}},
		{name: "remote, opted out", conf: conf(2, 2, pub, "sentinel proxy-protected-mode mymaster no"), want: sev(Warning),
			contains: []string{"from any host"}, fix: []string{"auth-pass"}},
		{name: "remote with a password", conf: conf(2, 2, pub, "sentinel auth-pass mymaster secret")},
	})
}
