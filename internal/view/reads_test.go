package view

import (
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/readroute"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

func TestReadRoute(t *testing.T) {
	v := testView("a")
	if _, ok := v.ReadRoute("a"); ok {
		t.Fatal("a route for a master without a read port")
	}
	st := &settings.Master{ProxyReplicas: []settings.Addr{{Host: "127.0.0.1", Port: 7001}}, ProxyReplicaMaxLagMs: 3000, ProxyHoldMs: 1500}
	if h := ReadsHeadOf(st, readroute.State{}); !h.Fenced || h.Reason != "not decided yet" || !h.Protected {
		t.Fatalf("undecided: %+v", h)
	}
	r2 := settings.Addr{Host: "10.0.0.2", Port: 6379}
	v.At(0).Reads = ReadsHeadOf(st, readroute.State{Known: true, Serve: &readroute.Serve{Addrs: []settings.Addr{r2}, Text: "10.0.0.2 6379"}})
	r, ok := v.ReadRoute("a")
	if !ok || r.Fenced || r.OnMaster || len(r.Addrs) != 1 || r.Addrs[0] != r2 || r.Hold != 1500*time.Millisecond || !r.Forwards(time.UnixMilli(1)) {
		t.Fatalf("ReadRoute = %+v, %v", r, ok)
	}
	if kv, _ := v.Master(time.UnixMilli(1000), "a"); field(kv, "proxy-replicas-state") != "replicas: 10.0.0.2 6379" || field(kv, "proxy-replica-max-lag") != "3000" {
		t.Fatalf("fields = %v", kv)
	}
	// The fallback to the master ends at its leases' end.
	v.At(0).Reads = ReadsHeadOf(st, readroute.State{Known: true, OnMaster: true, Until: 5000})
	r, _ = v.ReadRoute("a")
	if !r.OnMaster || len(r.Addrs) != 1 || r.Addrs[0] != v.At(0).Addr || !r.Forwards(time.UnixMilli(4999)) || r.Forwards(time.UnixMilli(5000)) {
		t.Fatalf("fallback = %+v", r)
	}
	if p := v.ReadProxies(); len(p["a"]) != 1 {
		t.Fatalf("ReadProxies = %v", p)
	}
}
