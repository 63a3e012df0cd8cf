package view

import (
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// itoa64 and utoa64 format a number as the replies show it.
func itoa64(v int64) string  { return strconv.FormatInt(v, 10) }
func utoa64(v uint64) string { return strconv.FormatUint(v, 10) }

// agoOrZero is now - t, or 0 when t never happened (0).
func agoOrZero(now, t int64) int64 {
	if t == 0 {
		return 0
	}
	return now - t
}

// InstanceMapFields is the most fields instanceMap returns (a master
// with both scripts and every conditional field), so that one allocation
// holds any instance map.
const InstanceMapFields = 35

// instanceMap renders object i of master mv as SENTINEL
// MASTER/REPLICAS/SENTINELS do (§12.4) at now, Unix ms: fields in Redis's
// order, conditional ones only when they apply, every value a string.
// It is the one place that formats these replies.
func (v *View) instanceMap(mv *Master, i *Instance, now int64) []KV {
	l := i.Link.Load()
	kv := make([]KV, 0, InstanceMapFields)
	kv = append(kv, []KV{
		{"name", i.Name},
		{"ip", i.IP},
		{"port", strconv.Itoa(i.Port)},
		{"runid", i.RunID},
		{"flags", object.FlagString(i.Kind, i.Flags, object.Disconnected(i.Kind, l.CCUp, l.PCUp), v.RebootFlag)},
		{"link-pending-commands", strconv.Itoa(l.Pending)},
		{"link-refcount", strconv.Itoa(l.Refcount)},
	}...)
	if i.Flags&object.FailoverInProgress != 0 {
		kv = append(kv, KV{"failover-state", i.FailoverState})
	}
	kv = append(kv,
		KV{"last-ping-sent", itoa64(agoOrZero(now, l.ActPingTime))},
		KV{"last-ok-ping-reply", itoa64(now - l.LastAvailTime)},
		KV{"last-ping-reply", itoa64(now - l.LastPongTime)},
	)
	if i.Flags&object.SDown != 0 {
		kv = append(kv, KV{"s-down-time", itoa64(now - i.SDownSince)})
	}
	if i.Flags&object.ODown != 0 {
		kv = append(kv, KV{"o-down-time", itoa64(now - i.ODownSince)})
	}
	kv = append(kv, KV{settings.OptionDownAfter, itoa64(i.DownAfter)})
	if i.Kind != object.Sentinel {
		kv = append(kv,
			KV{"info-refresh", itoa64(agoOrZero(now, i.InfoRefresh))},
			KV{"role-reported", object.ShownRole(i.RoleReported)},
			KV{"role-reported-time", itoa64(now - i.RoleReportedTime)},
		)
	}
	if i.Kind == object.Master {
		kv = append(kv,
			KV{"config-epoch", utoa64(mv.ConfigEpoch)},
			KV{"num-slaves", strconv.Itoa(len(mv.Replicas))},
			KV{"num-other-sentinels", strconv.Itoa(len(mv.Sentinels))},
			KV{settings.OptionQuorum, strconv.Itoa(mv.Quorum)},
			KV{settings.OptionFailoverTimeout, itoa64(mv.FailoverTimeout)},
			KV{settings.OptionParallelSyncs, strconv.Itoa(mv.ParallelSyncs)},
		)
		if mv.NotificationScript != "" {
			kv = append(kv, KV{settings.OptionNotificationScript, mv.NotificationScript})
		}
		if mv.ClientReconfigScript != "" {
			kv = append(kv, KV{settings.OptionClientReconfigScript, mv.ClientReconfigScript})
		}
		if mv.ForgetReplicaAfter != 0 {
			kv = append(kv, KV{settings.OptionForgetReplicaAfter, itoa64(mv.ForgetReplicaAfter)})
		}
		if mv.Voters != 0 {
			kv = append(kv, KV{settings.OptionVoters, strconv.Itoa(mv.Voters)})
		}
		if mv.ForgetSentinelAfter != 0 {
			kv = append(kv, KV{settings.OptionForgetSentinelAfter, itoa64(mv.ForgetSentinelAfter)})
		}
		if mv.Proxy.Listen != "" {
			kv = append(kv, proxyFields(mv.Proxy)...)
		}
		if mv.Reads.Listen != "" {
			kv = append(kv, readFields(mv.Reads)...)
		}
	}
	if i.Kind == object.Replica {
		status := "err"
		if i.MasterLinkUp {
			status = "ok"
		}
		host := i.SlaveMasterHost
		if host == "" {
			host = "?"
		}
		kv = append(kv,
			KV{"master-link-down-time", itoa64(i.MasterLinkDownTime)},
			KV{"master-link-status", status},
			KV{"master-host", host},
			KV{"master-port", strconv.Itoa(i.SlaveMasterPort)},
			KV{"slave-priority", strconv.Itoa(i.Priority)},
			KV{"slave-repl-offset", utoa64(i.ReplOffset)},
			KV{"replica-announced", strconv.Itoa(i.Announced)},
		)
	}
	if i.Kind == object.Sentinel {
		leader := i.Leader
		if leader == "" {
			leader = "?"
		}
		kv = append(kv,
			KV{"last-hello-message", itoa64(now - i.LastHello.Load())},
			KV{"voted-leader", leader},
			KV{"voted-leader-epoch", utoa64(i.LeaderEpoch)},
		)
	}
	return kv
}
