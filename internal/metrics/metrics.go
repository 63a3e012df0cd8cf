// Package metrics exports a Sentinel's state as Prometheus metrics: the
// counters and histograms are fed by the core's events as the node's
// loop hands them out (Observe), the gauges are read from the core on
// its loop when Prometheus scrapes (Collect). Where redis_exporter's
// Sentinel collector has a metric that means the same, the name and the
// labels are the same (redis_sentinel_*), so its dashboards and alerts
// keep working; the rest are named sentinel_*.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// ReadFunc runs fn on the core's loop, with the core's Handle, and
// returns once it ran; it fails when the loop has stopped (node.Node.Exec
// without the outcome).
type ReadFunc func(fn func(core monitor.Handle, now time.Time)) error

// PhaseBuckets are the bounds, in seconds, of the failover phase and
// failover duration histograms: from a few milliseconds (a phase that
// follows the previous one in the same tick) to the minutes a
// failover-timeout can stretch a phase to.
var PhaseBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600}

// Metrics is one Sentinel's exporter. Observe must be called on the
// core's loop (it is not reentrant with itself, but Collect may run at
// the same time from the HTTP server).
type Metrics struct {
	read ReadFunc

	events          *prometheus.CounterVec
	started         *prometheus.CounterVec
	completed       *prometheus.CounterVec
	endedForTimeout *prometheus.CounterVec
	aborted         *prometheus.CounterVec
	switches        *prometheus.CounterVec
	phases          *prometheus.HistogramVec
	durations       *prometheus.HistogramVec
	coordinated     *prometheus.CounterVec
	paused          *prometheus.HistogramVec
	firstByte       *prometheus.HistogramVec

	// proxy reads the master-following proxy's figures (SetProxy); nil:
	// none are exported.
	proxy func() []ProxyFigures
	// reads reads the read ports' figures (SetProxyReplicas); nil: none
	// are exported.
	reads func() []ReadProxyFigures

	counters []prometheus.Collector
}

// New returns the exporter of the core read runs on.
func New(read ReadFunc) *Metrics {
	m := &Metrics{
		read: read,
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_events_total",
			Help: "Events this Sentinel emitted (published or logged), by type (+sdown, +failover-timeline, ...).",
		}, []string{"type"}),
		started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_failovers_started_total",
			Help: "Failovers this Sentinel started (+try-failover).",
		}, []string{"master_name"}),
		completed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_failovers_completed_total",
			Help: "Failovers this Sentinel led to their end (+failover-end).",
		}, []string{"master_name"}),
		endedForTimeout: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_failovers_ended_for_timeout_total",
			Help: "Failovers this Sentinel ended on failover-timeout before every replica was reconfigured (+failover-end-for-timeout).",
		}, []string{"master_name"}),
		aborted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_failovers_aborted_total",
			Help: "Failovers this Sentinel gave up, by reason (-failover-abort-<reason>: not-elected, no-good-slave, slave-timeout, superseded, master-timeout).",
		}, []string{"master_name", "reason"}),
		switches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_master_switches_total",
			Help: "Master address changes this Sentinel applied, led or learnt from a peer (+switch-master).",
		}, []string{"master_name"}),
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sentinel_failover_phase_duration_seconds",
			Help:    "Duration of each phase of the failovers this Sentinel led, from the failover timeline: the time from the phase's start to the next phase's.",
			Buckets: PhaseBuckets,
		}, []string{"master_name", "phase"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sentinel_failover_duration_seconds",
			Help:    "Duration of the failovers this Sentinel led, from the first timeline mark (sdown) to the switch.",
			Buckets: PhaseBuckets,
		}, []string{"master_name"}),
		coordinated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sentinel_coordinated_failovers_total",
			Help: "Coordinated failovers (SENTINEL FAILOVER ... COORDINATED) this Sentinel led to the switch.",
		}, []string{"master_name"}),
		paused: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sentinel_failover_writes_paused_seconds",
			Help:    "How long the failovers this Sentinel led kept the old master's writes paused (CLIENT PAUSE WRITE to the promotion), by kind (coordinated, plain).",
			Buckets: PhaseBuckets,
		}, []string{"master_name", "kind"}),
	}
	for _, t := range alertedEvents {
		m.events.WithLabelValues(string(t))
	}
	m.firstByte = newFirstByte()
	m.counters = []prometheus.Collector{m.events, m.started, m.completed, m.endedForTimeout, m.aborted, m.switches, m.phases, m.durations,
		m.coordinated, m.paused, m.firstByte}
	return m
}

// abortEvents are the aborted-failover events: their counters exist for
// every master from its first scrape, at 0, so that increase() in an
// alert sees the first abort.
var abortEvents = []event.Type{event.AbortNotElected, event.AbortNoGoodSlave,
	event.AbortSlaveTimeout, event.AbortSuperseded, event.AbortMasterTimeout}

// alertedEvents are the event types the shipped alert rules
// (deploy/prometheus) count with increase(): their sentinel_events_total
// series exist from the start, at 0, for the same reason.
var alertedEvents = []event.Type{event.ScriptError, event.ScriptTimeout, event.Tilt,
	event.SwitchMaster, event.ODown, event.SDown}

// Observe counts one event; a +failover-timeline event's phases come
// from the timeline it carries.
func (m *Metrics) Observe(ev event.Event) {
	m.events.WithLabelValues(string(ev.Type)).Inc()
	if ev.Master == "" {
		return
	}
	if reason, ok := ev.Type.AbortReason(); ok {
		m.aborted.WithLabelValues(ev.Master, reason).Inc()
		return
	}
	switch ev.Type {
	case event.TryFailover:
		m.started.WithLabelValues(ev.Master).Inc()
	case event.FailoverEnd:
		m.completed.WithLabelValues(ev.Master).Inc()
	case event.FailoverEndForTimeout:
		m.endedForTimeout.WithLabelValues(ev.Master).Inc()
	case event.SwitchMaster:
		m.switches.WithLabelValues(ev.Master).Inc()
	case event.FailoverTimeline:
		if ev.Timeline != nil {
			m.observeTimeline(ev.Master, *ev.Timeline)
		}
	}
}

// observeTimeline records the phases of a failover: each phase but the
// last (which ends it) with its duration up to the next one.
func (m *Metrics) observeTimeline(master string, tl event.Timeline) {
	d := tl.Durations()
	kind := "plain"
	if tl.Coordinated {
		kind = "coordinated"
		m.coordinated.WithLabelValues(master).Inc()
	}
	for k := 0; k+1 < len(tl.Marks); k++ {
		m.phases.WithLabelValues(master, string(tl.Marks[k].Phase)).Observe(d[k].Seconds())
		if tl.Marks[k].Phase == event.PhasePaused {
			m.paused.WithLabelValues(master, kind).Observe(d[k].Seconds())
		}
	}
	if len(tl.Marks) > 1 {
		m.durations.WithLabelValues(master).Observe(tl.Total().Seconds())
	}
}

// Registry returns a registry with the Sentinel's metrics, and Go's and
// the process's own (go_*, process_*).
func (m *Metrics) Registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
