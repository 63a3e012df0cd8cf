package failover

import (
	"strings"
	"testing"
)

// TestConvert: each rule decides on its own, in order: held while it is
// this Sentinel's promotion or the master is not sane; at once on a
// majority's leases; after Redis's wait without them, if a peer's hello
// came meanwhile; meanwhile paused
// and asking while the leases may still come.
func TestConvert(t *testing.T) {
	base := func() ConvertFacts {
		return ConvertFacts{MasterSane: true, ReportedFor: 100, NoDown: true, Wait: 8000, PeerHeard: true,
			Unconfirmed: "1 of 3", Confirmable: true}
	}
	for _, tc := range []struct {
		name   string
		facts  func(f *ConvertFacts)
		act    ConvertAct
		branch ConvertBranch
		why    string // a fragment of Why
	}{
		{"asks first", func(f *ConvertFacts) {}, ConvertConfirm, BranchConfirming, "writes are paused"},
		{"confirmed", func(f *ConvertFacts) { f.Unconfirmed = "" }, ConvertNow, BranchConfirmed, "no newer configuration"},
		{"confirmed at once, down just now", func(f *ConvertFacts) { f.Unconfirmed, f.NoDown, f.ReportedFor = "", false, 0 }, ConvertNow, BranchConfirmed, ""},
		{"promoted here", func(f *ConvertFacts) { f.Promoted, f.Unconfirmed = true, "" }, ConvertNot, BranchHeld, "promotes"},
		{"master not sane", func(f *ConvertFacts) { f.MasterSane, f.Unconfirmed = false, "" }, ConvertNot, BranchHeld, "does not look sane"},
		{"redis's wait over", func(f *ConvertFacts) { f.ReportedFor = 8001 }, ConvertNow, BranchWaited, "longer than Redis's wait of 8000 ms"},
		{"a fork, confirmed: Redis's wait", func(f *ConvertFacts) { f.Fork, f.Unconfirmed = "a fork", "" }, ConvertNot, BranchWaiting, "not at once, as a fork; Redis's wait of 8000 ms applies (reported role master for 100 ms)"},
		{"a fork, not asked for", func(f *ConvertFacts) { f.Fork = "a fork" }, ConvertNot, BranchWaiting, "a fork"},
		{"a fork, after the wait", func(f *ConvertFacts) { f.Fork, f.ReportedFor = "a fork", 8001 }, ConvertNow, BranchWaited, "a fork"},
		{"redis's wait over, no peer heard", func(f *ConvertFacts) { f.ReportedFor, f.PeerHeard = 8001, false }, ConvertNot, BranchWaiting, "no other Sentinel's hello reached this one"},
		{"a fork, after the wait, no peer heard", func(f *ConvertFacts) { f.Fork, f.ReportedFor, f.PeerHeard = "a fork", 8001, false }, ConvertNot, BranchWaiting, "no other Sentinel's hello"},
		{"confirmed, no peer heard", func(f *ConvertFacts) { f.Unconfirmed, f.PeerHeard = "", false }, ConvertNow, BranchConfirmed, ""},
		{"redis's wait not over", func(f *ConvertFacts) { f.ReportedFor, f.Confirmable = 8000, false }, ConvertNot, BranchWaiting, "Redis's wait of 8000 ms applies"},
		{"redis's wait, down within it", func(f *ConvertFacts) { f.ReportedFor, f.NoDown, f.Confirmable = 9000, false, false }, ConvertNot, BranchWaiting, ""},
		{"cannot confirm", func(f *ConvertFacts) { f.Confirmable = false }, ConvertNot, BranchWaiting, "1 of 3"},
	} {
		f := base()
		tc.facts(&f)
		v := Convert(f)
		if v.Act != tc.act || v.Branch != tc.branch || !strings.Contains(v.Why, tc.why) {
			t.Errorf("%s: Convert = %+v, want act %d branch %s why ~%q", tc.name, v, tc.act, tc.branch, tc.why)
		}
	}
}
