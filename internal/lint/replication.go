package lint

import (
	"fmt"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// suggestedMaxLag is the min-replicas-max-lag (seconds) suggested for a
// master: Redis' default of 10, but no longer than down-after, so that an
// isolated master stops taking writes before the Sentinels replace it.
func suggestedMaxLag(downAfter time.Duration) int {
	return max(1, min(10, int(downAfter/time.Second)))
}

// minReplicasRule reports a master that accepts writes with no replica.
func minReplicasRule(t *target) []Finding {
	if t.live == nil || !t.live.Master.reachable() || t.live.Master.Addr == "" {
		return nil
	}
	m, name := t.live.Master, t.spec.Name
	if !m.MinReplicasKnown {
		return []Finding{t.finding(Info, RuleMinReplicas,
			fmt.Sprintf("min-replicas-to-write of %s (%s) could not be read (CONFIG GET renamed or denied), so whether it accepts writes with no replica was not checked.", name, m.Addr),
			"Allow CONFIG GET to the user of auth-user, or check min-replicas-to-write and min-replicas-max-lag by hand.")}
	}
	if m.MinReplicasToWrite > 0 && m.MinReplicasMaxLag > 0 {
		return nil
	}
	lag := suggestedMaxLag(settings.Duration(t.spec.DownAfterMs))
	return []Finding{t.finding(Warning, RuleMinReplicas,
		fmt.Sprintf("the master %s of %s has min-replicas-to-write %d and min-replicas-max-lag %d, so it accepts writes with no replica: "+
			"when a partition cuts it off with some of its clients, it keeps accepting their writes until the partition heals, however long that is, "+
			"and they are all lost when it rejoins as a replica of the promoted master; with min-replicas-to-write 1 and min-replicas-max-lag %d "+
			"it would stop after about %d s (the lag plus the replicas' once-a-second acknowledgement).",
			m.Addr, name, m.MinReplicasToWrite, m.MinReplicasMaxLag, lag, lag+1),
		fmt.Sprintf("Run `CONFIG SET min-replicas-to-write 1` and `CONFIG SET min-replicas-max-lag %d` on the master and on every replica (any of them may be promoted) "+
			"and put the same lines in their redis.conf; the master then refuses writes (-NOREPLICAS) while no replica has acknowledged for %d s, "+
			"so keep min-replicas-to-write below the number of replicas.", lag, lag))}
}

// promotableRule reports a master none of whose replicas can be promoted.
func promotableRule(t *target) []Finding {
	if t.live == nil || !t.live.known() {
		return nil
	}
	name := t.spec.Name
	rs := t.live.Replicas
	if len(rs) == 0 {
		return []Finding{t.finding(Error, RuleNoPromotableReplica,
			fmt.Sprintf("%s has no replica, so a failover has nothing to promote and ends with -failover-abort-no-good-slave.", name),
			"Add at least one replica (`replicaof <master-ip> <master-port>` in its redis.conf), on another host.")}
	}
	for _, r := range rs {
		if !r.PriorityKnown || r.Priority > 0 {
			return nil
		}
	}
	return []Finding{t.finding(Error, RuleNoPromotableReplica,
		fmt.Sprintf("every replica of %s (%d) has replica-priority 0, which Sentinel never promotes, so a failover ends with -failover-abort-no-good-slave.", name, len(rs)),
		"Give at least one replica a priority above 0: `CONFIG SET replica-priority 100` on it and the same line in its redis.conf (lower values are promoted first).")}
}

// replicaReadOnlyRule reports replicas that accept writes.
func replicaReadOnlyRule(t *target) []Finding {
	if t.live == nil {
		return nil
	}
	var out []Finding
	for _, r := range t.live.Replicas {
		if !r.ReadOnlyKnown || r.ReadOnly {
			continue
		}
		out = append(out, t.finding(Warning, RuleReplicaWritable,
			fmt.Sprintf("the replica %s of %s has replica-read-only no: writes sent to it by mistake (a stale address after a failover, a misrouted client) "+
				"succeed instead of failing with -READONLY, are replicated nowhere and vanish at its next full resync.", r.Addr, t.spec.Name),
			fmt.Sprintf("Run `CONFIG SET replica-read-only yes` on %s and put `replica-read-only yes` in its redis.conf.", r.Addr)))
	}
	return out
}

// known reports whether the probe learned the master's replicas: from a
// Sentinel that monitors it or from the master itself.
func (mf *MasterFacts) known() bool {
	if mf.Master.reachable() && mf.Master.Addr != "" {
		return true
	}
	for _, v := range mf.Views {
		if v.Monitors {
			return true
		}
	}
	return false
}
