package election

import "testing"

// TestUsability is the one definition of a usable Sentinel and of one
// that can vote, against every combination of link and flags.
func TestUsability(t *testing.T) {
	tests := []struct {
		name            string
		peer            Peer
		usable, canVote bool
	}{
		{"up with a live link", Peer{LinkUp: true}, true, true},
		{"up without a link", Peer{}, true, false},
		{"sdown with a live link", Peer{LinkUp: true, SDown: true}, false, false},
		{"odown with a live link", Peer{LinkUp: true, ODown: true}, false, false},
		{"sdown without a link", Peer{SDown: true}, false, false},
		{"reporting the master down", Peer{LinkUp: true, ReportsDown: true}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.peer.Usable(); got != tt.usable {
				t.Errorf("Usable = %v, want %v", got, tt.usable)
			}
			if got := tt.peer.CanVote(); got != tt.canVote {
				t.Errorf("CanVote = %v, want %v", got, tt.canVote)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	tests := []struct {
		name              string
		peers             []Peer
		usable, reachable int
	}{
		{"alone", nil, 1, 1},
		{"all up", []Peer{{LinkUp: true}, {LinkUp: true}}, 3, 3},
		// CKQUORUM does not look at links: a peer with no link counts.
		{"links down", []Peer{{}, {}}, 3, 1},
		{"one sdown", []Peer{{LinkUp: true, SDown: true}, {LinkUp: true}}, 2, 2},
		{"mixed", []Peer{{LinkUp: true}, {SDown: true}, {}, {LinkUp: true, ODown: true}}, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UsableCount(tt.peers); got != tt.usable {
				t.Errorf("UsableCount = %d, want %d", got, tt.usable)
			}
			if got := Reachable(tt.peers); got != tt.reachable {
				t.Errorf("Reachable = %d, want %d", got, tt.reachable)
			}
		})
	}
}
