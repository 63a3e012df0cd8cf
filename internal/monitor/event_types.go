package monitor

// EventType is the type of a Sentinel event: both its log prefix and its
// pub/sub channel, as Redis names them (`+sdown`). Every type the core
// emits is one of the constants below; adapters, metrics and the
// simulator match on them, never on string literals.
type EventType string

// The event types, grouped by what they are about.
const (
	// Configuration of the masters monitored.
	EventMonitor     EventType = "+monitor"
	EventUnmonitor   EventType = "-monitor"
	EventSet         EventType = "+set"
	EventResetMaster EventType = "+reset-master"

	// Discovery.
	// EventReplicaMerged is go-sentinel's extension: a replica entry a
	// master's INFO added by IP was found to be the entry stored by the
	// hostname that now resolves to that IP, and was dropped (addresses.go).
	EventReplicaMerged         EventType = "-slave-merged"
	EventReplica               EventType = "+slave"
	EventSentinel              EventType = "+sentinel"
	EventSentinelAddressSwitch EventType = "+sentinel-address-switch"
	EventSentinelInvalidAddr   EventType = "+sentinel-invalid-addr"
	EventSentinelAddressUpdate EventType = "+sentinel-address-update"
	// EventReplicaForgotten is go-sentinel's extension: a replica
	// unreachable for longer than forget-replica-after, that its master
	// no longer lists, was forgotten (forget.go).
	EventReplicaForgotten EventType = "-slave"
	// EventSentinelForgotten is go-sentinel's extension: a known Sentinel
	// not heard from for longer than forget-sentinel-after, with a voters
	// floor set, was forgotten (forget_sentinel.go).
	EventSentinelForgotten EventType = "-sentinel"

	// Health and links.
	EventSDown                  EventType = "+sdown"
	EventSDownEnd               EventType = "-sdown"
	EventODown                  EventType = "+odown"
	EventODownEnd               EventType = "-odown"
	EventTilt                   EventType = "+tilt"
	EventTiltEnd                EventType = "-tilt"
	EventReboot                 EventType = "+reboot"
	EventRoleChange             EventType = "+role-change"
	EventRoleChangeUnexpected   EventType = "-role-change"
	EventCmdLinkReconnection    EventType = "-cmd-link-reconnection"
	EventPubSubLinkReconnection EventType = "-pubsub-link-reconnection"

	// Epochs and the election.
	EventNewEpoch      EventType = "+new-epoch"
	EventVoteForLeader EventType = "+vote-for-leader"
	EventTryFailover   EventType = "+try-failover"
	EventElectedLeader EventType = "+elected-leader"

	// The failover this Sentinel leads.
	EventStateSelectSlave       EventType = "+failover-state-select-slave"
	EventSelectedSlave          EventType = "+selected-slave"
	EventStateSendSlaveofNoone  EventType = "+failover-state-send-slaveof-noone"
	EventStateWaitPromotion     EventType = "+failover-state-wait-promotion"
	EventPromotedSlave          EventType = "+promoted-slave"
	EventStateReconfSlaves      EventType = "+failover-state-reconf-slaves"
	EventSlaveReconfSent        EventType = "+slave-reconf-sent"
	EventSlaveReconfSentBE      EventType = "+slave-reconf-sent-be"
	EventSlaveReconfSentTimeout EventType = "-slave-reconf-sent-timeout"
	EventSlaveReconfInprog      EventType = "+slave-reconf-inprog"
	EventSlaveReconfDone        EventType = "+slave-reconf-done"
	EventFailoverEnd            EventType = "+failover-end"
	EventFailoverEndForTimeout  EventType = "+failover-end-for-timeout"
	EventSwitchMaster           EventType = "+switch-master"
	// EventFailoverTimeline is go-sentinel's extension: the phases and
	// durations of a failover this Sentinel led, once per failover, right
	// after its +switch-master; the event carries the Timeline.
	EventFailoverTimeline EventType = "+failover-timeline"

	// Aborted failovers: EventAbortPrefix followed by the reason.
	EventAbortNotElected   EventType = "-failover-abort-not-elected"
	EventAbortNoGoodSlave  EventType = "-failover-abort-no-good-slave"
	EventAbortSlaveTimeout EventType = "-failover-abort-slave-timeout"
	EventAbortSuperseded   EventType = "-failover-abort-superseded"
	// EventAbortMasterTimeout: a coordinated failover had less than a
	// second of its failover-timeout left to hand over (Valkey 9).
	EventAbortMasterTimeout EventType = "-failover-abort-master-timeout"

	// Following the configuration of others.
	EventConfigUpdateFrom EventType = "+config-update-from"
	EventConvertToSlave   EventType = "+convert-to-slave"
	EventFixSlaveConfig   EventType = "+fix-slave-config"

	// The master-following proxy (go-sentinel's extension): it stops
	// forwarding (+proxy-fenced, with the reason) and starts again.
	EventProxyFenced    EventType = "+proxy-fenced"
	EventProxyFencedEnd EventType = "-proxy-fenced"

	// Scripts.
	EventScriptChild    EventType = "+script-child"
	EventScriptChildEnd EventType = "-script-child"
	EventScriptError    EventType = "-script-error"
	EventScriptTimeout  EventType = "-script-timeout"
)

// EventAbortPrefix starts the type of every aborted-failover event; the
// rest of the type is the reason (`not-elected`).
const EventAbortPrefix = "-failover-abort-"

// AbortReason returns the reason of an aborted-failover event type
// (`not-elected` for -failover-abort-not-elected) and whether t is one.
func (t EventType) AbortReason() (string, bool) {
	if len(t) > len(EventAbortPrefix) && string(t[:len(EventAbortPrefix)]) == EventAbortPrefix {
		return string(t[len(EventAbortPrefix):]), true
	}
	return "", false
}
