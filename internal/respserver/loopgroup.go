package respserver

import (
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// maxLoopGroup bounds the requests of one connection run by one pass of
// the core's loop.
const maxLoopGroup = 512

// isAsk reports whether args is SENTINEL IS-MASTER-DOWN-BY-ADDR with its
// four arguments.
func isAsk(args [][]byte) bool {
	return len(args) == 6 && strings.EqualFold(string(args[0]), "sentinel") &&
		strings.EqualFold(string(args[1]), "is-master-down-by-addr")
}

// isHello reports whether args is a PUBLISH of a hello on the hello
// channel.
func isHello(args [][]byte) bool {
	return len(args) == 3 && strings.EqualFold(string(args[0]), "publish") && string(args[1]) == gossip.Channel
}

// groupsWithLoop reports whether args is a request a peer Sentinel sends
// in bulk that goes to the loop: an ask, or a hello.
func groupsWithLoop(args [][]byte) bool { return isAsk(args) || isHello(args) }

// loopGroup holds what the core answered to the asks and hellos a
// connection had already sent when the first of them was read, all
// stepped by one pass of the loop, in request order; each handler takes
// its own (cmdSentinelIsMasterDown, cmdPublish).
//
// A peer sends its asks, votes and hellos on one connection, and each
// used to wait for its own pass of the loop before the next was read: at
// 1,000 masters a peer's 1,000 hellos every 2 s and, when a rack dies,
// its 300 vote requests took a busy loop seconds, 512 commands one batch
// of the asking link took 10 s, its PINGs waited behind them until the
// peer was marked down, and voters' holds ran out (issue 19). Grouped,
// they are stepped together, in order, and a vote is still written to
// the config before any reply goes out, as for every batch of the loop.
type loopGroup struct {
	answers []gossip.AskReply // one per request; the zero value for a hello
	next    int
}

// take returns the next precomputed answer, if any.
func (g *loopGroup) take() (gossip.AskReply, bool) {
	if g == nil || g.next >= len(g.answers) {
		return gossip.AskReply{}, false
	}
	g.next++
	return g.answers[g.next-1], true
}

// groupable reports whether dispatch would run args as a command of c
// without refusing it or waiting: then it may be stepped before dispatch
// runs it. A command dispatch would refuse (authentication, ACL, a RESP2
// subscribed context) or hold (CLIENT PAUSE) is not grouped, so it is
// refused or held exactly as alone, and its denial logged once, by
// dispatch. The checks are dispatch's own.
func (s *Server) groupable(c *Client, args [][]byte) bool {
	if ignoring(c) {
		return false
	}
	spec, errv := lookup(args, s.opts.Surface)
	if errv != nil {
		return false
	}
	authed, subscribed := gateState(c)
	if s.needsAuth(spec, authed) || refusedWhenSubscribed(spec, subscribed) {
		return false
	}
	if mode, _, _ := s.pause.current(time.Now()); mode != pauseOff {
		return false
	}
	return s.permission(c, spec, args) == acl.Allowed
}

// readLoopGroup reads, after first (an ask or a hello), the further asks
// and hellos already in rd's buffer or on the socket, without waiting
// for more bytes; a request of another kind read on the way is returned
// as next, for the caller to run after the group. It returns nil when
// first stands alone (it is then run as any command), as it does when
// the read that brought it brought nothing more: an idle peer's hello
// costs no further read and no check.
func (s *Server) readLoopGroup(c *Client, rd *requestReader, first [][]byte) (group [][][]byte, next [][]byte, err error) {
	if rd.pending() == 0 || !s.groupable(c, first) {
		return nil, nil, nil
	}
	group = [][][]byte{first}
	for len(group) < maxLoopGroup {
		args, ok, err := rd.tryNext()
		if err != nil || !ok {
			return group, nil, err
		}
		if !groupsWithLoop(args) || !s.groupable(c, args) {
			return group, args, nil
		}
		group = append(group, args)
	}
	return group, nil, nil
}

// stepGroup steps a group in one pass of the loop: each request in order,
// the config written once, before the replies. An ask whose arguments do
// not parse is not stepped and gets no answer (its handler replies with
// the error, as alone). It returns nil if the loop has ended (each
// handler then says so).
func (s *Server) stepGroup(group [][][]byte) *loopGroup {
	if s.opts.Backend == nil {
		return nil
	}
	ins := make([]msg.Input, 0, len(group))
	for _, args := range group {
		if isHello(args) {
			ins = append(ins, msg.HelloFromClient{Payload: string(args[2])})
			continue
		}
		req, err := gossip.ParseAskRequest(string(args[2]), string(args[3]), string(args[4]), string(args[5]))
		if err == nil {
			ins = append(ins, msg.IsMasterDownByAddr{Request: req})
		}
	}
	g := &loopGroup{answers: make([]gossip.AskReply, 0, len(ins))}
	_, err := s.opts.Backend.Exec(func(core monitor.Handle, now time.Time) {
		// One Step per request, as alone: the group shares the pass of
		// the loop, not a decision.
		for _, in := range ins {
			ans, _ := core.Step(now, in) // neither input has an error
			rep, _ := ans.(gossip.AskReply)
			g.answers = append(g.answers, rep)
		}
	})
	if err != nil {
		return nil
	}
	return g
}

// batchOf is the requests to run now, starting with args: args alone, or
// the group of peer asks and hellos it starts (readLoopGroup, stepped at
// once as one input into c.group). next and nextErr are what the group's
// read brought after it, for the caller to run or report next.
func (s *Server) batchOf(c *Client, rd *requestReader, args [][]byte) (batch [][][]byte, next [][]byte, nextErr error) {
	batch = [][][]byte{args}
	if !groupsWithLoop(args) {
		return batch, nil, nil
	}
	group, next, nextErr := s.readLoopGroup(c, rd, args)
	if len(group) > 1 {
		batch = group
		c.group = s.stepGroup(group)
	}
	return batch, next, nextErr
}
