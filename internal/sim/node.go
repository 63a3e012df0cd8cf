package sim

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Node is one simulated Sentinel: a monitor core, its announced address,
// its "disk" (the last persisted snapshot) and its clocks' skews.
type Node struct {
	c *Cluster

	// Name is the node's endpoint name (s1, s2, ...).
	Name string
	// IP is the node's simulated address (10.0.0.<k>); its links'
	// local address, hence what its hellos announce.
	IP string
	// Port is the port it listens on (SentinelPort).
	Port int
	// Core is the node's current core (the last one when crashed).
	Core *monitor.Sentinel
	// Disk is what the node last persisted (or the config it was
	// started with); Restart builds the next core from it.
	Disk settings.Persisted

	seed    int64
	crashed bool
	inc     int // incarnation: bumps at every crash and restart
	// offset is the core's clock (the process's monotonic clock, as
	// Unix time) minus the cluster clock: the wall clock's skew when the
	// process started, fixed for its life. wallOffset is the wall
	// clock's skew now, which ClockJump steps.
	offset, wallOffset time.Duration
	// stallEnd: the process is stopped (Stall) until then; it runs
	// nothing, and what reaches it waits.
	stallEnd time.Time
	conns    map[msg.LinkID]*conn
	nextPort int
	// deferred counts the inputs a stall put off (step) that the core
	// has not taken yet; closing holds the links the far side closed
	// whose LinkClosed is among them (the core may close one first, as
	// a resumed daemon closes a socket whose error it has not read).
	deferred int
	closing  map[msg.LinkID]bool
	steps    int             // ticks so far
	ticked   bool            // the current step is a tick
	scripts  map[uint64]bool // running scripts
}

// Now returns the node's core clock: the cluster time plus the skew
// its process started with (a step of the wall clock does not move it).
func (n *Node) Now() time.Time { return n.c.now.Add(n.offset) }

// Wall returns the node's wall clock: the cluster time plus its skew,
// which ClockJump steps.
func (n *Node) Wall() time.Time { return n.c.now.Add(n.wallOffset) }

// stalled reports whether the node's process is stopped (Stall) now.
func (n *Node) stalled() bool { return n.c.now.Before(n.stallEnd) }

// Crashed reports whether the node is down.
func (n *Node) Crashed() bool { return n.crashed }

// Seed returns the seed of the current core's random source.
func (n *Node) Seed() int64 { return n.seed }

// Addr returns the address other Sentinels reach this node at.
func (n *Node) Addr() settings.Addr { return settings.Addr{Host: n.IP, Port: n.Port} }

// AddSentinel adds a Sentinel node started from p (its config file; an
// empty MyID is generated from the node's seed and persisted, as on a first
// start). Nodes are named s1, s2, ... with IPs 10.0.0.1, 10.0.0.2, ...
func (c *Cluster) AddSentinel(p settings.Persisted) *Node {
	k := len(c.nodes) + 1
	n := &Node{
		c:        c,
		Name:     fmt.Sprintf("s%d", k),
		IP:       fmt.Sprintf("10.0.0.%d", k),
		Port:     SentinelPort,
		Disk:     p,
		nextPort: 40000,
	}
	c.register(n.Name)
	c.nodes = append(c.nodes, n)
	c.noteInitialMasters(p)
	c.boot(n)
	return n
}

// boot starts a new incarnation of n from its disk.
func (c *Cluster) boot(n *Node) {
	n.inc++
	n.crashed = false
	n.offset = n.wallOffset // a new process's clock starts at the wall clock
	n.seed = c.rnd.Int63()
	n.conns, n.closing = map[msg.LinkID]*conn{}, nil
	accel := settings.DefaultAccel()
	if c.opts.Accel != nil {
		accel = *c.opts.Accel
	}
	n.Core = monitor.New(n.Disk, monitor.Options{Port: n.Port, Accel: accel}, rand.New(rand.NewSource(n.seed)), n.Now())
	c.tracef(n.Name, "start myid=%s seed=%d epoch=%d", n.Core.MyID(), n.seed, n.Core.CurrentEpoch())
	c.drain(n)
	c.scheduleTick(n)
}

// scheduleTick queues the node's next timer run NextTickIn() from now.
func (c *Cluster) scheduleTick(n *Node) {
	inc := n.inc
	c.sched.at(c.now.Add(n.Core.NextTickIn()), func() {
		if n.crashed || n.inc != inc {
			return
		}
		c.tickRunning(n, inc)
	})
}

// tickRunning runs incarnation inc of n's timer once its process runs: a
// stalled node's timer waits for the stall's end, and again if a second
// stall extended it meanwhile (a timer that ran then acted for a stopped
// process).
func (c *Cluster) tickRunning(n *Node, inc int) {
	switch {
	case n.stalled():
		c.sched.at(n.stallEnd, func() { c.tickRunning(n, inc) })
	case n.deferred > 0:
		// What reached the process while it was stopped (replies,
		// closed links) is taken first, as the core would find it
		// all ready at its first loop after SIGCONT: the same
		// instant, after the inputs scheduled for it.
		c.sched.at(c.now, func() { c.tickRunning(n, inc) })
	default:
		c.tickNode(n, inc)
	}
}

