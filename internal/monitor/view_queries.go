package monitor

import (
	"errors"
	"iter"
	"strconv"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// KV is one field of an instance map, in reply order.
type KV struct {
	Key   string
	Value string
}

// MasterStatus is a master's health as INFO sentinel reports it.
type MasterStatus string

// The statuses of INFO sentinel's masterN lines.
const (
	StatusOK    MasterStatus = "ok"
	StatusSDown MasterStatus = "sdown"
	StatusODown MasterStatus = "odown"
)

// status is m's health: odown if it is ODOWN, else sdown if SDOWN, else
// ok.
func (m *master) status() MasterStatus { return statusOf(m.flags) }

// statusOf is the status of a master with these flags.
func statusOf(f object.Flag) MasterStatus {
	switch {
	case f&object.ODown != 0:
		return StatusODown
	case f&object.SDown != 0:
		return StatusSDown
	}
	return StatusOK
}

// MasterSummary is the per-master line of INFO sentinel.
type MasterSummary struct {
	Name string
	Addr settings.Addr
	// Status is odown if the master is ODOWN, else sdown if SDOWN, else ok.
	Status       MasterStatus
	NumReplicas  int
	NumSentinels int // known other Sentinels, not counting this one
}

// MasterSummaries returns one summary per master in name order.
func (v *View) MasterSummaries() []MasterSummary {
	out := make([]MasterSummary, 0, len(v.index))
	for mv := range v.all() {
		out = append(out, MasterSummary{
			Name:         mv.inst.name,
			Addr:         mv.infoAddr,
			Status:       statusOf(mv.inst.flags),
			NumReplicas:  len(mv.replicas),
			NumSentinels: len(mv.sentinels),
		})
	}
	return out
}

// MasterNames returns the monitored masters' names in order.
func (v *View) MasterNames() []string {
	out := make([]string, 0, len(v.index))
	for mv := range v.all() {
		out = append(out, mv.inst.name)
	}
	return out
}

// all yields the masters in name order.
func (v *View) all() iter.Seq[*masterView] {
	return func(yield func(*masterView) bool) {
		for k := range len(v.index) {
			if !yield(v.at(k)) {
				return
			}
		}
	}
}

// Tilt reports whether the Sentinel was in TILT mode and since when.
func (v *View) Tilt() (bool, time.Time) { return v.tilt, time.UnixMilli(v.tiltStart) }

// TotalTilt is how many times the Sentinel entered TILT since it started
// (INFO's sentinel_total_tilt).
func (v *View) TotalTilt() int64 { return v.tilts }

// ScriptCounts returns the scripts running and queued (running ones
// included), as scriptq.Queue.Counts.
func (v *View) ScriptCounts() (running, queued int) { return v.running, v.queued }

// SimFailureFlags is what SENTINEL SIMULATE-FAILURE set (INFO's
// sentinel_simulate_failure_flags).
func (v *View) SimFailureFlags() failover.SimFailure { return v.simFailure }

func itoa64(v int64) string  { return strconv.FormatInt(v, 10) }
func utoa64(v uint64) string { return strconv.FormatUint(v, 10) }
func agoOrZero(now, t int64) int64 {
	if t == 0 {
		return 0
	}
	return now - t
}

// instanceMapFields is the most fields instanceMap returns (a master
// with both scripts and every conditional field), so that one allocation
// holds any instance map.
const instanceMapFields = 35

// instanceMap renders object i of master mv as SENTINEL
// MASTER/REPLICAS/SENTINELS do (§12.4) at now, Unix ms: fields in Redis's
// order, conditional ones only when they apply, every value a string.
// It is the one place that formats these replies.
func (v *View) instanceMap(mv *masterView, i *instView, now int64) []KV {
	l := i.link.load()
	kv := make([]KV, 0, instanceMapFields)
	kv = append(kv, []KV{
		{"name", i.name},
		{"ip", i.ip},
		{"port", strconv.Itoa(i.port)},
		{"runid", i.runID},
		{"flags", object.FlagString(i.kind, i.flags, object.Disconnected(i.kind, l.ccUp, l.pcUp), v.rebootFlag)},
		{"link-pending-commands", strconv.Itoa(l.pending)},
		{"link-refcount", strconv.Itoa(l.refcount)},
	}...)
	if i.flags&object.FailoverInProgress != 0 {
		kv = append(kv, KV{"failover-state", i.failoverState})
	}
	kv = append(kv,
		KV{"last-ping-sent", itoa64(agoOrZero(now, l.actPingTime))},
		KV{"last-ok-ping-reply", itoa64(now - l.lastAvailTime)},
		KV{"last-ping-reply", itoa64(now - l.lastPongTime)},
	)
	if i.flags&object.SDown != 0 {
		kv = append(kv, KV{"s-down-time", itoa64(now - i.sdownSince)})
	}
	if i.flags&object.ODown != 0 {
		kv = append(kv, KV{"o-down-time", itoa64(now - i.odownSince)})
	}
	kv = append(kv, KV{settings.OptionDownAfter, itoa64(i.downAfter)})
	if i.kind != object.Sentinel {
		kv = append(kv,
			KV{"info-refresh", itoa64(agoOrZero(now, i.infoRefresh))},
			KV{"role-reported", object.ShownRole(i.roleReported)},
			KV{"role-reported-time", itoa64(now - i.roleReportedTime)},
		)
	}
	if i.kind == object.Master {
		kv = append(kv,
			KV{"config-epoch", utoa64(mv.configEpoch)},
			KV{"num-slaves", strconv.Itoa(len(mv.replicas))},
			KV{"num-other-sentinels", strconv.Itoa(len(mv.sentinels))},
			KV{settings.OptionQuorum, strconv.Itoa(mv.quorum)},
			KV{settings.OptionFailoverTimeout, itoa64(mv.failoverTimeout)},
			KV{settings.OptionParallelSyncs, strconv.Itoa(mv.parallelSyncs)},
		)
		if mv.notificationScript != "" {
			kv = append(kv, KV{settings.OptionNotificationScript, mv.notificationScript})
		}
		if mv.clientReconfigScript != "" {
			kv = append(kv, KV{settings.OptionClientReconfigScript, mv.clientReconfigScript})
		}
		if mv.forgetReplicaAfter != 0 {
			kv = append(kv, KV{settings.OptionForgetReplicaAfter, itoa64(mv.forgetReplicaAfter)})
		}
		if mv.voters != 0 {
			kv = append(kv, KV{settings.OptionVoters, strconv.Itoa(mv.voters)})
		}
		if mv.forgetSentinelAfter != 0 {
			kv = append(kv, KV{settings.OptionForgetSentinelAfter, itoa64(mv.forgetSentinelAfter)})
		}
		if mv.proxy.listen != "" {
			kv = append(kv, proxyFields(mv.proxy)...)
		}
	}
	if i.kind == object.Replica {
		status := "err"
		if i.masterLinkUp {
			status = "ok"
		}
		host := i.slaveMasterHost
		if host == "" {
			host = "?"
		}
		kv = append(kv,
			KV{"master-link-down-time", itoa64(i.masterLinkDownTime)},
			KV{"master-link-status", status},
			KV{"master-host", host},
			KV{"master-port", strconv.Itoa(i.slaveMasterPort)},
			KV{"slave-priority", strconv.Itoa(i.priority)},
			KV{"slave-repl-offset", utoa64(i.replOffset)},
			KV{"replica-announced", strconv.Itoa(i.announced)},
		)
	}
	if i.kind == object.Sentinel {
		leader := i.leader
		if leader == "" {
			leader = "?"
		}
		kv = append(kv,
			KV{"last-hello-message", itoa64(now - i.lastHelloTime)},
			KV{"voted-leader", leader},
			KV{"voted-leader-epoch", utoa64(i.leaderEpoch)},
		)
	}
	return kv
}

func (s *Sentinel) master(name string) (*master, error) {
	m := s.masters[name]
	if m == nil {
		return nil, ErrNoSuchMaster
	}
	return m, nil
}

// master returns the View of the master called name.
func (v *View) master(name string) (*masterView, error) {
	k, ok := v.index[name]
	if !ok {
		return nil, ErrNoSuchMaster
	}
	return v.at(k), nil
}

// Master returns the instance map of one master at now.
func (v *View) Master(now time.Time, name string) ([]KV, error) {
	mv, err := v.master(name)
	if err != nil {
		return nil, err
	}
	return v.instanceMap(mv, mv.inst, ms(now)), nil
}

// Masters returns the instance maps of every master at now, in name
// order.
func (v *View) Masters(now time.Time) [][]KV {
	t := ms(now)
	out := make([][]KV, 0, len(v.index))
	for mv := range v.all() {
		out = append(out, v.instanceMap(mv, mv.inst, t))
	}
	return out
}

// Replicas returns the maps of a master's replicas at now, leaving out
// those that report replica-announced 0.
func (v *View) Replicas(now time.Time, name string) ([][]KV, error) {
	mv, err := v.master(name)
	if err != nil {
		return nil, err
	}
	t := ms(now)
	out := [][]KV{}
	for _, r := range mv.replicas {
		if r.announced != 0 {
			out = append(out, v.instanceMap(mv, r, t))
		}
	}
	return out, nil
}

// Sentinels returns the maps of the other Sentinels known for a master,
// at now.
func (v *View) Sentinels(now time.Time, name string) ([][]KV, error) {
	mv, err := v.master(name)
	if err != nil {
		return nil, err
	}
	t := ms(now)
	out := [][]KV{}
	for _, si := range mv.sentinels {
		out = append(out, v.instanceMap(mv, si, t))
	}
	return out, nil
}

// MasterAddr returns the address clients should use for a master: the
// promoted replica's once a failover reached reconf_slaves.
func (v *View) MasterAddr(name string) (settings.Addr, bool) {
	mv, err := v.master(name)
	if err != nil {
		return settings.Addr{}, false
	}
	return mv.addr, true
}

// ErrNoQuorum is what a *QuorumError from CheckQuorum wraps: the usable
// Sentinels cannot reach the quorum or the majority.
var ErrNoQuorum = errors.New("NOQUORUM")

// QuorumError is a failed CheckQuorum: its check, whose NoQuorumText is
// the error text.
type QuorumError struct {
	election.Check
}

// Error is Redis's reply text after the NOQUORUM code.
func (e *QuorumError) Error() string { return e.NoQuorumText() }

// Unwrap returns ErrNoQuorum.
func (e *QuorumError) Unwrap() error { return ErrNoQuorum }

// CheckQuorum is SENTINEL CKQUORUM: whether the Sentinels that are
// usable now could reach the master's quorum and a majority, counted as
// an election counts it, over the voters floor when it is larger
// (election.CheckQuorum). The error is a *QuorumError, with the same
// check, when they could not.
func (v *View) CheckQuorum(name string) (election.Check, error) {
	mv, err := v.master(name)
	if err != nil {
		return election.Check{}, err
	}
	peers := make([]election.Peer, len(mv.sentinels))
	for k, si := range mv.sentinels {
		l := si.link.load()
		peers[k] = object.ElectionPeer(si.runID, si.flags, !object.Disconnected(object.Sentinel, l.ccUp, l.pcUp), si.leader, si.leaderEpoch)
	}
	ck := election.CheckQuorum(peers, mv.quorum, mv.voters)
	if !ck.OK() {
		return ck, &QuorumError{Check: ck}
	}
	return ck, nil
}

// InfoCacheEntry is one instance's cached INFO for SENTINEL INFO-CACHE.
type InfoCacheEntry struct {
	Age  int64 // ms since the INFO was received
	Info string
	Has  bool // false when no INFO was ever received (null)
}

// InfoCache returns, for each named master that exists (in name order,
// duplicates collapsed), the cached INFO of the master then its replicas.
func (s *Sentinel) InfoCache(now time.Time, names []string) (masters []string, entries [][]InfoCacheEntry) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	t := ms(now)
	for _, name := range s.names {
		if !want[name] {
			continue
		}
		m := s.masters[name]
		list := []InfoCacheEntry{cacheEntry(&m.instance, m, t)}
		for _, r := range m.sortedReplicas() {
			list = append(list, cacheEntry(r, m, t))
		}
		masters = append(masters, name)
		entries = append(entries, list)
	}
	return masters, entries
}

