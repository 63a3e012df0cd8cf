package fence

import (
	"strings"
	"testing"
)

// grantBase is a Sentinel asked for a lease on a master it holds at the
// asked epoch, with two peers whose last hellos hold it too: it grants.
func grantBase() GrantFacts {
	return GrantFacts{Now: 100000, Known: true, Epoch: 4, ConfigEpoch: 4, LeaseMs: 2000, FailoverTimeout: 10000, ElectionTimeout: 5000,
		Peers: []HelloPeer{{LastHello: 99000, Holds: true}, {LastHello: 98000, Holds: true}}}
}

// TestGrant: each rule refuses on its own; a vote in a newer epoch
// refuses until it settled and every peer's hello since holds the master.
func TestGrant(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts func(f *GrantFacts)
		want  string // a fragment of the refusal; "" to grant
	}{
		{"grants", func(f *GrantFacts) {}, ""},
		{"unknown master", func(f *GrantFacts) { f.Known = false }, "not monitored"},
		{"unanswered for half the lease", func(f *GrantFacts) { f.Unanswered = 1000 }, ""},
		{"unanswered beyond half the lease", func(f *GrantFacts) { f.Unanswered = 1001 }, "has not answered this Sentinel for 1001 ms, longer than half the lease's 2000 ms"},
		{"failover", func(f *GrantFacts) { f.FailoverInProgress = true }, "failover is in progress"},
		{"odown", func(f *GrantFacts) { f.ODown = true }, "objectively down"},
		{"sdown", func(f *GrantFacts) { f.SDown = true }, "subjectively down"},
		{"reports a replica", func(f *GrantFacts) { f.ReportsReplica = true }, "reports itself a replica"},
		{"older epoch asked", func(f *GrantFacts) { f.Epoch = 3 }, "epoch is 4 here, not 3"},
		{"newer epoch asked", func(f *GrantFacts) { f.Epoch = 5 }, "epoch is 4 here, not 5"},
		{"intent", func(f *GrantFacts) { f.IntentEpoch, f.IntentAt = 5, 96000 }, "asked to vote in epoch 5"},
		{"intent at the election's end", func(f *GrantFacts) { f.IntentEpoch, f.IntentAt = 5, 95000 }, ""},
		{"intent not newer", func(f *GrantFacts) { f.IntentEpoch, f.IntentAt = 4, 99000 }, ""},
		{"voted", func(f *GrantFacts) { f.Leader, f.LeaderEpoch, f.VotedAt = "ccc", 5, 90000 }, "voted for ccc in epoch 5"},
		{"voted before a restart", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt = 5, 90000 }, "voted for a Sentinel in epoch 5"},
		{"vote settled, hellos since", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt = 5, 70000 }, ""},
		{"vote settled, a hello before", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt, f.Peers[1].LastHello = 5, 70000, 94999 }, "voted"},
		{"vote settled, a peer holds another", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt, f.Peers[0].Holds = 5, 70000, false }, "voted"},
		{"vote settled, no hello", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt, f.Peers[0].LastHello = 5, 70000, 0 }, "voted"},
		{"vote not settled", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt = 5, 75001 }, "voted"},
		{"vote not newer", func(f *GrantFacts) { f.LeaderEpoch, f.VotedAt = 4, 99000 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := grantBase()
			tc.facts(&f)
			got := Grant(f)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Grant = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLapse: a grant binds its grantor for the lease and the margin for
// two clocks' rates, and a vote waits for it to lapse.
func TestLapse(t *testing.T) {
	for _, tc := range []struct{ lease, lapse int64 }{{1, 51}, {1000, 1070}, {2000, 2090}, {5000, 5150}} {
		if got := Lapse(tc.lease); got != tc.lapse {
			t.Errorf("Lapse(%d) = %d, want %d", tc.lease, got, tc.lapse)
		}
		// The holder's clock 1 % slow, the grantor's 1 % fast: the
		// holder's lease, sent before the grant, ends by real time
		// lease/0.99 after the grant, which the grantor's clock shows
		// as at most lease × 1.01/0.99 < Lapse.
		if real := float64(tc.lease) * 1.01 / 0.99; real >= float64(Lapse(tc.lease)) {
			t.Errorf("Lapse(%d) = %d, not beyond %f", tc.lease, Lapse(tc.lease), real)
		}
	}
	if !VoteDeferred(999, 1000) || VoteDeferred(1000, 1000) || VoteDeferred(5, 0) {
		t.Error("VoteDeferred: a vote waits until the lapse, not at it, and never without grants")
	}
	if got := SettledAt(1000, 60000, 10000); got != 131000 {
		t.Errorf("SettledAt = %d, want 131000", got)
	}
}
