package election

import "testing"

func TestWinner(t *testing.T) {
	tests := []struct {
		name           string
		votes          []string
		voters, quorum int
		want           string
	}{
		{"no votes", nil, 3, 2, ""},
		{"majority of 3", []string{"a", "a"}, 3, 2, "a"},
		{"one of 3 is not a majority", []string{"a"}, 3, 1, ""},
		{"split vote", []string{"a", "b", "c"}, 3, 1, ""},
		{"quorum above majority", []string{"a", "a", "a"}, 5, 4, ""},
		{"quorum reached", []string{"a", "a", "a", "a"}, 5, 4, "a"},
		{"majority of 5 with quorum 2", []string{"a", "a", "a", "b"}, 5, 2, "a"},
		{"2 of 5 is not a majority", []string{"a", "a"}, 5, 2, ""},
		{"tie for the most votes", []string{"b", "a", "b", "a"}, 4, 2, ""},
		{"two voters need both", []string{"a"}, 2, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ta Tally
			for _, v := range tt.votes {
				ta.Add(v)
			}
			if got := ta.Winner(tt.voters, tt.quorum); got != tt.want {
				t.Errorf("Winner = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLeadingIsDeterministic(t *testing.T) {
	for i := 0; i < 50; i++ {
		var ta Tally
		ta.Add("b")
		ta.Add("a")
		if id, n := ta.Leading(); id != "a" || n != 1 {
			t.Fatalf("Leading = %s %d", id, n)
		}
	}
}

func TestRequired(t *testing.T) {
	for _, tt := range []struct{ voters, quorum, want int }{{1, 1, 1}, {3, 2, 2}, {3, 3, 3}, {5, 2, 3}, {4, 1, 3}, {5, 7, 7}} {
		if got := Required(tt.voters, tt.quorum); got != tt.want {
			t.Errorf("Required(%d,%d) = %d, want %d", tt.voters, tt.quorum, got, tt.want)
		}
	}
}

func TestMajority(t *testing.T) {
	for _, tt := range []struct{ voters, want int }{{1, 1}, {2, 2}, {3, 2}, {4, 3}, {5, 3}, {6, 4}, {7, 4}} {
		if got := Majority(tt.voters); got != tt.want {
			t.Errorf("Majority(%d) = %d, want %d", tt.voters, got, tt.want)
		}
	}
}

func TestAddVote(t *testing.T) {
	tests := []struct {
		name        string
		leader      string
		leaderEpoch uint64
		epoch       uint64
		want        bool
	}{
		{"vote of the epoch", "a", 5, 5, true},
		{"older vote", "a", 4, 5, false},
		{"newer vote", "a", 6, 5, false},
		{"no vote", "", 5, 5, false},
		{"no vote in epoch 0", "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ta Tally
			if got := ta.AddVote(tt.leader, tt.leaderEpoch, tt.epoch); got != tt.want {
				t.Errorf("AddVote = %v, want %v", got, tt.want)
			}
			want := 0
			if tt.want {
				want = 1
			}
			if n := ta.Votes(tt.leader); n != want {
				t.Errorf("Votes = %d, want %d", n, want)
			}
		})
	}
}

// TestElectionTally is the tally of an election step as the core runs
// it: the peers' votes in the current epoch, then the candidate, then our
// own vote when it is a vote of the election's epoch.
func TestElectionTally(t *testing.T) {
	peers := []Peer{
		{RunID: "b", Leader: "a", LeaderEpoch: 7},
		{RunID: "c", Leader: "c", LeaderEpoch: 6}, // an older election
		{RunID: "d", Leader: "", LeaderEpoch: 7},  // no vote reported
		{RunID: "e", Leader: "a", LeaderEpoch: 7},
		{RunID: "f", Leader: "a", LeaderEpoch: 7},
	}
	tests := []struct {
		name           string
		peers          []Peer
		epoch          uint64
		self           string
		wantCandidate  string
		myVote         string
		myEpoch        uint64
		voters, quorum int
		wantWins       string
	}{
		{name: "own vote joins the leader", peers: peers, epoch: 7, self: "z", wantCandidate: "a",
			myVote: "a", myEpoch: 7, voters: 6, quorum: 2, wantWins: "a"},
		{name: "own vote of another epoch is left out", peers: peers, epoch: 7, self: "z", wantCandidate: "a",
			myVote: "a", myEpoch: 6, voters: 6, quorum: 2, wantWins: ""},
		{name: "nobody voted: the candidate is self", peers: peers, epoch: 8, self: "z", wantCandidate: "z",
			myVote: "z", myEpoch: 8, voters: 1, quorum: 1, wantWins: "z"},
		{name: "no peers", epoch: 1, self: "z", wantCandidate: "z",
			myVote: "z", myEpoch: 1, voters: 3, quorum: 2, wantWins: ""},
		{name: "our earlier vote for another", peers: peers, epoch: 7, self: "z", wantCandidate: "a",
			myVote: "c", myEpoch: 7, voters: 6, quorum: 2, wantWins: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := PeerVotes(tt.peers, tt.epoch)
			if got := ta.Candidate(tt.self); got != tt.wantCandidate {
				t.Errorf("Candidate = %q, want %q", got, tt.wantCandidate)
			}
			ta.AddVote(tt.myVote, tt.myEpoch, tt.epoch)
			if got := ta.Winner(tt.voters, tt.quorum); got != tt.wantWins {
				t.Errorf("Winner = %q, want %q", got, tt.wantWins)
			}
		})
	}
}

func TestPeerVotes(t *testing.T) {
	peers := []Peer{
		{Leader: "a", LeaderEpoch: 3},
		{Leader: "a", LeaderEpoch: 3},
		{Leader: "b", LeaderEpoch: 3},
		{Leader: "b", LeaderEpoch: 2},
		{Leader: "", LeaderEpoch: 3},
	}
	ta := PeerVotes(peers, 3)
	if a, b := ta.Votes("a"), ta.Votes("b"); a != 2 || b != 1 {
		t.Errorf("votes a=%d b=%d, want 2 and 1", a, b)
	}
	if n := ta.Votes(""); n != 0 {
		t.Errorf("votes for nobody = %d, want 0", n)
	}
	none := PeerVotes(peers, 9)
	if id, n := none.Leading(); id != "" || n != 0 {
		t.Errorf("no votes in epoch 9: Leading = %q %d", id, n)
	}
}
