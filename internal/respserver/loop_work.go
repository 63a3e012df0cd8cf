package respserver

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// Commands that may wait run on a worker goroutine, off the client's
// loop (loop.go); the others run on the loop. The worker takes the
// client's request reader, runs the command that needed it and every
// whole request buffered behind it, in order, and gives the client back
// to the loop, which reads it again.

// work is a worker: it runs args and the whole requests c's reader holds
// behind it, then gives c back to its loop.
func (s *Server) work(c *Client, rd *loopReader, args [][]byte) {
	defer s.wg.Done()
	ok := s.workCommands(c, rd, args)
	_ = c.loop.shard.l.Submit(func() { s.workDone(c, ok) })
}

// workDone takes c back on its loop after a worker ran its commands;
// ok is false when c is closing.
func (s *Server) workDone(c *Client, ok bool) {
	st := c.loop
	st.busy = false
	if !ok || st.stopped {
		st.stopped = true
		s.loopFlush(c)
		return
	}
	s.serveLoop(c, nil)
}

// workCommands runs args, then every whole request buffered in rd, as
// serveCommands runs them (grouping a peer's asks and hellos, waiting
// while the output is over replyBacklog). It returns false when c is to
// stop: a command closed it or a request was malformed.
func (s *Server) workCommands(c *Client, rd *loopReader, args [][]byte) bool {
	for {
		batch, next, nextErr := s.batchOf(c, &rd.requestReader, args)
		for _, a := range batch {
			s.stats.noteQuery(rd.lastSize, s.now())
			c.hold()
			ok := s.dispatch(c, a)
			c.release()
			if !ok {
				c.group = nil
				return false
			}
			if !c.pubsubMode.Load() {
				c.waitOutput()
			}
		}
		c.group = nil
		var err error
		switch {
		case next != nil:
			args = next
		case nextErr != nil:
			err = nextErr
		default:
			var more bool
			args, more, err = rd.tryNext()
			if err == nil && !more {
				return true
			}
		}
		if err != nil {
			s.readFailed(c, &rd.requestReader, err)
			return false
		}
	}
}

// loopCommand reports whether the command spec (looked up by lookup;
// nil when it failed) runs on the loop: a command that
// answers at once, from the client's state or the core's View, unless
// CLIENT PAUSE is in force (it may hold it). Unknown commands and wrong
// arities run there too (dispatch replies with the error).
func (s *Server) loopCommand(spec *commands.Spec) bool {
	if spec == nil {
		return true
	}
	if !onLoopByID[spec.ID] {
		return false
	}
	if !s.pause.on.Load() {
		return true
	}
	mode, _, _ := s.pause.current(time.Now())
	return mode == pauseOff
}

// onLoopByID is onLoop indexed by catalogue ID (an alias's is its
// command's).
var onLoopByID = func() []bool {
	out := make([]bool, len(catalogue.All()))
	for _, s := range catalogue.All() {
		out[s.ID] = onLoop[s.Canonical().Name]
	}
	return out
}()

// onLoop are the commands run on a client's loop: they answer from the
// client, the server's registry or the core's View, and never wait.
var onLoop = map[string]bool{
	"ping": true, "hello": true, "auth": true,
	"client|id": true, "client|getname": true, "client|setname": true, "client|setinfo": true,
	"client|info": true, "client|list": true, "client|reply": true, "client|no-evict": true,
	"client|help": true, "client|getredir": true, "client|trackinginfo": true,
	"command": true, "command|count": true, "command|list": true, "command|info": true,
	"command|docs": true, "command|getkeys": true, "command|getkeysandflags": true, "command|help": true,
	"sentinel|get-master-addr-by-name": true, "sentinel|masters": true, "sentinel|master": true,
	"sentinel|replicas": true, "sentinel|slaves": true, "sentinel|sentinels": true,
	"sentinel|ckquorum": true, "sentinel|help": true, "role": true,
	"subscribe": true, "psubscribe": true, "unsubscribe": true, "punsubscribe": true,
	"acl|whoami": true, "acl|cat": true, "acl|help": true,
}
