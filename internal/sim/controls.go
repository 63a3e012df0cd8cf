package sim

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Crash stops a node or a server by name. A crashed process's connections
// are reset: peers get LinkClosed (after what was already on the wire).
func (c *Cluster) Crash(name string) {
	c.mustKnow(name)
	if n := c.Node(name); n != nil {
		c.crashNode(n)
		return
	}
	s := c.Server(name)
	if s == nil {
		c.Fatalf("Crash: %q is neither a Sentinel node nor a server", name)
		return
	}
	if s.crashed {
		return
	}
	s.crashed = true
	c.tracef(name, "crash")
	for _, cn := range c.connsSnapshot() {
		if cn.toSrv == s {
			c.resetConn(cn, "Connection reset by peer")
		}
	}
	for _, cn := range append([]*clientConn(nil), c.clientConns...) {
		if cn.srv == s {
			c.resetClientConn(cn, "Connection reset by peer")
		}
	}
}

// Restart starts a crashed node from its persisted snapshot (a running
// node is crashed first), or a crashed server with a new run id and the
// same role and data.
func (c *Cluster) Restart(name string) {
	c.mustKnow(name)
	if n := c.Node(name); n != nil {
		c.crashNode(n)
		c.boot(n)
		return
	}
	s := c.Server(name)
	if s == nil {
		c.Fatalf("Restart: %q is neither a Sentinel node nor a server", name)
		return
	}
	if !s.crashed {
		c.Crash(name)
	}
	s.boot()
	c.tracef(name, "restart run_id=%s", s.RunID)
}

// ClockJump steps one node's wall clock by d (negative: backwards), as
// NTP or `date -s` would: its next tick sees the step, which is what
// sends a Sentinel into TILT; the core's monotonic clock does not move
// (a process started later starts at the stepped wall clock).
func (c *Cluster) ClockJump(name string, d time.Duration) {
	c.mustKnow(name)
	n := c.Node(name)
	if n == nil {
		c.Fatalf("ClockJump: %q is not a Sentinel node", name)
		return
	}
	n.wallOffset += d
	c.tracef(name, "clock jump %v", d)
}

// Stall stops one node's process for d, as SIGSTOP and SIGCONT d later
// (or a VM pause) do: it ticks not, and every input that reaches it
// (replies, requests from its peers, connections) waits, in order, until
// it resumes; both its clocks go on, so its first tick after comes d
// late (TILT). A node stalled already stays so until the later end.
func (c *Cluster) Stall(name string, d time.Duration) {
	c.mustKnow(name)
	n := c.Node(name)
	if n == nil {
		c.Fatalf("Stall: %q is not a Sentinel node", name)
		return
	}
	if end := c.now.Add(d); end.After(n.stallEnd) {
		n.stallEnd = end
	}
	c.tracef(name, "stall %v", d)
}

// KillMaster crashes the first running server whose role is master and
// returns it (nil if there is none).
func (c *Cluster) KillMaster() *Server {
	for _, s := range c.servers {
		if !s.crashed && s.Role == RoleMaster {
			c.Crash(s.Name)
			return s
		}
	}
	return nil
}

// SetPingError makes a server answer PING with an error ("" restores
// PONG).
func (c *Cluster) SetPingError(name, text string) {
	c.mustKnow(name)
	s := c.Server(name)
	s.PingError = text
	c.tracef(name, "ping error %q", text)
}

// Command steps the core of the Sentinel node called name with a command
// input at the node's local time, as a client's command to its port
// would, then carries out what the core produced (events, logs, actions)
// and checks the invariants, like any step. It returns the command's
// answer and error.
func (c *Cluster) Command(name string, in msg.Input) (msg.Answer, error) {
	c.mustKnow(name)
	n := c.Node(name)
	if n == nil || n.crashed {
		c.Fatalf("Command: %q is not a running Sentinel node", name)
		return nil, nil
	}
	c.tracef(name, "command %T", in)
	ans, err := n.Core.Step(n.Now(), in)
	c.drain(n)
	c.afterStep()
	return ans, err
}

// Churn restarts the Sentinel node called name as a pod that comes back
// elsewhere: at the address ip when it is not empty, and with a new run id
// when newID is set (a config without `sentinel myid`, which knows no
// other Sentinel yet). The node keeps its epochs and its votes: a
// Sentinel that loses them may vote twice in one epoch, a hazard of a
// Sentinel without persistent state that no rule about stale entries
// cures.
func (c *Cluster) Churn(name, ip string, newID bool) {
	c.mustKnow(name)
	n := c.Node(name)
	if n == nil {
		c.Fatalf("Churn: %q is not a Sentinel node", name)
		return
	}
	c.crashNode(n)
	if ip != "" {
		n.IP = ip
	}
	if newID {
		n.Disk.MyID = ""
		masters := make([]settings.MasterSpec, len(n.Disk.Masters))
		for k, m := range n.Disk.Masters {
			m.KnownSentinels = nil
			masters[k] = m
		}
		n.Disk.Masters = masters
	}
	c.tracef(name, "churn ip=%s new-id=%v", n.IP, newID)
	c.boot(n)
}
