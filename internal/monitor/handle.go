package monitor

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/explain"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/scriptq"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// Handle is what a client's request reaches of the core, on the
// goroutine that owns it: the RESP server's handlers, the metrics and
// anything else that serves a client get a Handle, never the *Sentinel.
//
// Its invariant: Step is its only method that changes the core, so that
// every change a client asks for enters through Step as one input value
// (internal/msg), and a handler applies one input per command. The other
// methods only read what the View does not serve yet (they may fill the
// core's caches of objects sorted by name, never change what a query or
// a decision sees); the View itself is
// the one its owner published (the RESP server's Backend.View), since
// bringing it up to date (Sentinel.View) is the owner's. Ticking the
// core, draining its Ready, publishing its View and persisting it belong
// to its owner (the node's loop, the simulator), which holds the
// *Sentinel.
type Handle interface {
	// Step applies one input at time now (Sentinel.Step).
	Step(now time.Time, in msg.Input) (msg.Answer, error)
	// MyID returns the Sentinel's run ID (SENTINEL MYID).
	MyID() string
	// ConfigGet returns the global parameters matching the patterns
	// (SENTINEL CONFIG GET).
	ConfigGet(patterns []string) []view.KV
	// DebugValues returns the timing knobs (SENTINEL DEBUG without
	// arguments).
	DebugValues() []view.KV
	// PendingScripts returns the script queue as of time at (SENTINEL
	// PENDING-SCRIPTS).
	PendingScripts(at time.Time) []scriptq.Pending
	// Explain reports where master name stands and why (SENTINEL
	// EXPLAIN).
	Explain(at time.Time, name string) (explain.Explanation, error)
	// InfoCache returns the cached INFO of the named masters and their
	// replicas (SENTINEL INFO-CACHE).
	InfoCache(now time.Time, names []string) (masters []string, entries [][]view.InfoCacheEntry)
	// MetricsView returns the figures of every master as of time at
	// (the Prometheus gauges).
	MetricsView(at time.Time) view.Metrics
}

// *Sentinel is the Handle its owner hands out.
var _ Handle = (*Sentinel)(nil)
