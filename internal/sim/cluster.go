package sim

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TB is the part of testing.TB the simulator uses to fail a test when an
// invariant breaks. *testing.T and *testing.B satisfy it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// DefaultStart is the virtual time a Cluster starts at unless
// Options.Start is set.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// SentinelPort is the port every simulated Sentinel listens on.
const SentinelPort = 26379

// Options configure a Cluster. Zero fields take the defaults noted.
type Options struct {
	// Seed seeds the Cluster's single *rand.Rand, from which every random
	// choice of a run is drawn.
	Seed int64
	// Start is the virtual time of the first instant; DefaultStart if zero.
	Start time.Time
	// MinLatency and MaxLatency bound the one-way delay of a packet,
	// drawn uniformly; 1 ms and 5 ms if zero. A TCP connect takes two
	// one-way delays.
	MinLatency, MaxLatency time.Duration
	// ViewCheckEvery thins out the invariants that read a node's SENTINEL
	// views (pending counts, config epochs), the costly ones: 1 (or 0)
	// runs them after every step that touched the node, N > 1 only after
	// every N-th tick of the node. The other invariants run after every
	// step regardless.
	ViewCheckEvery int
	// NoTrace keeps no trace: for a campaign that only needs to know
	// whether a seed passes (a failing seed replays with the trace, see
	// TestChaos). The invariants are checked all the same.
	NoTrace bool
	// Accel is the failover accelerations of every node; nil is
	// monitor.DefaultAccel(), what the daemon runs with. Use
	// &monitor.Accel{} for Redis's timing.
	Accel *settings.Accel
}

// Cluster is one simulated world: a virtual clock, a seeded random source,
// Sentinel nodes, modelled Redis servers and the network between them. It
// is driven by Run and the control methods from a single goroutine.
type Cluster struct {
	tb    TB
	opts  Options
	rnd   *rand.Rand
	start time.Time
	now   time.Time
	sched scheduler

	nodes   []*Node
	servers []*Server
	names   map[string]bool

	conns    []*conn // open connections, in id order
	nextConn uint64

	clients     []*Client     // simulated Redis clients, in creation order
	clientConns []*clientConn // their open connections, in opening order
	writers     []*Writer

	nextEntry uint64 // ids of the writes applied, 0 until the first
	replGen   uint64 // the replication run that is current
	nextFo    uint64 // ids of the FAILOVERs started

	blocked map[[2]string]bool // from → to packets are held (stalled)
	cut     map[[2]string]bool // from's connections to to are cut (CutOneWay)

	events []EventRecord
	logs   []LogRecord
	trace  []string

	inv     invariants
	err     error
	touched []*Node
}

// New returns an empty Cluster at Options.Start. tb may be nil, in which
// case a broken invariant only stops the run and is returned by Err.
func New(tb TB, o Options) *Cluster {
	if o.Start.IsZero() {
		o.Start = DefaultStart
	}
	if o.MinLatency <= 0 {
		o.MinLatency = time.Millisecond
	}
	if o.MaxLatency < o.MinLatency {
		o.MaxLatency = 5 * time.Millisecond
		if o.MaxLatency < o.MinLatency {
			o.MaxLatency = o.MinLatency
		}
	}
	if o.ViewCheckEvery <= 0 {
		o.ViewCheckEvery = 1
	}
	return &Cluster{
		tb:      tb,
		opts:    o,
		rnd:     rand.New(rand.NewSource(o.Seed)),
		start:   o.Start,
		now:     o.Start,
		names:   map[string]bool{},
		blocked: map[[2]string]bool{},
		cut:     map[[2]string]bool{},
		inv:     newInvariants(),
	}
}

// Seed returns the seed the Cluster was built with.
func (c *Cluster) Seed() int64 { return c.opts.Seed }

// Now returns the virtual time of the Cluster (a node's own clock may be
// skewed from it, see ClockJump and Node.Now).
func (c *Cluster) Now() time.Time { return c.now }

// Elapsed returns the virtual time since the Cluster started.
func (c *Cluster) Elapsed() time.Duration { return c.now.Sub(c.start) }

// Err returns the first invariant violation, or nil.
func (c *Cluster) Err() error { return c.err }

// Rand returns the Cluster's random source, for scenario code that needs
// randomness that replays with the seed.
func (c *Cluster) Rand() *rand.Rand { return c.rnd }

// latency draws one one-way packet delay.
func (c *Cluster) latency() time.Duration {
	span := int64(c.opts.MaxLatency - c.opts.MinLatency)
	if span <= 0 {
		return c.opts.MinLatency
	}
	return c.opts.MinLatency + time.Duration(c.rnd.Int63n(span+1))
}

