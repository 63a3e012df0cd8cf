package node

import (
	"testing"
	"time"
)

// TestPageGovernor checks the governor's rule: the pages are given back
// after quietBeforeRelease of quiet ticks, again every releaseEvery while
// the quiet lasts, and not while the Sentinel is in trouble; a quiet
// stretch counts from its own start.
func TestPageGovernor(t *testing.T) {
	releases := 0
	g := &pageGovernor{release: func() { releases++ }}
	start := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	for d := time.Duration(0); d < quietBeforeRelease; d += 100 * time.Millisecond {
		g.report(true, at(d))
	}
	if releases != 0 {
		t.Fatalf("%d releases before %v of quiet, want none", releases, quietBeforeRelease)
	}
	g.report(true, at(quietBeforeRelease))
	for d := quietBeforeRelease; d < quietBeforeRelease+releaseEvery; d += time.Second {
		g.report(true, at(d))
	}
	if releases != 1 {
		t.Fatalf("%d releases within %v of the first, want 1", releases, releaseEvery)
	}
	g.report(true, at(quietBeforeRelease+releaseEvery))
	if releases != 2 {
		t.Fatalf("%d releases after %v more of quiet, want 2", releases, releaseEvery)
	}
	// Trouble, then a quiet stretch shorter than quietBeforeRelease.
	base := quietBeforeRelease + releaseEvery
	g.report(false, at(base+time.Second))
	g.report(true, at(base+2*time.Second))
	g.report(true, at(base+2*time.Second+quietBeforeRelease-time.Millisecond))
	g.report(false, at(base+10*time.Second))
	if releases != 2 {
		t.Fatalf("%d releases after an interrupted quiet stretch, want 2", releases)
	}
	// A full quiet stretch after trouble releases at its own start + quietBeforeRelease.
	g.report(true, at(base+20*time.Second))
	g.report(true, at(base+20*time.Second+quietBeforeRelease))
	if releases != 3 {
		t.Fatalf("%d releases after a new quiet stretch, want 3", releases)
	}
}
