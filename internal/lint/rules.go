package lint

// The rule identifiers, stable for machines reading --json.
const (
	// RuleSentinelCount: fewer than 3 Sentinels watch a master.
	RuleSentinelCount = "sentinel-count"
	// RuleQuorumUnreachable: the quorum is above the number of Sentinels.
	RuleQuorumUnreachable = "quorum-unreachable"
	// RuleQuorumBelowMajority: the quorum is below the majority.
	RuleQuorumBelowMajority = "quorum-below-majority"
	// RuleQuorumAll: the quorum equals the number of Sentinels (3 or more).
	RuleQuorumAll = "quorum-all"
	// RuleEvenSentinels: an even number of Sentinels (4 or more).
	RuleEvenSentinels = "even-sentinels"
	// RuleFailoverTiming: the expected and worst-case failover figures.
	RuleFailoverTiming = "failover-timing"
	// RuleSLAExpected: the expected failover is longer than --sla.
	RuleSLAExpected = "sla-expected"
	// RuleSLAWorst: the worst-case failover is longer than --sla.
	RuleSLAWorst = "sla-worst"
	// RuleDownAfterSmall: down-after-milliseconds low enough to fail over
	// a healthy master.
	RuleDownAfterSmall = "down-after-small"
	// RuleFailoverTimeoutSmall: failover-timeout too short for a
	// promotion to be confirmed.
	RuleFailoverTimeoutSmall = "failover-timeout-small"
	// RuleMinReplicas: the master accepts writes with no replica.
	RuleMinReplicas = "min-replicas"
	// RuleNoPromotableReplica: no replica can be promoted.
	RuleNoPromotableReplica = "no-promotable-replica"
	// RuleReplicaWritable: a replica has replica-read-only no.
	RuleReplicaWritable = "replica-writable"
	// RuleCapacity: the master is close to what one instance can serve.
	RuleCapacity = "single-instance-capacity"
	// RuleSentinelUnreachable: a Sentinel given to the probe did not answer.
	RuleSentinelUnreachable = "sentinel-unreachable"
	// RuleNotMonitored: a reachable Sentinel does not monitor the master.
	RuleNotMonitored = "not-monitored"
	// RuleInstanceUnreachable: the master or a replica did not answer.
	RuleInstanceUnreachable = "instance-unreachable"
	// RuleCKQuorum: a Sentinel's CKQUORUM fails right now.
	RuleCKQuorum = "ckquorum"
	// RuleMasterDisagreement: the Sentinels report different masters.
	RuleMasterDisagreement = "master-disagreement"
	// RuleCoordinatedFailoverUnsupported: the master or a replica is older
	// than Redis 6.2 (no FAILOVER, no CLIENT PAUSE ... WRITE).
	RuleCoordinatedFailoverUnsupported = "coordinated-failover-unsupported"
	// RuleCoordinatedFailoverACL: the user Sentinel logs in as may not
	// run, on the master or a replica, the commands a failover sends.
	RuleCoordinatedFailoverACL = "coordinated-failover-acl"
	// RuleProxyFencingOff: a master's proxy forwards with proxy-fencing no.
	RuleProxyFencingOff = "proxy-fencing-off"
	// RuleProxyFenceLate: proxy-fence-after too close to down-after.
	RuleProxyFenceLate = "proxy-fence-late"
	// RuleProxyFenceShort: proxy-fence-after shorter than the PING period
	// allows.
	RuleProxyFenceShort = "proxy-fence-short"
	// RuleProxyMixedFleet: Sentinels of a proxied master that cannot
	// grant its proxy a lease (redis-sentinels).
	RuleProxyMixedFleet = "proxy-mixed-fleet"
	// RuleProxyOpen: a proxy on a non-loopback address in front of
	// instances without a password.
	RuleProxyOpen = "proxy-open"
	// RuleProxyReplicaLagShort: a read port's proxy-replica-max-lag
	// below what its lag measurement can tell apart from a healthy
	// replica.
	RuleProxyReplicaLagShort = "proxy-replica-lag-short"
	// RuleForgetSentinelInert: forget-sentinel-after without voters,
	// which does nothing.
	RuleForgetSentinelInert = "forget-sentinel-inert"
	// RuleVotersBelowSentinels: voters below the number of Sentinels
	// that watch the master.
	RuleVotersBelowSentinels = "voters-below-sentinels"
	// RuleCommandSurface: the command surface the configuration selects
	// is not the one of the data nodes' release.
	RuleCommandSurface = "command-surface"
)
