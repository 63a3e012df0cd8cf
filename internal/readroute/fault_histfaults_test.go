//go:build histfaults

package readroute

import (
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestFaultReadLag: a replica whose acknowledged offset stopped 9 s ago
// is excluded by proxy-replica-max-lag 4000, and with the readlag fault
// set it is served; the other exclusions still apply.
func TestFaultReadLag(t *testing.T) {
	defer func(was bool) { faultReadLag = was }(faultReadLag)
	a := settings.Addr{Host: "10.0.0.2", Port: 6379}
	h := []Sample{{At: 0, Offset: 0}, {At: 1000, Offset: 100}, {At: 10000, Offset: 1000}}
	lagging := Replica{Addr: a, Priority: 100, Listed: true, Offset: 100}
	f := Facts{Now: 10000, Replicas: []Replica{lagging}, History: h, MaxLagMs: 4000, NoFallback: true}

	faultReadLag = false
	if why := Exclude(&f, lagging); !strings.Contains(why, "lags 9000 ms") {
		t.Fatalf("without the fault: Exclude = %q, want the lag", why)
	}
	if v := Decide(f); len(v.Serve) != 0 {
		t.Fatalf("without the fault: Decide serves %v, want none", v.Serve)
	}

	faultReadLag = true
	if why := Exclude(&f, lagging); why != "" {
		t.Fatalf("readlag: Exclude = %q, want \"\" (served)", why)
	}
	if v := Decide(f); len(v.Serve) != 1 || v.Serve[0] != a {
		t.Fatalf("readlag: Decide serves %v, want [%v]", v.Serve, a)
	}
	down := lagging
	down.MasterLinkDown = true
	if why := Exclude(&f, down); why != "master_link_status not up" {
		t.Fatalf("readlag: Exclude = %q for a replica whose link is down, want it excluded", why)
	}
}
