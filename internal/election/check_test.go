package election

import "testing"

// TestCheckQuorum is SENTINEL CKQUORUM's verdict and Redis 7.0's reply
// texts (sentinelCommand's "ckquorum" branch), without the RESP framing.
func TestCheckQuorum(t *testing.T) {
	up := Peer{LinkUp: true}
	noLink := Peer{}
	sdown := Peer{LinkUp: true, SDown: true}
	tests := []struct {
		name   string
		peers  []Peer
		quorum int
		floor  int
		want   Check
		reply  string
	}{
		{"alone with quorum 1", nil, 1, 0, Check{Usable: 1},
			"OK 1 usable Sentinels. Quorum and failover authorization can be reached"},
		{"three up", []Peer{up, up}, 2, 0, Check{Usable: 3},
			"OK 3 usable Sentinels. Quorum and failover authorization can be reached"},
		// CKQUORUM does not look at the links, as in Redis.
		{"links down still count", []Peer{noLink, noLink}, 3, 0, Check{Usable: 3},
			"OK 3 usable Sentinels. Quorum and failover authorization can be reached"},
		{"no quorum", []Peer{up, up}, 4, 0, Check{Usable: 3, NoQuorum: true},
			"NOQUORUM 3 usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master"},
		{"no majority", []Peer{sdown, sdown, up}, 1, 0, Check{Usable: 2, NoMajority: true},
			"NOQUORUM 2 usable Sentinels. Not enough available Sentinels to reach the majority and authorize a failover"},
		{"neither", []Peer{sdown, sdown}, 2, 0, Check{Usable: 1, NoQuorum: true, NoMajority: true},
			"NOQUORUM 1 usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master. " +
				"Not enough available Sentinels to reach the majority and authorize a failover"},
		{"odown counts as down", []Peer{{ODown: true}}, 1, 0, Check{Usable: 1, NoMajority: true},
			"NOQUORUM 1 usable Sentinels. Not enough available Sentinels to reach the majority and authorize a failover"},
		{"two of two is the majority", []Peer{up}, 2, 0, Check{Usable: 2},
			"OK 2 usable Sentinels. Quorum and failover authorization can be reached"},
		// The voters floor: two known of a fleet of 5 are no majority.
		{"floor above the known", []Peer{up}, 2, 5, Check{Usable: 2, NoMajority: true},
			"NOQUORUM 2 usable Sentinels. Not enough available Sentinels to reach the majority and authorize a failover"},
		{"floor met", []Peer{up, up}, 2, 5, Check{Usable: 3},
			"OK 3 usable Sentinels. Quorum and failover authorization can be reached"},
		{"floor below the known", []Peer{up, up, sdown, sdown}, 2, 3, Check{Usable: 3},
			"OK 3 usable Sentinels. Quorum and failover authorization can be reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckQuorum(tt.peers, tt.quorum, tt.floor)
			if got != tt.want {
				t.Fatalf("CheckQuorum = %+v, want %+v", got, tt.want)
			}
			if ok := !tt.want.NoQuorum && !tt.want.NoMajority; got.OK() != ok {
				t.Errorf("OK = %v, want %v", got.OK(), ok)
			}
			if r := got.Reply(); r != tt.reply {
				t.Errorf("Reply = %q, want %q", r, tt.reply)
			}
		})
	}
}

func TestCheckTexts(t *testing.T) {
	c := Check{Usable: 2, NoQuorum: true}
	if got, want := c.OKText(), "OK 2 usable Sentinels. Quorum and failover authorization can be reached"; got != want {
		t.Errorf("OKText = %q, want %q", got, want)
	}
	if got, want := c.NoQuorumText(), "2 usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master"; got != want {
		t.Errorf("NoQuorumText = %q, want %q", got, want)
	}
	if got, want := c.Reply(), NoQuorumCode+" "+c.NoQuorumText(); got != want {
		t.Errorf("Reply = %q, want %q", got, want)
	}
}
