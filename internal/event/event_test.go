package event

import (
	"testing"
	"time"
)

// TestAbortReason: only the aborted-failover types have a reason, the
// rest of the type after AbortPrefix.
func TestAbortReason(t *testing.T) {
	for _, tc := range []struct {
		typ    Type
		reason string
		ok     bool
	}{
		{AbortNotElected, "not-elected", true},
		{AbortNoGoodSlave, "no-good-slave", true},
		{AbortMasterTimeout, "master-timeout", true},
		{SDown, "", false},
		{Type(AbortPrefix), "", false},
		{FailoverEnd, "", false},
	} {
		reason, ok := tc.typ.AbortReason()
		if reason != tc.reason || ok != tc.ok {
			t.Errorf("%s: AbortReason() = %q, %v; want %q, %v", tc.typ, reason, ok, tc.reason, tc.ok)
		}
	}
}

// TestTimeline: each phase lasts until the next mark, the last one 0;
// the total runs from the first mark to the last.
func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	tl := Timeline{Led: true, Marks: []Mark{
		{Phase: PhaseSDown, At: t0},
		{Phase: PhaseODown, At: t0.Add(50 * time.Millisecond)},
		{Phase: PhaseStart, At: t0.Add(60 * time.Millisecond)},
		{Phase: PhaseSwitched, At: t0.Add(1210 * time.Millisecond), Note: "10.0.0.2 6379"},
	}}
	want := []time.Duration{50 * time.Millisecond, 10 * time.Millisecond, 1150 * time.Millisecond, 0}
	for k, d := range tl.Durations() {
		if d != want[k] {
			t.Errorf("phase %d lasted %v, want %v", k, d, want[k])
		}
	}
	if tl.Total() != 1210*time.Millisecond {
		t.Errorf("total %v", tl.Total())
	}
	if got := tl.String(); got != "sdown+0.050s odown+0.010s try-failover+1.150s switched total 1.210s" {
		t.Errorf("String() = %q", got)
	}
	if (Timeline{Marks: tl.Marks[:1]}).Total() != 0 {
		t.Error("a timeline of one mark has a total")
	}
}

// TestPublished: every event but a debug one goes to pub/sub.
func TestPublished(t *testing.T) {
	for l, want := range map[Level]bool{LevelDebug: false, LevelVerbose: true, LevelNotice: true, LevelWarning: true} {
		if got := (Event{Level: l}).Published(); got != want {
			t.Errorf("level %d: Published() = %v", l, got)
		}
	}
}
