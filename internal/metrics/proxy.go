package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ProxyFigures are one master's master-following proxy figures, as the
// node reads them from its proxy (internal/proxy's Stats).
type ProxyFigures struct {
	Master                         string
	Open                           int
	Accepted, Refused, HoldExpired int64
	Cut                            int64
	BytesToMaster, BytesToClient   int64
	Fenced                         bool
	FencedTime                     time.Duration
}

// The proxy's metrics, read from ProxyFigures at scrape time.
var (
	descProxyOpen        = desc("sentinel_proxy_connections_open", "Client connections the master's proxy holds open now.", nameLabel...)
	descProxyAccepted    = desc("sentinel_proxy_connections_accepted_total", "Client connections the master's proxy accepted.", nameLabel...)
	descProxyRefused     = desc("sentinel_proxy_connections_refused_total", "Client connections the master's proxy closed at once (its maxclients, protected mode).", nameLabel...)
	descProxyHoldExpired = desc("sentinel_proxy_connections_hold_expired_total", "Client connections the master's proxy closed after they waited proxy-hold out while fenced.", nameLabel...)
	descProxyCut         = desc("sentinel_proxy_connections_cut_total", "Client connections the master's proxy closed when it fenced or the master switched.", nameLabel...)
	descProxyBytes       = desc("sentinel_proxy_bytes_total", "Bytes the master's proxy forwarded, by direction (to_master, to_client).", "master_name", "direction")
	descProxyFenced      = desc("sentinel_proxy_fenced", "1 while the master's proxy is fenced (does not forward).", nameLabel...)
	descProxyFencedSecs  = desc("sentinel_proxy_fenced_seconds_total", "Seconds the master's proxy spent fenced while listening.", nameLabel...)

	proxyDescs = []*prometheus.Desc{descProxyOpen, descProxyAccepted, descProxyRefused, descProxyHoldExpired, descProxyCut,
		descProxyBytes, descProxyFenced, descProxyFencedSecs}
)

// newFirstByte is the histogram of the time from +switch-master to the
// first byte the proxy forwarded to the new master.
func newFirstByte() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sentinel_proxy_switch_to_first_byte_seconds",
		Help:    "Time from a +switch-master of the master to the first byte its proxy forwarded to the new master.",
		Buckets: PhaseBuckets,
	}, []string{"master_name"})
}

// SetProxy makes the scrapes read the proxy's figures from read; it must
// be called before the first scrape.
func (m *Metrics) SetProxy(read func() []ProxyFigures) { m.proxy = read }

// ObserveProxyFirstByte records the time from a switch of master to the
// first byte its proxy forwarded to the new master.
func (m *Metrics) ObserveProxyFirstByte(master string, d time.Duration) {
	m.firstByte.WithLabelValues(master).Observe(d.Seconds())
}

func (m *Metrics) collectProxy(ch chan<- prometheus.Metric) {
	if m.proxy == nil {
		return
	}
	c := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for _, p := range m.proxy() {
		ch <- prometheus.MustNewConstMetric(descProxyOpen, prometheus.GaugeValue, float64(p.Open), p.Master)
		ch <- prometheus.MustNewConstMetric(descProxyFenced, prometheus.GaugeValue, bool01(p.Fenced), p.Master)
		c(descProxyAccepted, float64(p.Accepted), p.Master)
		c(descProxyRefused, float64(p.Refused), p.Master)
		c(descProxyHoldExpired, float64(p.HoldExpired), p.Master)
		c(descProxyCut, float64(p.Cut), p.Master)
		c(descProxyBytes, float64(p.BytesToMaster), p.Master, "to_master")
		c(descProxyBytes, float64(p.BytesToClient), p.Master, "to_client")
		c(descProxyFencedSecs, p.FencedTime.Seconds(), p.Master)
	}
}