// cacheEntry reproduces Redis's quirk: the age is 0 when the *master* was
// never refreshed, else now minus the instance's own refresh time.
func cacheEntry(i *instance, m *master, now int64) InfoCacheEntry {
	e := InfoCacheEntry{Info: i.info, Has: i.info != ""}
	if m.infoRefresh != 0 {
		e.Age = now - i.infoRefresh
	}
	return e
}

// FailoverProgress is where a master's failover stands.
type FailoverProgress struct {
	// InProgress is true from +try-failover until the failover ends or
	// is aborted.
	InProgress bool
	// State is the failover-state name ("none" when not in progress).
	State string
	// Epoch is the epoch of the last failover this Sentinel started.
	Epoch uint64
	// ConfigEpoch is the master's config epoch.
	ConfigEpoch uint64
	// Promoted is the replica being promoted, if one was selected.
	Promoted    settings.Addr
	HasPromoted bool
}

// FailoverProgress reports the failover progress of a master.
func (s *Sentinel) FailoverProgress(name string) (FailoverProgress, bool) {
	m := s.masters[name]
	if m == nil {
		return FailoverProgress{}, false
	}
	p := FailoverProgress{
		InProgress:  m.has(object.FailoverInProgress),
		State:       m.failoverState.String(),
		Epoch:       m.failoverEpoch,
		ConfigEpoch: m.configEpoch,
	}
	if m.promoted != nil {
		p.Promoted, p.HasPromoted = s.addrs.announceAddr(m.promoted.addr), true
	}
	return p, true
}
