package lint

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// MinProxyReplicaMaxLagMs is the shortest proxy-replica-max-lag check
// accepts: the lag the read port measures errs high by up to about 2 s
// (replicas acknowledge once a second, and the master's INFO comes once
// a second), so a shorter max-lag drops healthy replicas by turns.
const MinProxyReplicaMaxLagMs = 3000

// readRules report a read port (`sentinel proxy-replicas`) whose max-lag
// drops healthy replicas, or that opens the replicas wider than they are
// without it.
func readRules(t *target) []Finding {
	s := t.spec
	if len(s.ProxyReplicas) == 0 {
		return nil
	}
	var out []Finding
	if lag := s.ProxyReplicaMaxLagMs; lag > 0 && lag < MinProxyReplicaMaxLagMs {
		out = append(out, t.finding(Warning, RuleProxyReplicaLagShort,
			fmt.Sprintf("proxy-replica-max-lag %d ms for %s is below %d ms: the lag the read port measures is up to about 2 s for a healthy replica "+
				"(acknowledgements and INFO come once a second), so it stops and starts serving healthy replicas by turns and cuts their connections.",
				lag, s.Name, MinProxyReplicaMaxLagMs),
			fmt.Sprintf("`SENTINEL SET %s proxy-replica-max-lag %d` or more (the default is %d).", s.Name, MinProxyReplicaMaxLagMs, settings.DefaultProxyReplicaMaxLagMs)))
	}
	out = append(out, proxyOpenRule(t, s.ProxyReplicas, "the read port")...)
	return out
}
