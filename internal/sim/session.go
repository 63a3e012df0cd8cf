package sim

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// session is the server side of one client connection, a Sentinel's
// command link or a Client's connection: the transaction being queued
// and the commands a pause holds.
type session struct {
	multi  bool
	multiQ [][]string
	// dirty is set when a command was refused while queuing (a write on
	// a read-only replica): EXEC then aborts, as Redis's flagTransaction.
	dirty bool
	// held are the commands received while the connection is blocked by
	// a pause, in order, with what answers each.
	held []heldCmd
	// closed is set when the connection is gone: what it held is
	// dropped, never executed nor answered.
	closed bool
}

// heldCmd is one command a pause holds and the function that sends its
// reply once it runs.
type heldCmd struct {
	args   []string
	answer func(msg.Reply)
}

// close forgets what the session held: a killed or closed client's
// held commands never run.
func (ss *session) close() {
	ss.closed = true
	ss.held = nil
}

// serve is the arrival of one command of ss at s: it runs at once and
// answer gets its reply, unless a pause holds it or an earlier command of
// the same connection is held; then it waits until the pause ends.
func (c *Cluster) serve(s *Server, ss *session, args []string, answer func(msg.Reply)) {
	if len(ss.held) == 0 && !s.postpones(ss, strings.ToUpper(args[0])) {
		answer(c.execute(s, ss, args))
		return
	}
	if len(ss.held) == 0 {
		s.blocked = append(s.blocked, ss)
	}
	ss.held = append(ss.held, heldCmd{args: args, answer: answer})
	c.tracef(s.Name, "holds %s (clients paused)", traceArgs(args))
}

// scheduleRelease runs what s held once the current step is over, as
// Redis reprocesses the postponed clients after the command that lifted
// the pause.
func (c *Cluster) scheduleRelease(s *Server) {
	if len(s.blocked) == 0 {
		return
	}
	life := s.life
	c.sched.at(c.now, func() {
		if s.life == life && !s.crashed {
			c.release(s)
		}
	})
}

// release runs the held commands no pause holds any more: the blocked
// connections in the order they were blocked, each up to its first
// command still held.
func (c *Cluster) release(s *Server) {
	blocked := s.blocked
	s.blocked = nil
	var still []*session
	n := 0
	for _, ss := range blocked {
		for !ss.closed && len(ss.held) > 0 {
			h := ss.held[0]
			if s.postpones(ss, strings.ToUpper(h.args[0])) {
				break
			}
			ss.held = ss.held[1:]
			n++
			h.answer(c.execute(s, ss, h.args))
		}
		if !ss.closed && len(ss.held) > 0 {
			still = append(still, ss)
		}
	}
	s.blocked = append(still, s.blocked...)
	if n > 0 {
		c.tracef(s.Name, "runs %d held commands", n)
	}
}
