package node

import (
	"testing"
	"time"
)

// TestProcGovernor checks the governor's rule: one P only after
// quietBeforeOneProc of quiet ticks, the default back at the first tick
// that is not quiet, and no change in the runtime while nothing changes.
func TestProcGovernor(t *testing.T) {
	ones, restores := 0, 0
	g := &procGovernor{setOne: func() { ones++ }, restore: func() { restores++ }}
	start := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	for d := time.Duration(0); d < quietBeforeOneProc; d += 100 * time.Millisecond {
		g.report(true, at(d))
	}
	if ones != 0 {
		t.Fatalf("one P after %v of quiet, want none before %v", quietBeforeOneProc-100*time.Millisecond, quietBeforeOneProc)
	}
	g.report(true, at(quietBeforeOneProc))
	g.report(true, at(quietBeforeOneProc+time.Second))
	if ones != 1 || restores != 0 {
		t.Fatalf("after %v of quiet: %d to one P, %d restores; want 1, 0", quietBeforeOneProc, ones, restores)
	}
	g.report(false, at(quietBeforeOneProc+2*time.Second))
	g.report(false, at(quietBeforeOneProc+3*time.Second))
	if restores != 1 {
		t.Fatalf("%d restores after a tick in trouble, want 1", restores)
	}
	// A quiet stretch counts from its own start.
	g.report(true, at(20*time.Second))
	g.report(true, at(20*time.Second+quietBeforeOneProc-time.Millisecond))
	g.report(false, at(31*time.Second))
	g.report(true, at(32*time.Second))
	if ones != 1 || restores != 1 {
		t.Fatalf("interrupted quiet: %d to one P, %d restores; want 1, 1", ones, restores)
	}
}
