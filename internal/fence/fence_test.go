package fence

import (
	"strings"
	"testing"
)

// base is a master of three Sentinels whose two peers answered a PING
// 100 ms ago and sent a hello 1 s ago: the proxy may forward.
func base() Facts {
	peer := Peer{Answered: true, LastAvail: 9900, HelloSeen: true, LastHello: 9000}
	return Facts{Now: 10000, Voters: 3, FenceAfter: 1000, PublishPeriod: 2000, FailoverTimeout: 60000,
		Peers: []Peer{peer, peer}}
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
		{"tilt", func(f *Facts) { f.Tilt = true }, "TILT"},
		{"failover", func(f *Facts) { f.FailoverInProgress, f.SDown = true, true }, "failover is in progress"},
		{"odown", func(f *Facts) { f.ODown, f.SDown = true, true }, "objectively down"},
		{"sdown", func(f *Facts) { f.SDown = true }, "subjectively down"},
		{"reports a replica", func(f *Facts) { f.ReportsReplica = true }, "reports itself a replica"},
		{"voted for another", func(f *Facts) { f.VotedAt, f.Leader, f.LeaderEpoch, f.ConfigEpoch = 5000, "bbb", 3, 2 }, "voted for bbb in epoch 3"},
		{"vote older than failover-timeout", func(f *Facts) { f.VotedAt, f.LeaderEpoch, f.FailoverTimeout = 5000, 3, 5000 }, ""},
		{"vote no newer than the config", func(f *Facts) { f.VotedAt, f.LeaderEpoch, f.ConfigEpoch = 5000, 3, 3 }, ""},
		{"one peer silent", func(f *Facts) { f.Peers[0].LastAvail = 8000 }, ""},
		{"both peers silent", func(f *Facts) { f.Peers[0].LastAvail, f.Peers[1].Answered = 8000, false },
			"1 of the 3 Sentinels of the master answered within proxy-fence-after 1000 ms (a PING, and a hello within 3500 ms), 2 needed"},
		{"hellos too old", func(f *Facts) { f.Peers[0].LastHello, f.Peers[1].LastHello = 6499, 6499 }, "1 of the 3"},
		{"hello at the window's edge", func(f *Facts) { f.Peers[0].LastHello, f.Peers[1].LastHello = 6500, 6500 }, ""},
		{"no hello processed", func(f *Facts) { f.Peers[0].HelloSeen, f.Peers[1].HelloSeen = false, false }, "1 of the 3"},
		{"voters floor", func(f *Facts) { f.Voters = 5 }, ""},
		{"voters floor above", func(f *Facts) { f.Voters = 6 }, "3 of the 6 Sentinels of the master answered"},
		{"no fencing: peers silent", func(f *Facts) { f.NoFencing, f.Peers = true, nil }, ""},
		{"no fencing: still sdown", func(f *Facts) { f.NoFencing, f.SDown = true, true }, "subjectively down"},
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
