package node

import "time"

// quietBeforeRelease is how long a Sentinel must stay quiet before its
// process gives back the pages of its executable it is not using.
const quietBeforeRelease = 5 * time.Second

// releaseEvery is how often the pages are given back again while the
// Sentinel stays quiet: the paths an idle daemon runs now and then (a
// client's INFO, a metrics scrape, a config rewrite) map their pages back
// in, and this bounds how long they stay counted.
const releaseEvery = 5 * time.Minute

// pageGovernor gives back the process's pages of its own executable
// (releaseTextPages) after quietBeforeRelease of quiet ticks, and every
// releaseEvery while the quiet lasts: nothing in the protocol changes, only
// which of the binary's pages stay mapped into the process.
//
// Start-up and a burst touch most of a 20 MB binary once; Linux maps a
// file's pages 64 KiB around each fault and keeps them mapped, so a
// Sentinel watching 100 masters (bench scale, 3 Sentinels, real
// redis-server) had 11.1 MB of its binary in its RSS after discovery, and
// 6.6-7.2 MB over the 20 s after a release: RSS 16.9 MB per Sentinel
// against 21.5 MB for the same binary with GO_SENTINEL_KEEP_PAGES set (one
// run side by side; redis-sentinel measured 17.1-17.2 MB in the other
// runs), idle CPU and the 10 deaths' switch times the same within the
// noise of this machine. After a release, the pages in use come back with
// a minor fault each (the page cache still holds them: about 300 more
// minor faults than without over the idle half minute); the others stay
// out until a path that needs them runs. A release takes about 0.5 ms on
// the core's loop. At 1,000 masters (bench fixture) 100 deaths switched
// every pair in 6.72-7.97 s with it and 6.65-8.07 s without (3 runs each).
// The page cache itself is not shrunk: a release moves the binary's idle
// pages from the process's RSS to the kernel's reclaimable cache, which a
// container's memory accounting may still charge.
type pageGovernor struct {
	// quietSince is when the current quiet stretch began; zero while not
	// quiet.
	quietSince time.Time
	// released is when the pages were last given back in this quiet
	// stretch; zero before the first time.
	released time.Time
	// release gives the pages back (releaseTextPages); the tests count its
	// calls.
	release func()
}

// newPageGovernor returns the governor of this process.
func newPageGovernor() *pageGovernor {
	return &pageGovernor{release: func() { releaseTextPages() }}
}

// report is told after a tick at now whether the Sentinel is quiet.
func (g *pageGovernor) report(quiet bool, now time.Time) {
	if !quiet {
		g.quietSince, g.released = time.Time{}, time.Time{}
		return
	}
	if g.quietSince.IsZero() {
		g.quietSince = now
		return
	}
	switch {
	case g.released.IsZero() && now.Sub(g.quietSince) >= quietBeforeRelease,
		!g.released.IsZero() && now.Sub(g.released) >= releaseEvery:
		g.released = now
		g.release()
	}
}
