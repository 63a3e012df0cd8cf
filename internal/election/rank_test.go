package election

import "testing"

func TestRank(t *testing.T) {
	up := func(id string) Peer { return Peer{RunID: id, LinkUp: true} }
	down := func(id string) Peer { return Peer{RunID: id, LinkUp: true, ReportsDown: true} }
	tests := []struct {
		name      string
		me        string
		peers     []Peer
		rank      int
		lowerDown bool
	}{
		{"alone", "bbbb", nil, 0, false},
		{"smallest run id", "aaaa", []Peer{up("bbbb"), up("cccc")}, 0, false},
		{"largest run id", "cccc", []Peer{up("aaaa"), up("bbbb")}, 2, false},
		{"in the middle", "bbbb", []Peer{up("cccc"), up("aaaa")}, 1, false},
		{"a smaller one reports down", "cccc", []Peer{up("aaaa"), down("bbbb")}, 2, true},
		{"only a larger one reports down", "bbbb", []Peer{up("aaaa"), down("cccc")}, 1, false},
		// Run ids compare without regard to case.
		{"upper case peer is smaller", "bbbb", []Peer{up("AAAA")}, 1, false},
		{"upper case self is larger", "BBBB", []Peer{up("aaaa")}, 1, false},
		{"upper case peer is larger", "bbbb", []Peer{up("CCCC")}, 0, false},
		// An equal run id (in any case) is not smaller.
		{"tie", "abcd", []Peer{up("ABCD"), up("abcd")}, 0, false},
		// Only a peer that can vote can lead, so only those rank.
		{"no link", "cccc", []Peer{{RunID: "aaaa", ReportsDown: true}, up("bbbb")}, 1, false},
		{"sdown", "cccc", []Peer{{RunID: "aaaa", LinkUp: true, SDown: true, ReportsDown: true}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rank, lowerDown := Rank(tt.me, tt.peers)
			if rank != tt.rank || lowerDown != tt.lowerDown {
				t.Errorf("Rank = %d %v, want %d %v", rank, lowerDown, tt.rank, tt.lowerDown)
			}
		})
	}
}

func TestLadder(t *testing.T) {
	tests := []struct {
		name                  string
		now                   int64
		rank                  int
		step, hold, jitter    int64
		wantAt, wantHoldUntil int64
	}{
		{"rank 0 starts after the jitter", 1000, 0, 200, 500, 30, 1030, 1030},
		{"rank 0 without jitter starts now", 1000, 0, 200, 500, 0, 1000, 1000},
		{"rank 1", 1000, 1, 200, 500, 30, 1230, 1730},
		{"rank 3", 1000, 3, 200, 500, 7, 1607, 3107},
		{"no hold", 1000, 2, 200, 0, 0, 1400, 1400},
		{"jitter only", 1000, 2, 0, 0, 99, 1099, 1099},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, holdUntil := Ladder(tt.now, tt.rank, tt.step, tt.hold, tt.jitter)
			if at != tt.wantAt || holdUntil != tt.wantHoldUntil {
				t.Errorf("Ladder = %d %d, want %d %d", at, holdUntil, tt.wantAt, tt.wantHoldUntil)
			}
		})
	}
}

func TestWait(t *testing.T) {
	const at, holdUntil, step = 1000, 2000, 300
	tests := []struct {
		name      string
		now       int64
		lowerDown bool
		wait      bool
		until     int64
	}{
		{"before the start", 500, false, true, at},
		{"before the start, a smaller one down", 500, true, true, at},
		{"at the start", at, false, false, 0},
		{"in the hold, nobody smaller down", 1500, false, false, 0},
		{"in the hold, a smaller one down", 1500, true, true, 1800},
		{"the last step of the hold", 1900, true, true, holdUntil},
		{"the hold is over", holdUntil, true, false, 0},
		{"after the hold", 2500, true, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wait, until := Wait(tt.now, at, holdUntil, step, tt.lowerDown)
			if wait != tt.wait || until != tt.until {
				t.Errorf("Wait = %v %d, want %v %d", wait, until, tt.wait, tt.until)
			}
		})
	}
}

func TestLowerBusy(t *testing.T) {
	const me = "bbbb"
	peer := func(id string, down, asking bool) Peer {
		return Peer{RunID: id, LinkUp: true, ReportsDown: down, AskingVotes: asking}
	}
	tests := []struct {
		name  string
		peers []Peer
		want  bool
	}{
		{"nobody", nil, false},
		{"a smaller one down, not asking", []Peer{peer("aaaa", true, false)}, false},
		{"a smaller one asking, not down", []Peer{peer("aaaa", false, true)}, false},
		{"a smaller one down and asking", []Peer{peer("AAAA", true, true)}, true},
		{"a larger one down and asking", []Peer{peer("cccc", true, true)}, false},
		{"a smaller one down and asking, unreachable", []Peer{{RunID: "aaaa", ReportsDown: true, AskingVotes: true}}, false},
	}
	for _, tt := range tests {
		if got := LowerBusy(me, tt.peers); got != tt.want {
			t.Errorf("%s: LowerBusy = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestExtend(t *testing.T) {
	const at, holdUntil, step, maxHold = 1000, 2000, 100, 10000
	tests := []struct {
		name string
		now  int64
		busy bool
		want int64
	}{
		{"not busy", 1950, false, holdUntil},
		{"before the start", 500, true, holdUntil},
		{"busy, inside the hold", 1500, true, holdUntil},
		{"busy, at the end of the hold", 1950, true, 2050},
		{"busy, later", 6000, true, 6100},
		{"busy, at the limit", 10950, true, at + maxHold},
	}
	for _, tt := range tests {
		if got := Extend(tt.now, at, holdUntil, step, maxHold, tt.busy); got != tt.want {
			t.Errorf("%s: Extend = %d, want %d", tt.name, got, tt.want)
		}
	}
}
