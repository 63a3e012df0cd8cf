package metrics

import (
	"testing"
	"time"
)

// TestProxyMetrics: the proxy's figures are exported at each scrape, and
// the switch-to-first-byte times observed.
func TestProxyMetrics(t *testing.T) {
	_, read := newCore(t)
	m := New(read)
	got := gather(t, m)
	if _, ok := got["sentinel_proxy_connections_open{master_name=m}"]; ok {
		t.Fatal("proxy figures without SetProxy")
	}
	m.SetProxy(func() []ProxyFigures {
		return []ProxyFigures{{Master: "m", Open: 2, Accepted: 5, Refused: 1, HoldExpired: 1, Cut: 3,
			BytesToMaster: 100, BytesToClient: 200, Fenced: true, FencedTime: 1500 * time.Millisecond}}
	})
	m.ObserveProxyFirstByte("m", 20*time.Millisecond)
	got = gather(t, m)
	want(t, got, "sentinel_proxy_connections_open{master_name=m}", 2)
	want(t, got, "sentinel_proxy_connections_accepted_total{master_name=m}", 5)
	want(t, got, "sentinel_proxy_connections_refused_total{master_name=m}", 1)
	want(t, got, "sentinel_proxy_connections_hold_expired_total{master_name=m}", 1)
	want(t, got, "sentinel_proxy_connections_cut_total{master_name=m}", 3)
	want(t, got, "sentinel_proxy_bytes_total{direction=to_master,master_name=m}", 100)
	want(t, got, "sentinel_proxy_bytes_total{direction=to_client,master_name=m}", 200)
	want(t, got, "sentinel_proxy_fenced{master_name=m}", 1)
	want(t, got, "sentinel_proxy_fenced_seconds_total{master_name=m}", 1.5)
	want(t, got, "sentinel_proxy_switch_to_first_byte_seconds_count{master_name=m}", 1)
	want(t, got, "sentinel_proxy_switch_to_first_byte_seconds_sum{master_name=m}", 0.02)
}
