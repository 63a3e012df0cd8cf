package sim

import (
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// ScriptRuntime is how long a simulated notification or reconfig script
// runs before it exits with code 0.
const ScriptRuntime = 10 * time.Millisecond

// runScript "runs" a script: the node learns it started at once and that
// it exited with code 0 ScriptRuntime later (unless it was killed first).
func (c *Cluster) runScript(n *Node, a msg.StartScript) {
	c.tracef(n.Name, "script %d start %s", a.ID, strings.Join(a.Args, " "))
	inc := n.inc
	if n.scripts == nil {
		n.scripts = map[uint64]bool{}
	}
	n.scripts[a.ID] = true
	pid := 10000 + int(a.ID)
	c.sched.at(c.now, func() {
		if n.crashed || n.inc != inc {
			return
		}
		c.step(n, msg.ScriptStarted{ID: a.ID, PID: pid})
	})
	c.sched.at(c.now.Add(ScriptRuntime), func() {
		if n.crashed || n.inc != inc || !n.scripts[a.ID] {
			return
		}
		delete(n.scripts, a.ID)
		c.tracef(n.Name, "script %d exit 0", a.ID)
		c.step(n, msg.ScriptExited{ID: a.ID})
	})
}

// killScript ends a running script with SIGKILL.
func (c *Cluster) killScript(n *Node, a msg.KillScript) {
	if !n.scripts[a.ID] {
		return
	}
	delete(n.scripts, a.ID)
	c.tracef(n.Name, "script %d killed", a.ID)
	inc := n.inc
	c.sched.at(c.now, func() {
		if n.crashed || n.inc != inc {
			return
		}
		c.step(n, msg.ScriptExited{ID: a.ID, Signal: 9})
	})
}
