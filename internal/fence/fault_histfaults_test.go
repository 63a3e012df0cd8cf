//go:build histfaults

package fence

import "testing"

// TestFaultNoFence: with both leases lapsed the proxy is fenced, and with
// the nofence fault set it forwards with no bound, so neither the core
// nor the adapter's own clock check stops it.
func TestFaultNoFence(t *testing.T) {
	defer func(was bool) { faultNoFence = was }(faultNoFence)
	f := base()
	f.Peers[0].GrantedUntil, f.Peers[1].GrantedUntil = 10000, 0

	faultNoFence = false
	if why := Reason(f); why == "" {
		t.Fatalf("without the fault: Reason = \"\", want fenced")
	}
	g := base()
	if until := ForwardUntil(g); until != 10400 {
		t.Fatalf("without the fault: ForwardUntil = %d, want 10400", until)
	}

	faultNoFence = true
	if why := Reason(f); why != "" {
		t.Fatalf("nofence: Reason = %q, want \"\" (forwards)", why)
	}
	if until := ForwardUntil(f); until != 0 {
		t.Fatalf("nofence: ForwardUntil = %d, want 0 (no bound)", until)
	}
	f.Self.SDown = true
	if why := Reason(f); why == "" {
		t.Fatalf("nofence: Reason = \"\" for an SDOWN master, want fenced: the fault removes the lease alone")
	}
}
