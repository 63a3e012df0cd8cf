package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ReadProxyFigures are one master's read port figures (`sentinel
// proxy-replicas`), as the node reads them from its read proxy
// (internal/proxy's Stats) and the View's route.
type ReadProxyFigures struct {
	Master string
	// Open are the client connections open now; OpenByTarget those
	// joined, by the address (host:port) they forward to.
	Open                           int
	OpenByTarget                   map[string]int
	Accepted, Refused, HoldExpired int64
	Cut                            int64
	BytesToServer, BytesToClient   int64
	// Serving is the number of replicas served now; OnMaster: none
	// qualifies and the master serves; Fenced: nothing serves.
	Serving    int
	OnMaster   bool
	Fenced     bool
	FencedTime time.Duration
}

// The read port's metrics, read from ReadProxyFigures at scrape time.
var (
	descReadOpen         = desc("sentinel_proxy_replicas_connections_open", "Client connections the master's read port holds open now.", nameLabel...)
	descReadOpenByTarget = desc("sentinel_proxy_replicas_connections_open_by_target", "Client connections of the master's read port open now, by the replica (or master) they are joined to.", "master_name", "target")
	descReadAccepted     = desc("sentinel_proxy_replicas_connections_accepted_total", "Client connections the master's read port accepted.", nameLabel...)
	descReadRefused      = desc("sentinel_proxy_replicas_connections_refused_total", "Client connections the master's read port closed at once (its maxclients, protected mode).", nameLabel...)
	descReadHoldExpired  = desc("sentinel_proxy_replicas_connections_hold_expired_total", "Client connections the master's read port closed after they waited proxy-hold out with nothing to serve them.", nameLabel...)
	descReadCut          = desc("sentinel_proxy_replicas_connections_cut_total", "Client connections the master's read port closed when their replica stopped qualifying (promoted, demoted, lagging, down) or the fallback ended.", nameLabel...)
	descReadBytes        = desc("sentinel_proxy_replicas_bytes_total", "Bytes the master's read port forwarded, by direction (to_server, to_client).", "master_name", "direction")
	descReadServing      = desc("sentinel_proxy_replicas_serving", "Replicas the master's read port spreads new connections over now.", nameLabel...)
	descReadOnMaster     = desc("sentinel_proxy_replicas_on_master", "1 while no replica qualifies and the master's read port forwards to the master.", nameLabel...)
	descReadFenced       = desc("sentinel_proxy_replicas_fenced", "1 while the master's read port forwards nowhere.", nameLabel...)
	descReadFencedSecs   = desc("sentinel_proxy_replicas_fenced_seconds_total", "Seconds the master's read port spent forwarding nowhere while listening.", nameLabel...)

	readDescs = []*prometheus.Desc{descReadOpen, descReadOpenByTarget, descReadAccepted, descReadRefused, descReadHoldExpired,
		descReadCut, descReadBytes, descReadServing, descReadOnMaster, descReadFenced, descReadFencedSecs}
)

// SetProxyReplicas makes the scrapes read the read ports' figures from
// read; it must be called before the first scrape.
func (m *Metrics) SetProxyReplicas(read func() []ReadProxyFigures) { m.reads = read }

// collectReads sends the read ports' figures at a scrape.
func (m *Metrics) collectReads(ch chan<- prometheus.Metric) {
	if m.reads == nil {
		return
	}
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	c := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for _, p := range m.reads() {
		g(descReadOpen, float64(p.Open), p.Master)
		for t, n := range p.OpenByTarget {
			g(descReadOpenByTarget, float64(n), p.Master, t)
		}
		g(descReadServing, float64(p.Serving), p.Master)
		g(descReadOnMaster, bool01(p.OnMaster), p.Master)
		g(descReadFenced, bool01(p.Fenced), p.Master)
		c(descReadAccepted, float64(p.Accepted), p.Master)
		c(descReadRefused, float64(p.Refused), p.Master)
		c(descReadHoldExpired, float64(p.HoldExpired), p.Master)
		c(descReadCut, float64(p.Cut), p.Master)
		c(descReadBytes, float64(p.BytesToServer), p.Master, "to_server")
		c(descReadBytes, float64(p.BytesToClient), p.Master, "to_client")
		c(descReadFencedSecs, p.FencedTime.Seconds(), p.Master)
	}
}
