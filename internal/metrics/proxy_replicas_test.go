package metrics

import (
	"testing"
	"time"
)

// TestReadProxyMetrics: the read ports' figures are exported at each
// scrape, under their own names.
func TestReadProxyMetrics(t *testing.T) {
	_, read := newCore(t)
	m := New(read)
	if _, ok := gather(t, m)["sentinel_proxy_replicas_connections_open{master_name=m}"]; ok {
		t.Fatal("read port figures without SetProxyReplicas")
	}
	m.SetProxyReplicas(func() []ReadProxyFigures {
		return []ReadProxyFigures{{Master: "m", Open: 3, OpenByTarget: map[string]int{"10.0.0.2:6379": 2, "10.0.0.3:6379": 1},
			Accepted: 7, Refused: 1, HoldExpired: 2, Cut: 4, BytesToServer: 10, BytesToClient: 20,
			Serving: 2, FencedTime: 250 * time.Millisecond}}
	})
	got := gather(t, m)
	want(t, got, "sentinel_proxy_replicas_connections_open{master_name=m}", 3)
	want(t, got, "sentinel_proxy_replicas_connections_open_by_target{master_name=m,target=10.0.0.2:6379}", 2)
	want(t, got, "sentinel_proxy_replicas_connections_open_by_target{master_name=m,target=10.0.0.3:6379}", 1)
	want(t, got, "sentinel_proxy_replicas_connections_accepted_total{master_name=m}", 7)
	want(t, got, "sentinel_proxy_replicas_connections_refused_total{master_name=m}", 1)
	want(t, got, "sentinel_proxy_replicas_connections_hold_expired_total{master_name=m}", 2)
	want(t, got, "sentinel_proxy_replicas_connections_cut_total{master_name=m}", 4)
	want(t, got, "sentinel_proxy_replicas_bytes_total{direction=to_server,master_name=m}", 10)
	want(t, got, "sentinel_proxy_replicas_bytes_total{direction=to_client,master_name=m}", 20)
	want(t, got, "sentinel_proxy_replicas_serving{master_name=m}", 2)
	want(t, got, "sentinel_proxy_replicas_on_master{master_name=m}", 0)
	want(t, got, "sentinel_proxy_replicas_fenced{master_name=m}", 0)
	want(t, got, "sentinel_proxy_replicas_fenced_seconds_total{master_name=m}", 0.25)
}
