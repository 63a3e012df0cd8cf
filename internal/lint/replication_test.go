package lint

import "testing"

func TestMinReplicasRule(t *testing.T) {
	none := goodMaster()
	none.MinReplicasToWrite = 0
	noLag := goodMaster()
	noLag.MinReplicasMaxLag = 0
	unknown := goodMaster()
	unknown.MinReplicasKnown = false
	down := goodMaster()
	down.Err = "connection refused"
	runRuleCases(t, RuleMinReplicas, []ruleCase{
		{name: "min-replicas-to-write 0", conf: conf(2, 2), facts: fleet(3, none, goodReplica(6380)), want: sev(Warning),
			contains: []string{"min-replicas-to-write 0", "until the partition heals", "lost", "about 11 s"}},
		{name: "min-replicas-max-lag 0", conf: conf(2, 2), facts: fleet(3, noLag, goodReplica(6380)), want: sev(Warning)},
		{name: "lag suggestion follows a short down-after", conf: conf(2, 2, "sentinel down-after-milliseconds mymaster 3000"),
			facts: fleet(3, none, goodReplica(6380)), want: sev(Warning), contains: []string{"min-replicas-max-lag 3", "about 4 s"}},
		{name: "not readable", conf: conf(2, 2), facts: fleet(3, unknown, goodReplica(6380)), want: sev(Info)},
		{name: "set", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
		{name: "master unreachable", conf: conf(2, 2), facts: fleet(3, down, goodReplica(6380))},
		{name: "static", conf: conf(2, 2)},
	})
}

func TestNoPromotableReplicaRule(t *testing.T) {
	zero := func(port int) Instance {
		r := goodReplica(port)
		r.Priority = 0
		return r
	}
	unknown := goodReplica(6381)
	unknown.PriorityKnown = false
	runRuleCases(t, RuleNoPromotableReplica, []ruleCase{
		{name: "all priority 0", conf: conf(2, 2), facts: fleet(3, goodMaster(), zero(6380), zero(6381)), want: sev(Error),
			contains: []string{"every replica of mymaster (2) has replica-priority 0", "-failover-abort-no-good-slave"}},
		{name: "no replica", conf: conf(2, 2), facts: fleet(3, goodMaster()), want: sev(Error), contains: []string{"has no replica"}},
		{name: "one promotable", conf: conf(2, 2), facts: fleet(3, goodMaster(), zero(6380), goodReplica(6381))},
		{name: "one unknown", conf: conf(2, 2), facts: fleet(3, goodMaster(), zero(6380), unknown)},
		{name: "static", conf: conf(2, 2)},
	})
}

func TestReplicaWritableRule(t *testing.T) {
	writable := goodReplica(6381)
	writable.ReadOnly = false
	runRuleCases(t, RuleReplicaWritable, []ruleCase{
		{name: "replica-read-only no", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380), writable), want: sev(Warning),
			contains: []string{"127.0.0.1:6381", "replica-read-only no"}},
		{name: "read-only", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380), goodReplica(6381))},
	})
}

func TestCapacityRule(t *testing.T) {
	full := goodMaster()
	full.MaxMemory, full.UsedMemory = 2<<30, 1900<<20
	noLimit := goodMaster()
	noLimit.UsedMemory = 10 << 30
	busy := goodMaster()
	busy.OpsPerSec = 80000
	roomy := goodMaster()
	roomy.MaxMemory, roomy.UsedMemory = 2<<30, 1<<30
	runRuleCases(t, RuleCapacity, []ruleCase{
		{name: "near maxmemory", conf: conf(2, 2), facts: fleet(3, full, goodReplica(6380)), want: sev(Warning),
			contains: []string{"1.9 GiB of its maxmemory 2.0 GiB (93%)", "Sentinel adds no sharding"}},
		{name: "most of the host without maxmemory", conf: conf(2, 2), facts: fleet(3, noLimit, goodReplica(6380)), want: sev(Warning),
			contains: []string{"62% of its host's 16.0 GiB"}},
		{name: "high throughput", conf: conf(2, 2), facts: fleet(3, busy, goodReplica(6380)), want: sev(Warning),
			contains: []string{"80000 ops/s"}},
		{name: "half of maxmemory", conf: conf(2, 2), facts: fleet(3, roomy, goodReplica(6380))},
		{name: "small", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
	})
	// The fix points at Redis Cluster.
	fs := Check(parse(t, conf(2, 2)), fleet(3, busy, goodReplica(6380)), Options{})
	if f := find(fs, RuleCapacity); f == nil || !contains(f.Fix, "Redis Cluster") || !contains(f.Fix, "fails over by itself") {
		t.Errorf("fix: %+v", f)
	}
}
