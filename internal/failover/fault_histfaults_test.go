//go:build histfaults

package failover

import "testing"

// TestFaultLateJoin: a returning master whose configuration a majority's
// leases confirm is converted at once, and one they may still confirm is
// paused and asked for; with the latejoin fault set both wait, and only
// Redis's wait converts.
func TestFaultLateJoin(t *testing.T) {
	defer func(was bool) { faultLateJoin = was }(faultLateJoin)
	confirmed := ConvertFacts{MasterSane: true, ReportedFor: 100, NoDown: true, Wait: 8000, PeerHeard: true}
	confirming := confirmed
	confirming.Unconfirmed, confirming.Confirmable = "1 of 3", true
	waited := confirmed
	waited.ReportedFor = 8001

	for _, tc := range []struct {
		name   string
		fault  bool
		facts  ConvertFacts
		branch ConvertBranch
	}{
		{"confirmed", false, confirmed, BranchConfirmed},
		{"confirming", false, confirming, BranchConfirming},
		{"confirmed, latejoin", true, confirmed, BranchWaiting},
		{"confirming, latejoin", true, confirming, BranchWaiting},
		{"after Redis's wait, latejoin", true, waited, BranchWaited},
	} {
		faultLateJoin = tc.fault
		if v := Convert(tc.facts); v.Branch != tc.branch {
			t.Errorf("%s: Convert = %v (%s), want branch %s", tc.name, v.Branch, v.Why, tc.branch)
		}
	}
}
