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
