package election

import "testing"

// TestRequiredWithFloor is the majority a leader needs with the voters
// floor: max(quorum, V/2+1) where V = max(known, floor).
func TestRequiredWithFloor(t *testing.T) {
	tests := []struct {
		name                 string
		known, floor, quorum int
		voters, want         int
	}{
		{"no floor: Redis's count", 3, 0, 2, 3, 2},
		{"no floor, stale entries raise it", 5, 0, 2, 5, 3},
		{"floor equal to known", 3, 3, 2, 3, 2},
		{"floor above known: forgotten Sentinels still count", 1, 3, 1, 3, 2},
		{"minority of 5 that forgot the others", 2, 5, 2, 5, 3},
		{"floor below known: known wins", 5, 3, 2, 5, 3},
		{"quorum above the majority", 3, 3, 3, 3, 3},
		{"alone with a floor of 1", 1, 1, 1, 1, 1},
		{"alone, floor 2", 1, 2, 1, 2, 2},
		{"even floor", 2, 4, 1, 4, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Voters(tt.known, tt.floor); got != tt.voters {
				t.Errorf("Voters(%d, %d) = %d, want %d", tt.known, tt.floor, got, tt.voters)
			}
			if got := RequiredWithFloor(tt.known, tt.floor, tt.quorum); got != tt.want {
				t.Errorf("RequiredWithFloor(%d, %d, %d) = %d, want %d", tt.known, tt.floor, tt.quorum, got, tt.want)
			}
		})
	}
}

// TestForgetDue is the rule that forgets a known Sentinel entry.
func TestForgetDue(t *testing.T) {
	const now = 100_000
	on := Forget{After: 5000, Floor: 3, LastHeard: now - 5001}
	tests := []struct {
		name string
		f    Forget
		want bool
	}{
		{"silent longer than after", on, true},
		{"silent exactly after", Forget{After: 5000, Floor: 3, LastHeard: now - 5000}, false},
		{"heard recently", Forget{After: 5000, Floor: 3, LastHeard: now - 10}, false},
		{"no floor: inert", Forget{After: 5000, LastHeard: 0}, false},
		{"after 0: never", Forget{Floor: 3, LastHeard: 0}, false},
		{"failover in progress", Forget{After: 5000, Floor: 3, LastHeard: 0, FailoverInProgress: true}, false},
		{"in TILT", Forget{After: 5000, Floor: 3, LastHeard: 0, Tilt: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Due(now); got != tt.want {
				t.Errorf("Due = %v, want %v", got, tt.want)
			}
		})
	}
}
