package monitor

import (
	"sort"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// master is a monitored master with its settings, its replicas and the
// other Sentinels that monitor it.
type master struct {
	instance

	// settings are the master's options; its down-after is also the
	// instance's downAfter, which every object under it copies.
	settings settings.Master

	configEpoch uint64
	// instance.leader / instance.leaderEpoch hold our own vote.

	// proxy is the master-following proxy's decision (proxy_fence.go).
	proxy proxyState
	// reads is the read port's state (proxy_replicas.go).
	reads readsState
	// lease is what this Sentinel keeps of the leases on the master
	// (lease.go).
	lease leaseState

	// addrGen counts the master's address changes (switches). An
	// IS-MASTER-DOWN-BY-ADDR reply carries the generation it was asked
	// about, and one about an earlier address is ignored: a peer's
	// opinion of the old master is not one of the new.
	addrGen uint64

	// answersClear: no Sentinel object of the master holds an answer's
	// MasterDown flag or vote (askOthers found none since the last
	// answer), so a tick while the master is not asked about has nothing
	// to clear. The zero value makes askOthers look.
	answersClear bool

	// failoverRun is the failover that runs, its zero value when none
	// does (run.go).
	failoverRun

	// failoverEpoch is the epoch of the last failover this Sentinel
	// started (the one it won, once elected); it outlives the run.
	failoverEpoch uint64
	// failoverStartTime is when the last failover of m started, or when
	// this Sentinel last voted for another one to fail m over: the next
	// failover of ours waits 2 × failover-timeout from it. An abort
	// keeps it; resetMaster clears it.
	failoverStartTime int64
	// failoverDelayLogged is the failoverStartTime whose retry delay was
	// logged, so that it is logged once.
	failoverDelayLogged int64
	// votedAt is when this Sentinel last gave its vote to another
	// Sentinel to fail the master over (Unix ms; 0: never since it
	// started); the proxy fences from then (proxy_fence.go).
	votedAt int64
	// electionAt is when this Sentinel may start the failover of the
	// ODOWN master after its random election delay (Accel); 0 when no
	// delay is running.
	electionAt int64
	// electionHoldUntil bounds the hold of Accel.ElectionHold.
	electionHoldUntil int64
	// epochExhaustedLogged: the refusal to fail over at the largest
	// epoch was logged.
	epochExhaustedLogged bool

	// lastTimeline is the timeline of the last failover that ended
	// (switched or aborted) or of the last config hop; the one in
	// progress is failoverRun.timeline.
	lastTimeline event.Timeline

	replicas  map[string]*instance // by name
	sentinels map[string]*instance // by run id

	// replicaOrder and sentinelOrder cache the objects sorted by name;
	// nil after any change to the maps.
	replicaOrder  []*instance
	sentinelOrder []*instance

	// viewDirty: what the queries show of the master changed since the
	// last View (view_state.go).
	viewDirty bool

	// listing caches the replicas the master's INFO lists (forget.go).
	listing replicaListing
	// rejoining: a replica of it waits for the leases that convert it
	// (rejoin.go), which every tick looks at.
	rejoining bool
}

// known is how many Sentinels know m: the other Sentinels of m and this
// one.
func (m *master) known() int { return len(m.sentinels) + 1 }

// voters is how many Sentinels a majority about m is counted over: the
// known ones, or the voters floor when it is above them.
func (m *master) voters() int { return election.Voters(m.known(), m.settings.Voters) }

// rename returns the name to send cmd as on this master's instances.
func (m *master) rename(cmd string) string {
	for _, r := range m.settings.RenameCommands {
		if strings.EqualFold(r.Command, cmd) {
			return r.Renamed
		}
	}
	return cmd
}

func (m *master) renameMap() map[string]string {
	if len(m.settings.RenameCommands) == 0 {
		return nil
	}
	out := make(map[string]string, len(m.settings.RenameCommands))
	for _, r := range m.settings.RenameCommands {
		out[strings.ToUpper(r.Command)] = r.Renamed
	}
	return out
}

// sortedReplicas returns the replicas ordered by name, the stable order
// replies and the rewrite use. The slice is shared: callers that change
// the replica set while iterating work on the snapshot they got.
func (m *master) sortedReplicas() []*instance {
	if m.replicaOrder == nil {
		m.replicaOrder = sortedByName(m.replicas)
	}
	return m.replicaOrder
}

// sortedSentinels returns the sentinel objects ordered by run id, shared
// like sortedReplicas.
func (m *master) sortedSentinels() []*instance {
	if m.sentinelOrder == nil {
		m.sentinelOrder = sortedByName(m.sentinels)
	}
	return m.sentinelOrder
}

func sortedByName(set map[string]*instance) []*instance {
	out := make([]*instance, 0, len(set))
	for _, i := range set {
		out = append(out, i)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// currentAddr is the address clients should use: the promoted replica's
// once a failover reached reconf_slaves, else the master's.
func (m *master) currentAddr() settings.Addr {
	if m.has(object.FailoverInProgress) && m.promoted != nil && m.failoverState.Promoted() {
		return m.promoted.addr
	}
	return m.addr
}

// spec turns the live master back into what the config file persists.
func (m *master) spec() settings.MasterSpec {
	s := settings.MasterSpec{
		Name:          m.name,
		Addr:          m.currentAddr(),
		Master:        m.settings,
		ConfigEpoch:   m.configEpoch,
		LeaderEpoch:   m.leaderEpoch,
		LeasesGranted: m.lease.granted,
	}
	s.RenameCommands = append([]settings.Rename(nil), m.settings.RenameCommands...)
	cur := m.currentAddr()
	for _, r := range m.sortedReplicas() {
		a := r.addr
		// The promoted replica mid-failover is written with the old
		// master's address, as Redis does, so a restart still knows
		// both.
		if sameAddr(a, cur) {
			a = m.addr
		}
		s.KnownReplicas = append(s.KnownReplicas, a)
	}
	for _, si := range m.sortedSentinels() {
		s.KnownSentinels = append(s.KnownSentinels, settings.SentinelSpec{Addr: si.addr, RunID: si.runID})
	}
	return s
}
