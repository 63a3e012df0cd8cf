package lint

import (
	"fmt"
	"strings"
)

// The capacity thresholds.
const (
	// MemoryNearMax is the share of maxmemory above which a master is
	// reported.
	MemoryNearMax = 0.8
	// MemoryNearSystem is the share of the host's memory above which a
	// master without maxmemory is reported: a snapshot or full resync
	// forks, and copy-on-write can need as much again.
	MemoryNearSystem = 0.5
	// HighOpsPerSec is the instantaneous_ops_per_sec above which a master
	// is reported: half of what one Redis process typically serves on one
	// core with simple commands.
	HighOpsPerSec = 50000
	// singleInstanceOps is the rough throughput of one Redis process.
	singleInstanceOps = 100000
)

// humanBytes formats n in binary units with one decimal ("1.5 GiB").
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// capacityRule reports a master close to what one instance can hold or
// serve, where a failover is not the answer.
func capacityRule(t *target) []Finding {
	if t.live == nil || !t.live.Master.reachable() || t.live.Master.Addr == "" {
		return nil
	}
	m := t.live.Master
	var why []string
	switch {
	case m.MaxMemory > 0 && float64(m.UsedMemory) >= MemoryNearMax*float64(m.MaxMemory):
		why = append(why, fmt.Sprintf("uses %s of its maxmemory %s (%.0f%%)", humanBytes(m.UsedMemory), humanBytes(m.MaxMemory),
			100*float64(m.UsedMemory)/float64(m.MaxMemory)))
	case m.MaxMemory == 0 && m.TotalSystemMemory > 0 && float64(m.UsedMemory) >= MemoryNearSystem*float64(m.TotalSystemMemory):
		why = append(why, fmt.Sprintf("uses %s, %.0f%% of its host's %s, with no maxmemory", humanBytes(m.UsedMemory),
			100*float64(m.UsedMemory)/float64(m.TotalSystemMemory), humanBytes(m.TotalSystemMemory)))
	}
	if m.OpsPerSec >= HighOpsPerSec {
		why = append(why, fmt.Sprintf("serves %d ops/s, close to the ~%d simple commands per second one Redis process serves on its one core",
			m.OpsPerSec, singleInstanceOps))
	}
	if len(why) == 0 {
		return nil
	}
	return []Finding{t.finding(Warning, RuleCapacity,
		fmt.Sprintf("the master %s of %s %s: Sentinel adds no sharding — a failover moves the same data and load to a replica with the same limits.",
			m.Addr, t.spec.Name, strings.Join(why, " and ")),
		"Shard the data: Redis Cluster splits the keyspace across several masters and fails over by itself, with no Sentinel; "+
			"raising maxmemory only helps if the host keeps room for the fork of a snapshot or a full resync.")}
}
