package lint

import (
	"fmt"
	"slices"
	"strings"
)

// sentinelReachabilityRule reports the Sentinels given to the probe that
// did not answer.
func sentinelReachabilityRule(f *Facts) []Finding {
	var out []Finding
	for _, s := range f.Sentinels {
		if s.Err == "" {
			continue
		}
		out = append(out, Finding{Severity: Warning, Rule: RuleSentinelUnreachable,
			Reason: fmt.Sprintf("Sentinel %s did not answer (%s), so the live checks count only the Sentinels that did.", s.Addr, s.Err),
			Fix:    "Check that it runs and that this host reaches it; check uses this file's sentinel-user/sentinel-pass (or requirepass) to log in."})
	}
	return out
}

// liveViewRules compare what the reachable Sentinels say about a master
// and report the instances that did not answer.
func liveViewRules(t *target) []Finding {
	if t.live == nil {
		return nil
	}
	name := t.spec.Name
	var out []Finding
	addrs := map[string][]string{}
	for _, v := range t.live.Views {
		if !v.Monitors {
			out = append(out, t.finding(Warning, RuleNotMonitored,
				fmt.Sprintf("Sentinel %s does not monitor %s, so it takes no part in detecting its failure or authorising its failover.", v.Sentinel, name),
				fmt.Sprintf("Run `SENTINEL MONITOR %s <ip> <port> <quorum>` on it, or leave it out of --sentinels if it belongs to another fleet.", name)))
			continue
		}
		addrs[v.MasterAddr] = append(addrs[v.MasterAddr], v.Sentinel)
		if !v.CKQuorumOK {
			out = append(out, t.finding(Error, RuleCKQuorum,
				fmt.Sprintf("Sentinel %s answers CKQUORUM %s with %q, so if the master failed now it would not be failed over.", v.Sentinel, name, v.CKQuorum),
				fmt.Sprintf("Bring back the Sentinels it cannot reach (`SENTINEL SENTINELS %s` on it shows which are down); "+
					"a Sentinel removed for good keeps counting as a voter until `SENTINEL RESET %s` is run on every Sentinel, one at a time.", name, name)))
		}
	}
	if len(addrs) > 1 {
		var parts []string
		for a, ss := range addrs {
			parts = append(parts, fmt.Sprintf("%s says %s", strings.Join(ss, ", "), a))
		}
		slices.Sort(parts)
		out = append(out, t.finding(Error, RuleMasterDisagreement,
			fmt.Sprintf("the Sentinels disagree on the master of %s (%s), so clients asking different Sentinels write to different servers.", name, strings.Join(parts, "; ")),
			fmt.Sprintf("Compare `SENTINEL MASTER %s` (config-epoch) on each: the one with the older epoch has missed a failover and should catch up from the others' "+
				"hello messages; if it does not, it cannot reach them or the instances (network, credentials).", name)))
	}
	unreachable := func(kind string, i Instance) {
		if i.reachable() || i.Addr == "" {
			return
		}
		out = append(out, t.finding(Warning, RuleInstanceUnreachable,
			fmt.Sprintf("the %s %s of %s did not answer (%s), so the checks that need it were skipped.", kind, i.Addr, name, i.Err),
			fmt.Sprintf("Check that it runs and that this host reaches it; check logs in with %s's auth-user/auth-pass from this file.", name)))
	}
	unreachable("master", t.live.Master)
	for _, r := range t.live.Replicas {
		unreachable("replica", r)
	}
	return out
}
