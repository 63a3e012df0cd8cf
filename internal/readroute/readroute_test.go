package readroute

import (
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

func TestLag(t *testing.T) {
	h := []Sample{{At: 1000, Offset: 100}, {At: 2000, Offset: 200}, {At: 3000, Offset: 300}}
	tests := []struct {
		name    string
		history []Sample
		off     int64
		now     int64
		want    int64
		ok      bool
	}{
		{"no history", nil, 5, 3000, 0, false},
		{"caught up", h, 300, 3500, 500, true},
		{"ahead of the last sample", h, 350, 3000, 0, true},
		{"one sample behind", h, 250, 3000, 1000, true},
		{"between the first two", h, 150, 3200, 2200, true},
		{"behind every sample: at least the oldest", h, 50, 4000, 3000, true},
		{"clock before the sample", h, 300, 2900, 0, true},
	}
	for _, tc := range tests {
		got, ok := Lag(tc.history, tc.off, tc.now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Lag = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDecide(t *testing.T) {
	a := settings.Addr{Host: "10.0.0.2", Port: 6379}
	b := settings.Addr{Host: "10.0.0.3", Port: 6379}
	h := []Sample{{At: 0, Offset: 0}, {At: 5000, Offset: 500}, {At: 9000, Offset: 900}, {At: 10000, Offset: 1000}}
	ok := func(addr settings.Addr) Replica {
		return Replica{Addr: addr, Priority: 100, Listed: true, Offset: 1000}
	}
	with := func(r Replica, f func(*Replica)) Replica { f(&r); return r }
	base := func(rs ...Replica) Facts {
		return Facts{Now: 10000, Replicas: rs, History: h, MaxLagMs: 4000}
	}
	tests := []struct {
		name  string
		facts Facts
		want  Verdict
	}{
		{"both qualify", base(ok(a), ok(b)), Verdict{Serve: []settings.Addr{a, b}}},
		{"sdown", base(with(ok(a), func(r *Replica) { r.SDown = true }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "subjectively down"}}}},
		{"link down", base(with(ok(a), func(r *Replica) { r.LinkDown = true }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "link down"}}}},
		{"reports master", base(with(ok(a), func(r *Replica) { r.ReportsMaster = true }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "promoted"}}}},
		{"chosen for promotion", base(with(ok(a), func(r *Replica) { r.Promoted = true }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "promoted"}}}},
		{"follows another master", base(with(ok(a), func(r *Replica) { r.FollowsOther = true }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "replicates from another master"}}}},
		{"master link down", base(with(ok(a), func(r *Replica) { r.MasterLinkDown = true }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "master_link_status not up"}}}},
		{"priority 0 served by default", base(with(ok(a), func(r *Replica) { r.Priority = 0 }), ok(b)),
			Verdict{Serve: []settings.Addr{a, b}}},
		{"priority 0 left out when asked", func() Facts {
			f := base(with(ok(a), func(r *Replica) { r.Priority = 0 }), ok(b))
			f.NoPriorityZero = true
			return f
		}(), Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "replica-priority 0"}}}},
		{"lag within max-lag", base(with(ok(a), func(r *Replica) { r.Offset = 900 }), ok(b)),
			Verdict{Serve: []settings.Addr{a, b}}},
		{"lag over max-lag", base(with(ok(a), func(r *Replica) { r.Offset = 400 }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "lags 10000 ms, over proxy-replica-max-lag 4000 ms"}}}},
		{"lag not checked at max-lag 0", func() Facts {
			f := base(with(ok(a), func(r *Replica) { r.Offset = 400 }), with(ok(b), func(r *Replica) { r.Listed = false }))
			f.MaxLagMs = 0
			return f
		}(), Verdict{Serve: []settings.Addr{a, b}}},
		{"not listed by the master", base(with(ok(a), func(r *Replica) { r.Listed = false }), ok(b)),
			Verdict{Serve: []settings.Addr{b}, Excluded: []Exclusion{{a, "no offset in the master's INFO"}}}},
		{"no history yet", func() Facts { f := base(ok(a)); f.History = nil; return f }(),
			Verdict{OnMaster: true, Excluded: []Exclusion{{a, "no offset in the master's INFO"}}}},
		{"none qualifies: the master", base(with(ok(a), func(r *Replica) { r.SDown = true })),
			Verdict{OnMaster: true, Excluded: []Exclusion{{a, "subjectively down"}}}},
		{"no replica at all: the master", base(), Verdict{OnMaster: true}},
		{"none qualifies, fallback off", func() Facts { f := base(); f.NoFallback = true; return f }(),
			Verdict{Fenced: true, Reason: "no replica qualifies and proxy-replicas-fallback is no"}},
		{"none qualifies, master fenced", func() Facts { f := base(); f.MasterFence = "the master is subjectively down"; return f }(),
			Verdict{Fenced: true, Reason: "no replica qualifies and the master is fenced: the master is subjectively down"}},
		{"a fenced master does not matter while replicas serve", func() Facts {
			f := base(ok(a))
			f.MasterFence = "the master is subjectively down"
			return f
		}(), Verdict{Serve: []settings.Addr{a}}},
		{"tilt", func() Facts { f := base(ok(a)); f.Tilt = true; return f }(),
			Verdict{Fenced: true, Reason: "this Sentinel is in TILT"}},
	}
	for _, tc := range tests {
		if got := Decide(tc.facts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
