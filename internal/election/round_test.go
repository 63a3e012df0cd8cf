package election

import "testing"

// TestElect is one election step of a candidate, b, in a fleet of 5
// (quorum 3) whose current epoch is 15 while its failover started in 14:
// every vote counted is of the current epoch, b's own included, and b
// wins only with an absolute majority of that one epoch.
func TestElect(t *testing.T) {
	const self = "b"
	peer := func(id, leader string, epoch uint64) Peer {
		return Peer{RunID: id, LinkUp: true, Leader: leader, LeaderEpoch: epoch}
	}
	tests := []struct {
		name  string
		vote  Vote
		peers []Peer
		want  Step
		wonBy bool
	}{
		{
			name: "votes of two epochs do not add up",
			// Chaos seeds 7495 and 8923 of fleet 1: b voted for itself
			// in 14, its failover's epoch; in 15 two peers vote for b
			// and b's vote went to a, which asked first. Redis 7.0
			// counts 2 + b's own of 14: elected with 2 of 5 in 15.
			vote:  Vote{CurrentEpoch: 15, Leader: "a", LeaderEpoch: 15},
			peers: []Peer{peer("a", "a", 15), peer("c", "b", 15), peer("d", "b", 15), peer("e", "b", 14)},
			want:  Step{Vote: Vote{CurrentEpoch: 15, Leader: "a", LeaderEpoch: 15}, Epoch: 15},
		},
		{
			name: "the own vote is cast in the current epoch",
			// b's last vote is of its failover's epoch 14; the step
			// casts it anew in 15, for b, which two peers voted for.
			vote:  Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 14},
			peers: []Peer{peer("a", "", 0), peer("c", "b", 15), peer("d", "b", 15), peer("e", "b", 14)},
			want:  Step{Vote: Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 15}, Voted: true, Epoch: 15, Winner: "b"},
			wonBy: true,
		},
		{
			name:  "a cast own vote stays",
			vote:  Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 15},
			peers: []Peer{peer("a", "b", 15), peer("c", "b", 15), peer("d", "a", 15), peer("e", "", 0)},
			want:  Step{Vote: Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 15}, Epoch: 15, Winner: "b"},
			wonBy: true,
		},
		{
			name: "votes of the failover's epoch no longer count",
			// Three of 14 for b, but the current epoch is 15: b must
			// be elected again, in 15. Its own vote is cast in 15.
			vote:  Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 14},
			peers: []Peer{peer("a", "b", 14), peer("c", "b", 14), peer("d", "", 0), peer("e", "", 0)},
			want:  Step{Vote: Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 15}, Voted: true, Epoch: 15},
		},
		{
			name:  "the own vote joins the leading candidate",
			vote:  Vote{CurrentEpoch: 15, Leader: "b", LeaderEpoch: 14},
			peers: []Peer{peer("a", "a", 15), peer("c", "a", 15), peer("d", "b", 15), peer("e", "", 0)},
			want:  Step{Vote: Vote{CurrentEpoch: 15, Leader: "a", LeaderEpoch: 15}, Voted: true, Epoch: 15, Winner: "a"},
		},
		{
			name:  "nobody voted yet: b votes for itself",
			vote:  Vote{CurrentEpoch: 14},
			peers: []Peer{peer("a", "", 0), peer("c", "", 0), peer("d", "", 0), peer("e", "", 0)},
			want:  Step{Vote: Vote{CurrentEpoch: 14, Leader: "b", LeaderEpoch: 14}, Voted: true, Epoch: 14},
		},
		{
			name:  "the winner's run id in another case",
			vote:  Vote{CurrentEpoch: 15, Leader: "B", LeaderEpoch: 15},
			peers: []Peer{peer("a", "B", 15), peer("c", "B", 15), peer("d", "", 0), peer("e", "", 0)},
			want:  Step{Vote: Vote{CurrentEpoch: 15, Leader: "B", LeaderEpoch: 15}, Epoch: 15, Winner: "B"},
			wonBy: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Elect(tt.vote, tt.peers, self, 5, 3)
			if got != tt.want {
				t.Fatalf("Elect = %+v, want %+v", got, tt.want)
			}
			if w := got.Won(self); w != tt.wonBy {
				t.Errorf("Won = %v, want %v", w, tt.wonBy)
			}
		})
	}
}

// TestElectOneLeaderPerEpoch plays every order of two candidates' asks
// to the other three of 5 Sentinels in one epoch, each candidate also
// casting its own vote at some point, and checks that never both are
// elected: with votes of one epoch only, two majorities would need a
// Sentinel that voted twice.
func TestElectOneLeaderPerEpoch(t *testing.T) {
	const epoch = 9
	ids := []string{"a", "b", "c", "d", "e"}
	// A schedule gives, for each of c, d, e, which candidate asked it
	// first (0: a, 1: b), and for each candidate whether its own step
	// ran before the other's ask reached it (then it votes for itself).
	for mask := 0; mask < 1<<5; mask++ {
		votes := map[string]string{}
		for k, id := range ids[2:] {
			votes[id] = ids[mask>>k&1]
		}
		aFirst, bFirst := mask>>3&1 == 1, mask>>4&1 == 1
		// A candidate that did not step first got the other's ask
		// first and voted for it.
		own := map[string]Vote{}
		for _, c := range []struct {
			id, other string
			first     bool
		}{{"a", "b", aFirst}, {"b", "a", bFirst}} {
			if c.first {
				own[c.id] = Vote{CurrentEpoch: epoch}
			} else {
				own[c.id] = Vote{CurrentEpoch: epoch, Leader: c.other, LeaderEpoch: epoch}
			}
		}
		won := 0
		for _, cand := range []string{"a", "b"} {
			var peers []Peer
			for _, id := range ids {
				if id == cand {
					continue
				}
				p := Peer{RunID: id, LinkUp: true}
				if v, ok := votes[id]; ok {
					p.Leader, p.LeaderEpoch = v, epoch
				} else if o := own[id]; o.Leader != "" {
					p.Leader, p.LeaderEpoch = o.Leader, o.LeaderEpoch
				}
				peers = append(peers, p)
			}
			step := Elect(own[cand], peers, cand, 5, 3)
			own[cand] = step.Vote
			if step.Won(cand) {
				won++
			}
		}
		if won > 1 {
			t.Fatalf("schedule %05b: both candidates elected in epoch %d", mask, epoch)
		}
	}
}
