package settings

// The names of a master's options, one spelling for every place that
// names one: its config directive (`sentinel <option> <master> <value>`),
// SENTINEL SET, SENTINEL MASTER's fields, and `check`'s report.
const (
	OptionQuorum               = "quorum"
	OptionDownAfter            = "down-after-milliseconds"
	OptionFailoverTimeout      = "failover-timeout"
	OptionParallelSyncs        = "parallel-syncs"
	OptionNotificationScript   = "notification-script"
	OptionClientReconfigScript = "client-reconfig-script"
	OptionAuthPass             = "auth-pass"
	OptionAuthUser             = "auth-user"
	OptionRenameCommand        = "rename-command"
	OptionRebootDownAfter      = "master-reboot-down-after-period"
	// OptionRebootDownAfterAlias is Redis 7.2's name for
	// OptionRebootDownAfter, accepted wherever it is.
	OptionRebootDownAfterAlias = "primary-reboot-down-after-period"

	// The master-following proxy's options (go-sentinel extensions).
	OptionProxy              = "proxy"
	OptionProxyFenceAfter    = "proxy-fence-after"
	OptionProxyHold          = "proxy-hold"
	OptionProxyFencing       = "proxy-fencing"
	OptionProxyProtectedMode = "proxy-protected-mode"

	// The read port's options (go-sentinel extensions, issue 33): the
	// addresses that spread connections over the master's replicas, the
	// most replication lag a replica served has, whether a replica with
	// replica-priority 0 is served, and whether the master serves when no
	// replica qualifies.
	OptionProxyReplicas             = "proxy-replicas"
	OptionProxyReplicaMaxLag        = "proxy-replica-max-lag"
	OptionProxyReplicasPriorityZero = "proxy-replicas-priority-zero"
	OptionProxyReplicasFallback     = "proxy-replicas-fallback"

	// OptionForgetReplicaAfter is go-sentinel's extension: forget a
	// replica unreachable for that long that its master no longer lists.
	OptionForgetReplicaAfter = "forget-replica-after"

	// OptionVoters and OptionForgetSentinelAfter are go-sentinel's
	// extensions: the voters floor of a leader's majority, and forgetting
	// a known Sentinel not heard from for that long (only with voters).
	OptionVoters              = "voters"
	OptionForgetSentinelAfter = "forget-sentinel-after"
)