// tickNode runs incarnation inc of n's timer, unless it ended, and
// schedules the next.
func (c *Cluster) tickNode(n *Node, inc int) {
	if n.crashed || n.inc != inc {
		return
	}
	c.tracef(n.Name, "tick")
	n.Core.Tick(n.Now(), n.Wall())
	n.steps++
	n.ticked = true
	c.drain(n)
	if !n.crashed && n.inc == inc {
		c.scheduleTick(n)
	}
}

// step hands an input to a node's core and carries out what it produced;
// a stalled node takes it when it resumes.
func (c *Cluster) step(n *Node, in msg.Input) {
	if n.stalled() {
		inc := n.inc
		n.deferred++
		c.sched.at(n.stallEnd, func() {
			n.deferred--
			if !n.crashed && n.inc == inc {
				c.step(n, in)
			}
		})
		return
	}
	if lc, ok := in.(msg.LinkClosed); ok {
		delete(n.closing, lc.ID)
	}
	if _, err := n.Core.Step(n.Now(), in); err != nil {
		c.fail("%s: Step(%T) failed: %v", n.Name, in, err)
		return
	}
	c.drain(n)
}

// drain carries out what the node's core produced with monitor.Apply,
// the daemon's own dispatch, through the node's simulated effects.
func (c *Cluster) drain(n *Node) {
	c.touch(n)
	n.Core.View() // as the daemon's loop publishes it before carrying out Ready
	r := n.Core.Ready()
	fx := &simEffects{c: c, n: n, inc: n.inc}
	if _, err := monitor.Apply(r, fx); err != nil {
		c.fail("%s: %v", n.Name, err)
	}
}

// act carries out one action of a node outside a drain (tests that check
// the invariants on a hand-made action).
func (c *Cluster) act(n *Node, a msg.Action) {
	if _, err := monitor.Apply(msg.Ready{Actions: []msg.Action{a}}, &simEffects{c: c, n: n, inc: n.inc}); err != nil {
		c.fail("%s: %v", n.Name, err)
	}
}

// simEffects is the monitor.Effects of a simulated node: links become
// simulated connections, the disk is the node's Disk, scripts are
// modelled, Exit crashes the node.
type simEffects struct {
	c   *Cluster
	n   *Node
	inc int // the incarnation the Ready belongs to
}

// live reports whether the node is still the incarnation that produced
// the output being carried out.
func (fx *simEffects) live() bool { return !fx.n.crashed && fx.n.inc == fx.inc }

func (fx *simEffects) Log(l event.LogLine) {
	c, n := fx.c, fx.n
	c.logs = append(c.logs, LogRecord{At: c.now, Node: n.Name, LogLine: l})
	if l.Event != nil {
		return // traced by Event
	}
	c.tracef(n.Name, "log %s", l.Text)
}

func (fx *simEffects) Event(e event.Event) {
	c, n := fx.c, fx.n
	c.events = append(c.events, EventRecord{At: c.now, Node: n.Name, Event: e})
	c.tracef(n.Name, "event %s", e.String())
	c.observeEvent(n, e)
}

func (fx *simEffects) Persist(a msg.PersistConfig) error {
	c, n := fx.c, fx.n
	if !fx.live() {
		return nil
	}
	n.Disk = n.Core.Snapshot()
	c.tracef(n.Name, "persist (%s) epoch=%d", a.Reason, n.Disk.CurrentEpoch)
	c.checkPersisted(n)
	return nil
}

func (fx *simEffects) OpenLink(a msg.OpenLink) {
	if fx.live() {
		fx.c.openConn(fx.n, a)
	}
}

func (fx *simEffects) CloseLink(a msg.CloseLink) {
	c, n := fx.c, fx.n
	if !fx.live() {
		return
	}
	cn := n.conns[a.ID]
	if cn == nil && n.closing[a.ID] {
		return // closed by the far side; the core learns it next
	}
	if cn == nil {
		c.fail("%s: CloseLink of unknown link %d", n.Name, a.ID)
		return
	}
	c.tracef(n.Name, "close %s", cn.label)
	c.dropConn(cn)
}

func (fx *simEffects) Send(a msg.Send) {
	c, n := fx.c, fx.n
	if !fx.live() {
		return
	}
	cn := n.conns[a.ID]
	if cn == nil {
		c.fail("%s: Send on unknown or closed link %d: %q", n.Name, a.ID, a.Args)
		return
	}
	c.checkDemotion(n, cn, a)
	c.sendOn(cn, a)
}

func (fx *simEffects) StartScript(a msg.StartScript) {
	if fx.live() {
		fx.c.runScript(fx.n, a)
	}
}

func (fx *simEffects) KillScript(a msg.KillScript) {
	if fx.live() {
		fx.c.killScript(fx.n, a)
	}
}

func (fx *simEffects) Exit(a msg.Exit) {
	if fx.live() {
		fx.c.tracef(fx.n.Name, "exit %d", a.Code)
		fx.c.crashNode(fx.n)
	}
}

// crashNode stops a node: its connections vanish and its peers' links to
// it are reset.
func (c *Cluster) crashNode(n *Node) {
	if n.crashed {
		return
	}
	n.crashed = true
	n.inc++
	c.tracef(n.Name, "crash")
	for _, cn := range c.connsSnapshot() {
		switch {
		case cn.from == n:
			c.dropConn(cn)
		case cn.toNode == n:
			c.resetConn(cn, "Connection reset by peer")
		}
	}
}
