package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-sentinel/go-sentinel/internal/buildinfo"
	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// Label sets: redis_exporter's for its metrics, master_name alone for
// ours (so a series survives the master's address change), and the
// instance triple for links.
var (
	masterLabels   = []string{"master_name", "master_address"}
	nameLabel      = []string{"master_name"}
	instanceLabels = []string{"master_name", "role", "address"}
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// The gauges read from the core at scrape time. The redis_sentinel_*
// ones have redis_exporter's names, labels and units (its settings in
// milliseconds, as SENTINEL MASTER shows them).
var (
	descMasters        = desc("redis_sentinel_masters", "The number of masters this sentinel is watching")
	descTilt           = desc("redis_sentinel_tilt", "Sentinel is in TILT mode")
	descRunningScripts = desc("redis_sentinel_running_scripts", "Number of scripts in execution right now")
	descScriptsQueue   = desc("redis_sentinel_scripts_queue_length", "Queue of user scripts to execute")
	descSimFailure     = desc("redis_sentinel_simulate_failure_flags", "Failures simulations")
	descStatus         = desc("redis_sentinel_master_status", "Master status on Sentinel", "master_name", "master_address", "master_status")
	descSlaves         = desc("redis_sentinel_master_slaves", "The number of slaves of the master", masterLabels...)
	descOKSlaves       = desc("redis_sentinel_master_ok_slaves", "The number of okay slaves of the master", masterLabels...)
	descSentinels      = desc("redis_sentinel_master_sentinels", "The number of sentinels monitoring this master", masterLabels...)
	descOKSentinels    = desc("redis_sentinel_master_ok_sentinels", "The number of okay sentinels monitoring this master", masterLabels...)
	descCkquorum       = desc("redis_sentinel_master_ckquorum_status", "Master ckquorum status", "master_name", "message")
	descQuorum         = desc("redis_sentinel_master_setting_ckquorum", "Show the current ckquorum config for each master", masterLabels...)
	descFailoverTO     = desc("redis_sentinel_master_setting_failover_timeout", "Show the current failover-timeout config for each master", masterLabels...)
	descParallelSyncs  = desc("redis_sentinel_master_setting_parallel_syncs", "Show the current parallel-syncs config for each master", masterLabels...)
	descDownAfter      = desc("redis_sentinel_master_setting_down_after_milliseconds", "Show the current down-after-milliseconds config for each master", masterLabels...)
	descConfigEpoch    = desc("redis_sentinel_master_config_epoch", "Get the config epoch for each master", masterLabels...)
	descLastOKPing     = desc("redis_sentinel_master_last_ok_ping_reply_seconds", "Seconds since the master's last valid PING reply", masterLabels...)

	descBuild         = desc("sentinel_build_info", "go-sentinel's version, the Redis Sentinel version it is compatible with, and its commit; always 1.", "version", "redis_version", "commit")
	descCurrentEpoch  = desc("sentinel_current_epoch", "The highest epoch this Sentinel has seen.")
	descTiltSince     = desc("sentinel_tilt_since_seconds", "Seconds this Sentinel has been in TILT mode, -1 when not in TILT (INFO's sentinel_tilt_since_seconds).")
	descSDown         = desc("sentinel_master_sdown", "1 when this Sentinel sees the master subjectively down (SDOWN).", nameLabel...)
	descODown         = desc("sentinel_master_odown", "1 when this Sentinel sees the master objectively down (ODOWN: quorum reached).", nameLabel...)
	descLeaderEpoch   = desc("sentinel_master_leader_epoch", "The epoch of this Sentinel's last leader vote for the master.", nameLabel...)
	descFailoverEpoch = desc("sentinel_master_failover_epoch", "The epoch of the last failover of the master this Sentinel started.", nameLabel...)
	descInProgress    = desc("sentinel_master_failover_in_progress", "1 while this Sentinel runs a failover of the master.", nameLabel...)
	descState         = desc("sentinel_master_failover_state", "1 for the master's current failover-state (none, wait_start, select_slave, send_slaveof_noone, wait_promotion, reconf_slaves, update_config).", "master_name", "state")
	descConnected     = desc("sentinel_link_connected", "1 when this Sentinel has its live connections to the instance (no disconnected flag).", instanceLabels...)
	descLinkSDown     = desc("sentinel_instance_sdown", "1 when this Sentinel sees the instance subjectively down.", instanceLabels...)
	descPromotable    = desc("sentinel_master_promotable_replicas", "Replicas a failover of the master would accept if it started now (no exclusion rule applies: down, disconnected, stale PING or INFO, priority 0, link to the master down too long, follows another replica); 0 means it would abort with -failover-abort-no-good-slave.", nameLabel...)
	descTilts         = desc("sentinel_tilts_total", "Times this Sentinel entered TILT mode since it started (INFO's sentinel_total_tilt).")
	descRTT           = desc("sentinel_link_rtt_seconds", "Round trip of the last PING answered on the link, with millisecond resolution.", instanceLabels...)

	gaugeDescs = []*prometheus.Desc{descMasters, descTilt, descRunningScripts, descScriptsQueue, descSimFailure,
		descStatus, descSlaves, descOKSlaves, descSentinels, descOKSentinels, descCkquorum, descQuorum, descFailoverTO,
		descParallelSyncs, descDownAfter, descConfigEpoch, descLastOKPing, descBuild, descCurrentEpoch, descTiltSince,
		descSDown, descODown, descLeaderEpoch, descFailoverEpoch, descInProgress, descState, descConnected, descLinkSDown, descRTT, descPromotable, descTilts}
)

// ckquorum is one master's SENTINEL CKQUORUM outcome.
type ckquorum struct {
	ok  bool
	msg string // the reply text, without its '+' or '-'
}

// snapshot is what one scrape reads from the core.
type snapshot struct {
	view view.Metrics
	ck   []ckquorum // parallel to view.Masters
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range gaugeDescs {
		ch <- d
	}
	for _, d := range proxyDescs {
		ch <- d
	}
	for _, d := range readDescs {
		ch <- d
	}
	for _, c := range m.counters {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector: it reads the core on its loop,
// then writes the gauges and the event counters. When the loop has
// stopped only the counters are written.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, 1, buildinfo.Version, buildinfo.RedisVersion, buildinfo.Commit)
	var snap snapshot
	err := m.read(func(core monitor.Handle, now time.Time) {
		snap.view = core.MetricsView(now)
		for _, mm := range snap.view.Masters {
			snap.ck = append(snap.ck, checkQuorum(mm.Check))
		}
	})
	if err == nil {
		m.collectView(ch, snap)
	}
	m.collectProxy(ch)
	m.collectReads(ch)
	for _, c := range m.counters {
		c.Collect(ch)
	}
}

// checkQuorum is SENTINEL CKQUORUM's reply for a master's check, as
// redis_exporter puts it in its message label.
func checkQuorum(ck election.Check) ckquorum {
	return ckquorum{ok: ck.OK(), msg: ck.Reply()}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (m *Metrics) collectView(ch chan<- prometheus.Metric, snap snapshot) {
	v := snap.view
	g := func(d *prometheus.Desc, val float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, val, labels...)
	}
	g(descMasters, float64(len(v.Masters)))
	g(descTilt, bool01(v.Tilt))
	g(descRunningScripts, float64(v.ScriptsRunning))
	g(descScriptsQueue, float64(v.ScriptsQueued))
	g(descSimFailure, float64(v.SimulateFailure))
	g(descCurrentEpoch, float64(v.CurrentEpoch))
	tiltSince := -1.0
	if v.Tilt {
		tiltSince = float64(int64(v.TiltFor.Seconds()))
	}
	g(descTiltSince, tiltSince)
	ch <- prometheus.MustNewConstMetric(descTilts, prometheus.CounterValue, float64(v.Tilts))
	for k, mm := range v.Masters {
		name, addr := mm.Name, mm.Addr.InfoText()
		// The event counters of every master exist from its first
		// scrape, so that rate() sees their first increase.
		m.started.WithLabelValues(name)
		m.completed.WithLabelValues(name)
		m.switches.WithLabelValues(name)
		m.endedForTimeout.WithLabelValues(name)
		m.coordinated.WithLabelValues(name)
		for _, t := range abortEvents {
			reason, _ := t.AbortReason()
			m.aborted.WithLabelValues(name, reason)
		}

		g(descStatus, bool01(mm.Status == view.StatusOK), name, addr, string(mm.Status))
		g(descSlaves, float64(mm.Replicas), name, addr)
		g(descOKSlaves, float64(mm.OKReplicas), name, addr)
		g(descSentinels, float64(mm.Sentinels), name, addr)
		g(descOKSentinels, float64(mm.OKSentinels), name, addr)
		g(descCkquorum, bool01(snap.ck[k].ok), name, snap.ck[k].msg)
		g(descQuorum, float64(mm.Quorum), name, addr)
		g(descFailoverTO, float64(mm.FailoverTimeout.Milliseconds()), name, addr)
		g(descParallelSyncs, float64(mm.ParallelSyncs), name, addr)
		g(descDownAfter, float64(mm.DownAfter.Milliseconds()), name, addr)
		g(descConfigEpoch, float64(mm.ConfigEpoch), name, addr)
		g(descLastOKPing, mm.LastOKPing.Seconds(), name, addr)

		g(descSDown, bool01(mm.SDown), name)
		g(descODown, bool01(mm.ODown), name)
		g(descLeaderEpoch, float64(mm.LeaderEpoch), name)
		g(descFailoverEpoch, float64(mm.FailoverEpoch), name)
		g(descInProgress, bool01(mm.FailoverInProgress), name)
		g(descPromotable, float64(mm.PromotableReplicas), name)
		g(descState, 1, name, mm.FailoverState)
		seen := map[string]bool{}
		for _, l := range mm.Links {
			a := l.Addr.InfoText()
			if seen[l.Role+" "+a] {
				continue // a Sentinel restarted with a new run id, not yet forgotten
			}
			seen[l.Role+" "+a] = true
			g(descConnected, bool01(l.Connected), name, l.Role, a)
			g(descLinkSDown, bool01(l.SDown), name, l.Role, a)
			if l.HasRTT {
				g(descRTT, l.RTT.Seconds(), name, l.Role, a)
			}
		}
	}
}
