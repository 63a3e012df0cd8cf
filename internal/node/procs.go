package node

import (
	"runtime"
	"time"
)

// quietBeforeOneProc is how long a Sentinel must stay quiet (every tick's
// AfterTick said so) before its process runs Go code on one P.
const quietBeforeOneProc = 5 * time.Second

// procGovernor runs the process on one P (GOMAXPROCS 1) while the
// Sentinel is quiet and on Go's default again at the first tick that is
// not: nothing in the protocol changes, only how many threads may run Go
// code at once.
//
// An idle Sentinel's work is a stream of small wake-ups (the links' loop
// woken by a reply hands it to the core's loop, the core's timer, the RESP
// port): with a second P idle, each wake-up of a goroutine may wake a
// thread to run it there (futex, and the scheduler spinning to find it
// work), which costs more than the work. At 100 masters one P idled at
// 1.90 % of a core against 2.33 % with two (one run, side by side), and
// the README's measurements showed the cost of one P: a burst of 300
// deaths at 1,000 masters switched in 13.5 s against 11.4 s, and the proxy
// runs its loops on every P. So one P only while nothing happens and no
// proxy is configured; the first master in trouble (its link lost, SDOWN,
// ODOWN, a failover), a backlog of inputs, fast ticks, a tick that came
// late (the process short of CPU) or TILT bring the
// default back at the next tick. A lost link is trouble, so a master that
// dies has its Sentinel back on Go's default one tick after its link
// fails, well before a down-after of a second or more runs out; one P
// never stops the process from detecting or acting, it only runs its
// goroutines one at a time.
type procGovernor struct {
	// one is true while the process runs on one P.
	one bool
	// quietSince is when the current quiet stretch began; zero while not
	// quiet.
	quietSince time.Time
	// setOne and restore change the process's Ps (runtime.GOMAXPROCS(1),
	// runtime.SetDefaultGOMAXPROCS); the tests count their calls.
	setOne, restore func()
}

// newProcGovernor returns the governor of this process, which starts on
// Go's default.
func newProcGovernor() *procGovernor {
	return &procGovernor{
		setOne:  func() { runtime.GOMAXPROCS(1) },
		restore: runtime.SetDefaultGOMAXPROCS,
	}
}

// report is told after a tick at now whether the Sentinel is quiet.
func (g *procGovernor) report(quiet bool, now time.Time) {
	if !quiet {
		g.quietSince = time.Time{}
		if g.one {
			g.one = false
			g.restore()
		}
		return
	}
	if g.quietSince.IsZero() {
		g.quietSince = now
		return
	}
	if !g.one && now.Sub(g.quietSince) >= quietBeforeOneProc {
		g.one = true
		g.setOne()
	}
}
