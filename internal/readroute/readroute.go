// Package readroute holds the rule of the read port (`sentinel
// proxy-replicas`): which of a master's replicas its clients may be
// forwarded to, how far behind a replica is (Lag), and whether the master
// serves instead when none qualifies. The core gathers the facts at every
// tick (Facts) and announces each change of the verdict; the View carries
// it to the proxy adapter, SENTINEL MASTER and EXPLAIN.
package readroute

import (
	"fmt"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Sample is the master's replication offset (INFO's master_repl_offset)
// at one instant (Unix ms).
type Sample struct {
	At     int64
	Offset int64
}

// Lag returns how old, at now, the newest data replica offset off is known
// to hold, in ms: now minus the time of the latest sample of history (in
// time order) whose master offset off reaches. When off reaches none of
// them the replica is at least as old as the oldest sample, and Lag
// returns now minus its time: a lower bound, exact once history spans
// more than the largest lag that matters. ok is false without a sample.
//
// It is a bound on staleness rather than a byte count: a replica that
// holds all the master had a second ago lags a second, however many
// bytes the master wrote since; and a master that stops answering INFO
// makes every replica's lag grow, since nothing shows what it missed.
func Lag(history []Sample, off, now int64) (lag int64, ok bool) {
	if len(history) == 0 {
		return 0, false
	}
	for k := len(history) - 1; k >= 0; k-- {
		if off >= history[k].Offset {
			return max(now-history[k].At, 0), true
		}
	}
	return max(now-history[0].At, 0), true
}

// Replica is what one Sentinel knows of one replica of the master.
type Replica struct {
	// Name is the replica's name (its key in the master's replicas),
	// Addr its address as announced.
	Name string
	Addr settings.Addr
	// SDown: subjectively down for this Sentinel.
	SDown bool
	// LinkDown: this Sentinel's connections to it are not up.
	LinkDown bool
	// ReportsMaster: its INFO reports role:master (it was promoted).
	ReportsMaster bool
	// Promoted: a failover chose it for promotion.
	Promoted bool
	// FollowsOther: its INFO names a master other than the master's
	// address (it was demoted under another master, or reconfigured).
	FollowsOther bool
	// MasterLinkDown: its INFO does not report master_link_status:up.
	MasterLinkDown bool
	// Priority is its replica-priority.
	Priority int
	// Listed: the master's last INFO lists it with an offset, Offset.
	Listed bool
	Offset int64
}

// Facts are what decide the read port of one master at one instant.
type Facts struct {
	Now int64
	// Tilt: this Sentinel is in TILT, and its facts are not trusted.
	Tilt bool
	// Replicas are the master's replicas, in the order the verdict keeps.
	Replicas []Replica
	// History are the master's offsets, in time order (Lag).
	History []Sample
	// MaxLagMs is proxy-replica-max-lag; 0 serves a replica whatever its
	// lag.
	MaxLagMs int64
	// NoPriorityZero is `proxy-replicas-priority-zero no`.
	NoPriorityZero bool
	// NoFallback is `proxy-replicas-fallback no`.
	NoFallback bool
	// MasterFence is why the master may not be forwarded to (the master
	// proxy's rule, internal/fence), "" when it may.
	MasterFence string
	// MasterUntil is when the master stops serving by itself, the leases
	// that let it forward lapsing (fence.ForwardUntil, Unix ms); 0: no
	// bound.
	MasterUntil int64
}

// Exclusion is a replica the read port does not serve, and why.
type Exclusion struct {
	Addr settings.Addr
	Why  string
}

// Verdict is where the read port forwards.
type Verdict struct {
	// Serve are the replicas new connections are spread over, in the
	// order of Facts.Replicas; open connections to any other are cut.
	Serve []settings.Addr
	// OnMaster: no replica qualifies and the master serves in their
	// place (proxy-replicas-fallback).
	OnMaster bool
	// Until bounds OnMaster: Facts.MasterUntil.
	Until int64
	// Fenced: nothing serves; Reason says why.
	Fenced bool
	Reason string
	// Excluded are the replicas not served, in the order of
	// Facts.Replicas.
	Excluded []Exclusion
}

// Exclude returns why replica r is not served, or "" when it is: it
// must not be SDOWN, its links must be up, it must report itself a
// replica of the master with master_link_status:up and not be chosen for
// promotion, its replica-priority must not be 0 when
// `proxy-replicas-priority-zero no`, and its lag (Lag, from the offset
// the master lists for it) must be within max-lag unless max-lag is 0.
func Exclude(f *Facts, r Replica) string {
	switch {
	case r.SDown:
		return "subjectively down"
	case r.LinkDown:
		return "link down"
	case r.ReportsMaster || r.Promoted:
		return "promoted"
	case r.FollowsOther:
		return "replicates from another master"
	case r.MasterLinkDown:
		return "master_link_status not up"
	case f.NoPriorityZero && r.Priority == 0:
		return "replica-priority 0"
	}
	if f.MaxLagMs == 0 {
		return ""
	}
	if faultReadLag {
		// The readlag fault of the histfaults test build, never shipped
		// (fault_histfaults.go): the lag check never excludes, so a
		// replica whose replication is cut stays served.
		return ""
	}
	if !r.Listed {
		return "no offset in the master's INFO"
	}
	lag, ok := Lag(f.History, r.Offset, f.Now)
	if !ok {
		return "no offset in the master's INFO"
	}
	if lag > f.MaxLagMs {
		return fmt.Sprintf("lags %d ms, over %s %d ms", lag, settings.OptionProxyReplicaMaxLag, f.MaxLagMs)
	}
	return ""
}

// Decide returns the read port's verdict: the replicas that qualify
// (Exclude); when none does, the master unless fallback is off or the
// master proxy's rule fences it; in TILT, nothing.
func Decide(f Facts) Verdict {
	if f.Tilt {
		return Verdict{Fenced: true, Reason: "this Sentinel is in TILT"}
	}
	var v Verdict
	for _, r := range f.Replicas {
		if why := Exclude(&f, r); why != "" {
			v.Excluded = append(v.Excluded, Exclusion{Addr: r.Addr, Why: why})
		} else {
			v.Serve = append(v.Serve, r.Addr)
		}
	}
	if len(v.Serve) > 0 {
		return v
	}
	switch {
	case f.NoFallback:
		v.Fenced, v.Reason = true, fmt.Sprintf("no replica qualifies and %s is no", settings.OptionProxyReplicasFallback)
	case f.MasterFence != "":
		v.Fenced, v.Reason = true, "no replica qualifies and the master is fenced: "+f.MasterFence
	default:
		v.OnMaster, v.Until = true, f.MasterUntil
	}
	return v
}
