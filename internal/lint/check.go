package lint

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// Options tune Check.
type Options struct {
	// SLA is the longest write unavailability a failover may cause; 0
	// means none was given (the timing figures are then only reported).
	SLA time.Duration
}

// target is one master being checked: its configuration, what the probe
// learned about it (nil for a static check) and the Sentinel count the
// rules use.
type target struct {
	spec monitor.MasterSpec
	live *MasterFacts
	opts Options
	// sentinels is the number of Sentinels watching the master, counting
	// the one whose configuration this is.
	sentinels int
	// liveCount tells whether sentinels comes from the running Sentinels
	// rather than from the file's known-sentinel lines.
	liveCount bool
}

// rule is one check on one master.
type rule func(t *target) []Finding

// masterRules are run for every master, in this order (the order findings
// of the same severity are printed in).
var masterRules = []rule{
	sentinelCountRule,
	quorumRules,
	evenCountRule,
	liveViewRules,
	promotableRule,
	minReplicasRule,
	replicaReadOnlyRule,
	coordinatedFailoverRules,
	capacityRule,
	timingRule,
	downAfterSmallRule,
	failoverTimeoutSmallRule,
}

// Check runs every rule on every master of cfg and returns the findings,
// sorted (see Sort). facts is nil for a static check; with facts the
// Sentinel count comes from the running Sentinels and the rules that need
// the instances (min-replicas, replica settings, capacity, reachability,
// the server version and ACL a failover needs) run too.
func Check(cfg *config.Config, facts *Facts, opts Options) []Finding {
	var out []Finding
	if facts != nil {
		out = append(out, sentinelReachabilityRule(facts)...)
	}
	for _, m := range cfg.Sentinel.Masters {
		t := &target{spec: m, opts: opts, sentinels: len(m.KnownSentinels) + 1}
		if facts != nil {
			if mf, ok := facts.Masters[m.Name]; ok {
				t.live = &mf
				if n := liveSentinelCount(mf); n > 0 {
					t.sentinels, t.liveCount = n, true
				}
			}
		}
		for _, r := range masterRules {
			out = append(out, r(t)...)
		}
	}
	Sort(out)
	return out
}

// liveSentinelCount is the number of distinct Sentinels the reachable
// Sentinels know for a master: their own ids plus the ids they list, or 0
// when no reachable Sentinel monitors it.
func liveSentinelCount(mf MasterFacts) int {
	ids := map[string]bool{}
	for _, v := range mf.Views {
		if !v.Monitors {
			continue
		}
		ids[v.ID] = true
		for _, o := range v.Others {
			ids[o] = true
		}
	}
	return len(ids)
}

// finding builds a Finding about t's master.
func (t *target) finding(sev Severity, rule, reason, fix string) Finding {
	return Finding{Severity: sev, Rule: rule, Master: t.spec.Name, Reason: reason, Fix: fix}
}
