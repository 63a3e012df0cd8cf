package event

// Type is the type of a Sentinel event: both its log prefix and its
// pub/sub channel, as Redis names them (`+sdown`). Every type the core
// emits is one of the constants below; adapters, metrics and the
// simulator match on them, never on string literals.
type Type string

// The event types, grouped by what they are about.
const (
	// Configuration of the masters monitored.
	Monitor     Type = "+monitor"
	Unmonitor   Type = "-monitor"
	Set         Type = "+set"
	ResetMaster Type = "+reset-master"

	// Discovery.
	// ReplicaMerged is go-sentinel's extension: a replica entry a
	// master's INFO added by IP was found to be the entry stored by the
	// hostname that now resolves to that IP, and was dropped (internal/monitor/addresses.go).
	ReplicaMerged         Type = "-slave-merged"
	Replica               Type = "+slave"
	Sentinel              Type = "+sentinel"
	SentinelAddressSwitch Type = "+sentinel-address-switch"
	SentinelInvalidAddr   Type = "+sentinel-invalid-addr"
	SentinelAddressUpdate Type = "+sentinel-address-update"
	// ReplicaForgotten is go-sentinel's extension: a replica
	// unreachable for longer than forget-replica-after, that its master
	// no longer lists, was forgotten (internal/monitor/forget.go).
	ReplicaForgotten Type = "-slave"
	// SentinelForgotten is go-sentinel's extension: a known Sentinel
	// not heard from for longer than forget-sentinel-after, with a voters
	// floor set, was forgotten (internal/monitor/forget_sentinel.go).
	SentinelForgotten Type = "-sentinel"

	// Health and links.
	SDown                  Type = "+sdown"
	SDownEnd               Type = "-sdown"
	ODown                  Type = "+odown"
	ODownEnd               Type = "-odown"
	Tilt                   Type = "+tilt"
	TiltEnd                Type = "-tilt"
	Reboot                 Type = "+reboot"
	RoleChange             Type = "+role-change"
	RoleChangeUnexpected   Type = "-role-change"
	CmdLinkReconnection    Type = "-cmd-link-reconnection"
	PubSubLinkReconnection Type = "-pubsub-link-reconnection"

	// Epochs and the election.
	NewEpoch      Type = "+new-epoch"
	VoteForLeader Type = "+vote-for-leader"
	TryFailover   Type = "+try-failover"
	ElectedLeader Type = "+elected-leader"

	// The failover this Sentinel leads.
	StateSelectSlave       Type = "+failover-state-select-slave"
	SelectedSlave          Type = "+selected-slave"
	StateSendSlaveofNoone  Type = "+failover-state-send-slaveof-noone"
	StateWaitPromotion     Type = "+failover-state-wait-promotion"
	PromotedSlave          Type = "+promoted-slave"
	StateReconfSlaves      Type = "+failover-state-reconf-slaves"
	SlaveReconfSent        Type = "+slave-reconf-sent"
	SlaveReconfSentBE      Type = "+slave-reconf-sent-be"
	SlaveReconfSentTimeout Type = "-slave-reconf-sent-timeout"
	SlaveReconfInprog      Type = "+slave-reconf-inprog"
	SlaveReconfDone        Type = "+slave-reconf-done"
	FailoverEnd            Type = "+failover-end"
	FailoverEndForTimeout  Type = "+failover-end-for-timeout"
	SwitchMaster           Type = "+switch-master"
	// FailoverTimeline is go-sentinel's extension: the phases and
	// durations of a failover this Sentinel led, once per failover, right
	// after its +switch-master; the event carries the Timeline.
	FailoverTimeline Type = "+failover-timeline"

	// Aborted failovers: AbortPrefix followed by the reason.
	AbortNotElected   Type = "-failover-abort-not-elected"
	AbortNoGoodSlave  Type = "-failover-abort-no-good-slave"
	AbortSlaveTimeout Type = "-failover-abort-slave-timeout"
	AbortSuperseded   Type = "-failover-abort-superseded"
	// AbortMasterTimeout: a coordinated failover had less than a
	// second of its failover-timeout left to hand over (Valkey 9).
	AbortMasterTimeout Type = "-failover-abort-master-timeout"

	// Following the configuration of others.
	ConfigUpdateFrom Type = "+config-update-from"
	ConvertToSlave   Type = "+convert-to-slave"
	FixSlaveConfig   Type = "+fix-slave-config"

	// The master-following proxy (go-sentinel's extension): it stops
	// forwarding (+proxy-fenced, with the reason) and starts again.
	ProxyFenced    Type = "+proxy-fenced"
	ProxyFencedEnd Type = "-proxy-fenced"

	// The read port (go-sentinel's extension, issue 33): a replica joins
	// the replicas it serves (+proxy-replica) or leaves them
	// (-proxy-replica, with the reason); no replica qualifies and the
	// master serves (+proxy-replicas-fallback) until one does
	// (-proxy-replicas-fallback); nothing serves (+proxy-replicas-fenced,
	// with the reason) until something does (-proxy-replicas-fenced).
	ProxyReplica             Type = "+proxy-replica"
	ProxyReplicaEnd          Type = "-proxy-replica"
	ProxyReplicasFallback    Type = "+proxy-replicas-fallback"
	ProxyReplicasFallbackEnd Type = "-proxy-replicas-fallback"
	ProxyReplicasFenced      Type = "+proxy-replicas-fenced"
	ProxyReplicasFencedEnd   Type = "-proxy-replicas-fenced"

	// Scripts.
	ScriptChild    Type = "+script-child"
	ScriptChildEnd Type = "-script-child"
	ScriptError    Type = "-script-error"
	ScriptTimeout  Type = "-script-timeout"
)

// AbortPrefix starts the type of every aborted-failover event; the
// rest of the type is the reason (`not-elected`).
const AbortPrefix = "-failover-abort-"

// AbortReason returns the reason of an aborted-failover event type
// (`not-elected` for -failover-abort-not-elected) and whether t is one.
func (t Type) AbortReason() (string, bool) {
	if len(t) > len(AbortPrefix) && string(t[:len(AbortPrefix)]) == AbortPrefix {
		return string(t[len(AbortPrefix):]), true
	}
	return "", false
}