// Run advances virtual time by d, carrying out every item due meanwhile.
// It stops early if an invariant breaks.
func (c *Cluster) Run(d time.Duration) { c.RunUntil(nil, d) }

// RunUntil advances virtual time step by step until cond (checked after
// every step) holds or d has passed. It reports whether cond held; with a
// nil cond it runs for d and reports false.
func (c *Cluster) RunUntil(cond func() bool, d time.Duration) bool {
	if c.tb != nil {
		c.tb.Helper()
	}
	limit := c.now.Add(d)
	for c.err == nil {
		it := c.sched.next(limit)
		if it == nil {
			break
		}
		if it.at.After(c.now) {
			c.now = it.at
		}
		it.fn()
		c.afterStep()
		if c.err == nil && cond != nil && cond() {
			return true
		}
	}
	if c.err == nil {
		c.now = limit
	}
	return false
}

// afterStep runs the invariants on what the last step touched, and on
// the coordinated handovers it completed.
func (c *Cluster) afterStep() {
	touched := c.touched
	c.touched = c.touched[:0]
	for _, n := range touched {
		if c.err != nil {
			return
		}
		c.checkNode(n)
	}
	if c.err == nil {
		c.checkConns()
	}
	if c.err == nil && len(c.inv.handovers) > 0 {
		c.checkHandovers()
	}
	if c.err == nil && len(touched) > 0 {
		c.checkProxies()
	}
}

// touch marks a node as changed by the current step.
func (c *Cluster) touch(n *Node) {
	for _, t := range c.touched {
		if t == n {
			return
		}
	}
	c.touched = append(c.touched, n)
}

// fail records an invariant violation and fails the test with the seed
// and the trace.
func (c *Cluster) fail(format string, args ...any) {
	if c.err != nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	c.err = fmt.Errorf("%w: %s", ErrInvariant, msg)
	c.tracef("--", "INVARIANT BROKEN: %s", msg)
	if c.tb != nil {
		c.tb.Helper()
		c.tb.Fatalf("sim seed %d, virtual time +%v: invariant broken: %s\n%s", c.opts.Seed, c.Elapsed(), msg, c.TraceDump())
	}
}

// Fatalf fails the test like a broken invariant does, with the seed and
// the trace, for scenario checks. Without a TB it panics.
func (c *Cluster) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if c.tb == nil {
		panic(msg)
	}
	c.tb.Helper()
	c.tb.Fatalf("sim seed %d, virtual time +%v: %s\n%s", c.opts.Seed, c.Elapsed(), msg, c.TraceDump())
}

// TraceDump renders the trace for a failure message: the last 400 lines,
// or all of them when the environment variable SIM_TRACE is "all".
func (c *Cluster) TraceDump() string {
	lines := c.trace
	head := fmt.Sprintf("--- trace, %d lines", len(lines))
	if os.Getenv("SIM_TRACE") != "all" && len(lines) > 400 {
		lines = lines[len(lines)-400:]
		head += " (last 400; SIM_TRACE=all shows all)"
	}
	return head + " ---\n" + strings.Join(lines, "\n")
}

// mustKnow fails the test for an unknown endpoint name.
func (c *Cluster) mustKnow(name string) {
	if !c.names[name] {
		c.Fatalf("unknown node or server %q", name)
	}
}

// register reserves a unique endpoint name.
func (c *Cluster) register(name string) {
	if name == "" || c.names[name] {
		c.Fatalf("duplicate or empty name %q", name)
	}
	c.names[name] = true
}

// serverAt returns the server listening at a, or nil.
func (c *Cluster) serverAt(a settings.Addr) *Server {
	for _, s := range c.servers {
		if s.Addr.Port == a.Port && strings.EqualFold(s.Addr.Host, a.Host) {
			return s
		}
	}
	return nil
}

// nodeAt returns the Sentinel node listening at a, or nil.
func (c *Cluster) nodeAt(a settings.Addr) *Node {
	for _, n := range c.nodes {
		if n.Port == a.Port && strings.EqualFold(n.IP, a.Host) {
			return n
		}
	}
	return nil
}

// Node returns the Sentinel node called name, or nil.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Server returns the modelled Redis server called name, or nil.
func (c *Cluster) Server(name string) *Server {
	for _, s := range c.servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Nodes returns the Sentinel nodes in the order they were added.
func (c *Cluster) Nodes() []*Node { return append([]*Node(nil), c.nodes...) }

// Servers returns the Redis servers in the order they were added.
func (c *Cluster) Servers() []*Server { return append([]*Server(nil), c.servers...) }
