package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// gcPercent is the garbage collector's target go-sentinel runs with when
// the environment sets no GOGC: the heap may grow to 1.5 × what is live
// after a collection instead of Go's 2 ×.
//
// Measured with bench scale on 2 cores shared with other work (3
// Sentinels, quorum 2, down-after 5 s; medians of the 3 Sentinels). At 100
// masters (real redis-server, a replica each, 10 deaths; links on
// goroutines, d454c7a), one run each through its -go-env flag:
//
//	GOGC (default 100)   idle CPU   RSS       10 deaths switched
//	100                  2.60 %     32.5 MB   6.18 s
//	50                   2.65 %     26.6 MB   6.30 s
//	25                   3.25 %     25.2 MB   6.35 s
//
// At 1,000 masters (bench fixture, 100 deaths; links on the event loop),
// this file's settings (GOGC 50, no heap profiling) against Go's
// defaults, two runs:
//
//	                     idle CPU        RSS            100 deaths switched   CPU kill → last switch
//	this file            13.65, 14.60 %  49.9, 50.9 MB  9.30, 7.37 s          21.9, 22.0 %
//	Go's defaults        14.25, 13.00 %  63.0, 62.7 MB  7.90, 7.96 s          20.7, 21.0 %
//
// So 50 takes 6 MB off at 100 masters and 12 MB at 1,000, for a collector
// that runs twice as often: about 1 point (5 %) more CPU during a burst of
// 100 deaths; the idle CPU and the failover time moved by as much either
// way between two runs (the machine's noise). 25 takes 1.4 MB more for a
// quarter more idle CPU.
//
// No soft memory limit is set: GOMEMLIMIT=20MiB took 4.5 MB off at 100
// masters (28.0 MB, CPU unchanged), but a fixed limit does not scale with
// the masters watched: below the live heap of a larger deployment (27 MB at
// 1,000 masters) the collector runs without pause, up to half the CPU. An
// operator who knows the deployment's size may set GOMEMLIMIT (or GOGC),
// which is left alone.
const gcPercent = 50

// tuneRuntime sets the collector's target to gcPercent unless GOGC is set
// in the environment, and turns off heap profiling unless GO_SENTINEL_PPROF
// asks for the profiler (which samples finer, see startPprof): Go samples
// one allocation in 512 KiB by default, and the profile's tables (1.4 MB of
// hash buckets and the recorded stacks) cost 4 MB of RSS at 100 masters
// (GODEBUG=memprofilerate=0: 28.4 MB against 32.5 MB, idle CPU 2.70 %
// against 2.60 %, one run each). It runs first thing in main.
func tuneRuntime() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv(pprofEnv); !set {
		runtime.MemProfileRate = 0
	}
}

// adaptProcs reports whether the node may run the process on one P while
// the Sentinel is quiet (node.Options.AdaptProcs): unless GOMAXPROCS is
// set in the environment, which is left alone.
func adaptProcs() bool {
	_, set := os.LookupEnv("GOMAXPROCS")
	return !set
}

// keepPagesEnv names the environment variable that, set to anything, keeps
// every page of the executable the process has touched mapped into it
// (node.Options.ReleasePages false): for measuring the release side by side
// with the same binary.
const keepPagesEnv = "GO_SENTINEL_KEEP_PAGES"

// releasePages reports whether the node may give back the pages of the
// executable the process is not using once the Sentinel is quiet
// (node.Options.ReleasePages): unless GO_SENTINEL_KEEP_PAGES is set.
func releasePages() bool {
	_, set := os.LookupEnv(keepPagesEnv)
	return !set
}
