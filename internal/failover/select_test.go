package failover

import (
	"errors"
	"testing"
)

var limits = Limits{MaxSinceOKPing: 5000, MaxSinceInfo: 5000, MaxMasterLinkDown: 30000}

func good(id string, prio int, off uint64, runid string) Candidate {
	return Candidate{ID: id, RunID: runid, Priority: prio, ReplOffset: off}
}

// linked marks c as reporting its link to the master up.
func linked(c Candidate) Candidate {
	c.MasterLinkUp = true
	return c
}

func TestSelect(t *testing.T) {
	tests := []struct {
		name  string
		cands []Candidate
		want  string
	}{
		{"lower priority wins", []Candidate{good("a", 100, 10, "x"), good("b", 10, 1, "y")}, "b"},
		{"higher offset wins at equal priority", []Candidate{good("a", 100, 10, "x"), good("b", 100, 20, "y")}, "b"},
		{"smaller run id breaks ties", []Candidate{good("a", 100, 10, "bbb"), good("b", 100, 10, "AAA")}, "b"},
		{"missing run id sorts last", []Candidate{good("a", 100, 10, ""), good("b", 100, 10, "zzz")}, "b"},
		{"priority 0 never promotes", []Candidate{good("a", 0, 99, "a"), good("b", 100, 1, "b")}, "b"},
		{"down replica excluded", []Candidate{{ID: "a", Priority: 1, Down: true}, good("b", 100, 1, "b")}, "b"},
		{"disconnected replica excluded", []Candidate{{ID: "a", Priority: 1, Disconnected: true}, good("b", 100, 1, "b")}, "b"},
		{"stale ping excluded", []Candidate{{ID: "a", Priority: 1, SinceOKPing: 6000}, good("b", 100, 1, "b")}, "b"},
		{"stale info excluded", []Candidate{{ID: "a", Priority: 1, SinceInfo: 6000}, good("b", 100, 1, "b")}, "b"},
		{"long master link down excluded", []Candidate{{ID: "a", Priority: 1, MasterLinkDown: 60000}, good("b", 100, 1, "b")}, "b"},
		{"a replica following the master wins over one that is not", []Candidate{good("a", 1, 99, "a"), linked(good("b", 100, 1, "b"))}, "b"},
		{"with every link down Redis's order decides", []Candidate{good("a", 100, 5, "a"), good("b", 100, 9, "b")}, "b"},
		{"among linked replicas Redis's order decides", []Candidate{linked(good("a", 100, 5, "a")), linked(good("b", 100, 9, "b")), good("c", 1, 99, "c")}, "b"},
		{"a replica that never synced is passed over for one that did", []Candidate{neverLinked(good("a", 1, 99, "a")), good("b", 100, 1, "b")}, "b"},
		{"replicas that never synced, alone, are Redis's to order", []Candidate{neverLinked(good("a", 100, 5, "a")), neverLinked(good("b", 100, 9, "b"))}, "b"},
		{"a replica following another replica is excluded", []Candidate{{ID: "a", Priority: 1, ReplOffset: 99, FollowsReplica: true}, good("b", 100, 1, "b")}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(tt.cands, limits)
			if err != nil || got.ID != tt.want {
				t.Fatalf("Select = %q, %v; want %q", got.ID, err, tt.want)
			}
		})
	}
}

// neverLinked marks c as reporting master_link_down_since_seconds:-1.
func neverLinked(c Candidate) Candidate {
	c.NeverLinked = true
	c.MasterLinkDown = -1000
	return c
}

func TestSelectNone(t *testing.T) {
	_, err := Select([]Candidate{good("a", 0, 1, "a"), {ID: "b", Priority: 1, Down: true}}, limits)
	if !errors.Is(err, ErrNoGoodReplica) {
		t.Fatalf("err = %v", err)
	}
	// The only replica left follows another replica: a failover on the
	// other side of a partition promoted that one, so this Sentinel must
	// not start a second master.
	_, err = Select([]Candidate{{ID: "a", Priority: 100, FollowsReplica: true}}, limits)
	if !errors.Is(err, ErrNoGoodReplica) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Select(nil, limits); !errors.Is(err, ErrNoGoodReplica) {
		t.Fatalf("err = %v", err)
	}
}

func TestExclude(t *testing.T) {
	l := Limits{MaxSinceOKPing: 5000, MaxSinceInfo: 30000, MaxMasterLinkDown: 60000}
	ok := Candidate{ID: "r", Priority: 100}
	for _, tc := range []struct {
		name string
		edit func(*Candidate)
		want Exclusion
	}{
		{"eligible", func(*Candidate) {}, Eligible},
		{"down", func(c *Candidate) { c.Down = true }, ExcludedDown},
		{"disconnected", func(c *Candidate) { c.Disconnected = true }, ExcludedLinkDown},
		{"stale ping", func(c *Candidate) { c.SinceOKPing = 6000 }, ExcludedStalePing},
		{"priority 0", func(c *Candidate) { c.Priority = 0 }, ExcludedPriority0},
		{"stale info", func(c *Candidate) { c.SinceInfo = 31000 }, ExcludedStaleInfo},
		{"master link down", func(c *Candidate) { c.MasterLinkDown = 120000 }, ExcludedMasterLink},
		{"first rule wins", func(c *Candidate) { c.Priority = 0; c.Down = true }, ExcludedDown},
		{"at the limits", func(c *Candidate) {
			c.SinceOKPing, c.SinceInfo, c.MasterLinkDown = l.MaxSinceOKPing, l.MaxSinceInfo, l.MaxMasterLinkDown
		}, Eligible},
	} {
		c := ok
		tc.edit(&c)
		if got := Exclude(c, l); got != tc.want {
			t.Errorf("%s: Exclude = %q, want %q", tc.name, got, tc.want)
		}
	}
}
