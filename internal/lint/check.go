package lint

import (
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Options tune Check.
type Options struct {
	// SLA is the longest write unavailability a failover may cause; 0
	// means none was given (the timing figures are then only reported).
	SLA time.Duration
	// RedisSentinels, when not nil, is how many of each master's
	// Sentinels run redis-sentinel (or any Sentinel but go-sentinel), for
	// the failover estimate; it replaces what the probe found. When nil,
	// a static check takes every Sentinel for a go-sentinel and a live
	// one asks each Sentinel's INFO (Facts.Impls).
	RedisSentinels *int
}

// target is one master being checked: its configuration, what the probe
// learned about it (nil for a static check) and the Sentinel count the
// rules use.
type target struct {
	spec settings.MasterSpec
	live *MasterFacts
	opts Options
	// sentinels is the number of Sentinels watching the master, counting
	// the one whose configuration this is.
	sentinels int
	// liveCount tells whether sentinels comes from the running Sentinels
	// rather than from the file's known-sentinel lines.
	liveCount bool
	// votersCount tells whether sentinels is the master's `sentinel
	// voters`, above what the file's known-sentinel lines count.
	votersCount bool
	// fleet is the Sentinels by implementation and the quorum, for the
	// failover estimate; unknownImpl counts the Sentinels the probe could
	// not tell (counted as go-sentinels in fleet).
	fleet       Fleet
	unknownImpl int
	// surface is the command surface the configuration selects.
	surface commands.Surface
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
	proxyRules,
	readRules,
	votersRules,
	commandSurfaceRule,
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
		t := &target{spec: m, opts: opts, sentinels: len(m.KnownSentinels) + 1, surface: cfg.CommandSurface}
		if m.Voters > t.sentinels {
			// `sentinel voters` declares how many Sentinels watch the
			// master; a file shared by all of them (a Kubernetes
			// ConfigMap) cannot list the others' myids.
			t.sentinels, t.votersCount = m.Voters, true
		}
		if facts != nil {
			if mf, ok := facts.Masters[m.Name]; ok {
				t.live = &mf
				if n := liveSentinelCount(mf); n > 0 {
					t.sentinels, t.liveCount = n, true
				}
			}
		}
		t.fleet, t.unknownImpl = fleetOf(t, facts)
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
func liveSentinelCount(mf MasterFacts) int { return len(liveSentinelIDs(mf)) }

// liveSentinelIDs is the set of those Sentinels' run ids, lower case.
func liveSentinelIDs(mf MasterFacts) map[string]bool {
	ids := map[string]bool{}
	for _, v := range mf.Views {
		if !v.Monitors {
			continue
		}
		ids[strings.ToLower(v.ID)] = true
		for _, o := range v.Others {
			ids[strings.ToLower(o)] = true
		}
	}
	return ids
}

// fleetOf is the fleet of t's master: its Sentinel count split by
// implementation (Options.RedisSentinels, else what Facts.Impls says of
// the live Sentinels, else all go-sentinels) and its quorum. unknown
// counts the live Sentinels whose implementation is not known, which the
// fleet counts as go-sentinels.
func fleetOf(t *target, facts *Facts) (f Fleet, unknown int) {
	f = Fleet{Go: t.sentinels, Quorum: t.spec.Quorum}
	switch {
	case t.opts.RedisSentinels != nil:
		f.Redis = min(max(*t.opts.RedisSentinels, 0), t.sentinels)
	case t.liveCount:
		for id := range liveSentinelIDs(*t.live) {
			switch facts.Impls[id] {
			case ImplRedis:
				f.Redis++
			case ImplUnknown:
				unknown++
			}
		}
	}
	f.Go = t.sentinels - f.Redis
	return f, unknown
}

// finding builds a Finding about t's master.
func (t *target) finding(sev Severity, rule, reason, fix string) Finding {
	return Finding{Severity: sev, Rule: rule, Master: t.spec.Name, Reason: reason, Fix: fix}
}
