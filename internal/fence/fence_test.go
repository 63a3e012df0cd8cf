package fence

import (
	"strings"
	"testing"
)

// base is a master of three Sentinels at epoch 2 whose two peers granted
// leases that run until 10500: the proxy may forward at 10000.
func base() Facts {
	return Facts{
		Self:       GrantFacts{Now: 10000, Known: true, Epoch: 2, ConfigEpoch: 2, LeaseMs: 1000, FailoverTimeout: 60000, ElectionTimeout: 10000},
		Voters:     3,
		FenceAfter: 1000,
		Peers:      []Peer{{GrantedUntil: 10500}, {GrantedUntil: 10500}},
	}
}

// TestReason: each rule fences on its own, in the order the checks run,
// and proxy-fencing no keeps only the checks of this Sentinel's own view.
func TestReason(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts func(f *Facts)
		want  string // a fragment of the reason; "" to forward
	}{
		{"forwards", func(f *Facts) {}, ""},
		{"tilt: the leases decide", func(f *Facts) { f.Tilt = true }, ""},
		{"failover", func(f *Facts) { f.Self.FailoverInProgress, f.Self.SDown = true, true }, "failover is in progress"},
		{"odown", func(f *Facts) { f.Self.ODown, f.Self.SDown = true, true }, "objectively down"},
		{"sdown", func(f *Facts) { f.Self.SDown = true }, "subjectively down"},
		{"reports a replica", func(f *Facts) { f.Self.ReportsReplica = true }, "reports itself a replica"},
		{"voted for another", func(f *Facts) { f.Self.VotedAt, f.Self.Leader, f.Self.LeaderEpoch = 5000, "bbb", 3 }, "voted for bbb in epoch 3"},
		{"a vote held back", func(f *Facts) { f.Self.IntentEpoch, f.Self.IntentAt = 3, 9000 }, "asked to vote in epoch 3"},
		{"vote no newer than the config", func(f *Facts) { f.Self.VotedAt, f.Self.LeaderEpoch = 5000, 2 }, ""},
		{"one lease lapsed", func(f *Facts) { f.Peers[0].GrantedUntil = 10000 }, ""},
		{"both leases lapsed", func(f *Facts) { f.Peers[0].GrantedUntil, f.Peers[1].GrantedUntil = 10000, 0 },
			"1 of the 3 Sentinels of the master granted a lease within proxy-fence-after 1000 ms (this one counted), 2 needed"},
		{"voters floor", func(f *Facts) { f.Voters = 5 }, ""},
		{"voters floor above", func(f *Facts) { f.Voters = 6 }, "3 of the 6 Sentinels"},
		{"no fencing: no leases", func(f *Facts) { f.NoFencing, f.Peers = true, nil }, ""},
		{"no fencing: voted", func(f *Facts) { f.NoFencing, f.Self.LeaderEpoch = true, 3 }, ""},
		{"no fencing: still sdown", func(f *Facts) { f.NoFencing, f.Self.SDown = true, true }, "subjectively down"},
		{"no fencing: tilt", func(f *Facts) { f.NoFencing, f.Tilt = true, true }, "TILT"},
		{"unanswered beyond half the lease", func(f *Facts) { f.Self.LeaseMs, f.Self.Unanswered = 1000, 501 }, "not answered this Sentinel for 501 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base()
			tc.facts(&f)
			got := Reason(f)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Reason = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestForwardUntil: the proxy forwards until the leases that make its
// majority lapse, less HolderMargin; without fencing, or alone, no bound.
func TestForwardUntil(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts func(f *Facts)
		want  int64
	}{
		{"the later of two leases is enough", func(f *Facts) { f.Peers[0].GrantedUntil = 10300 }, 10400},
		{"five voters: the second latest", func(f *Facts) {
			f.Voters = 5
			f.Peers = []Peer{{10200}, {10900}, {10600}, {10300}}
		}, 10500},
		{"no fencing", func(f *Facts) { f.NoFencing = true }, 0},
		{"alone", func(f *Facts) { f.Voters, f.Peers = 1, nil }, 0},
	} {
		f := base()
		tc.facts(&f)
		if got := ForwardUntil(f); got != tc.want {
			t.Errorf("%s: ForwardUntil = %d, want %d", tc.name, got, tc.want)
		}
	}
}
