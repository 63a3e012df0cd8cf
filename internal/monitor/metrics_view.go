package monitor

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// MetricsView returns the figures of every master at now.
func (s *Sentinel) MetricsView(at time.Time) view.Metrics {
	now := ms(at)
	v := view.Metrics{CurrentEpoch: s.currentEpoch, Tilt: s.tilt, Tilts: s.tilts, SimulateFailure: s.simFailure}
	if s.tilt {
		v.TiltFor = msDuration(now - s.tiltStart)
	}
	v.ScriptsRunning, v.ScriptsQueued = s.scripts.Counts()
	for _, name := range s.names {
		m := s.masters[name]
		mm := view.MasterMetrics{
			Name:               name,
			Addr:               s.addrs.announceAddr(m.addr),
			Status:             m.status(),
			SDown:              m.has(object.SDown),
			ODown:              m.has(object.ODown),
			Replicas:           len(m.replicas),
			Sentinels:          m.known(),
			Quorum:             m.settings.Quorum,
			Check:              election.CheckQuorum(m.peers(), m.settings.Quorum, m.settings.Voters),
			ConfigEpoch:        m.configEpoch,
			LeaderEpoch:        m.leaderEpoch,
			FailoverEpoch:      m.failoverEpoch,
			FailoverInProgress: m.has(object.FailoverInProgress),
			FailoverState:      m.failoverState.String(),
			DownAfter:          msDuration(m.downAfter),
			FailoverTimeout:    msDuration(m.settings.FailoverTimeoutMs),
			ParallelSyncs:      m.settings.ParallelSyncs,
			LastOKPing:         msDuration(now - m.link.lastAvailTime),
		}
		mm.Links = append(mm.Links, s.linkMetrics(&m.instance))
		for _, r := range m.sortedReplicas() {
			if r.announced != 0 && !r.has(object.SDown|object.ODown) {
				mm.OKReplicas++
			}
			mm.Links = append(mm.Links, s.linkMetrics(r))
		}
		cands, limits := s.replicaCandidates(m, now)
		for _, c := range cands {
			if failover.Exclude(c, limits) == failover.Eligible {
				mm.PromotableReplicas++
			}
		}
		mm.OKSentinels = election.UsableCount(m.peers())
		for _, si := range m.sortedSentinels() {
			mm.Links = append(mm.Links, s.linkMetrics(si))
		}
		v.Masters = append(v.Masters, mm)
	}
	return v
}

// linkMetrics is what the metrics show of the connection to i.
func (s *Sentinel) linkMetrics(i *instance) view.LinkMetrics {
	l := i.link
	lm := view.LinkMetrics{
		Role:      i.kind.String(),
		Name:      i.name,
		Addr:      s.addrs.announceAddr(i.addr),
		Connected: !l.disconnected(i.kind),
		SDown:     i.has(object.SDown),
	}
	if l.hasRTT {
		lm.RTT, lm.HasRTT = msDuration(l.rtt), true
	}
	return lm
}

// status is m's health: odown if it is ODOWN, else sdown if SDOWN, else
// ok.
func (m *master) status() view.MasterStatus { return view.StatusOf(m.flags) }
