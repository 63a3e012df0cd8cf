package respserver

import (
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// maxAskGroup bounds the IS-MASTER-DOWN-BY-ADDR requests of one
// connection answered by one pass of the core's loop.
const maxAskGroup = 512

// isAsk reports whether args is SENTINEL IS-MASTER-DOWN-BY-ADDR with its
// four arguments.
func isAsk(args [][]byte) bool {
	return len(args) == 6 && strings.EqualFold(string(args[0]), "sentinel") &&
		strings.EqualFold(string(args[1]), "is-master-down-by-addr")
}

// askGroup holds the answers of the IS-MASTER-DOWN-BY-ADDR requests a
// connection had already sent when the first of them was read, computed
// by one pass of the loop, in request order; the handler takes them one
// by one (cmdSentinelIsMasterDown).
//
// A peer asks on one connection, and each vote request used to wait for
// its own pass of the loop before the next one was read: when a rack's
// masters die, a leader's 300 vote requests took 300 passes of a busy
// loop (seconds), its PINGs waited behind them until the peer was marked
// down, and the voters' election holds ran out before they had voted
// (issue 19). Grouped, the votes are cast together and written with one
// config rewrite before any reply goes out, as a batch of the loop
// always is.
type askGroup struct {
	answers []gossip.AskReply
	next    int
}

// take returns the next precomputed answer, if any.
func (g *askGroup) take() (gossip.AskReply, bool) {
	if g == nil || g.next >= len(g.answers) {
		return gossip.AskReply{}, false
	}
	g.next++
	return g.answers[g.next-1], true
}

// groupable reports whether dispatch would run args as a command of c
// without refusing it or waiting: then its answer may be computed before
// dispatch runs it. A command dispatch would refuse (authentication, ACL,
// subscribed context) or hold (CLIENT PAUSE) is not grouped, so it is
// refused or held exactly as alone.
func (s *Server) groupable(c *Client, args [][]byte) bool {
	if ignoring(c) {
		return false
	}
	spec, errv := lookup(args)
	if errv != nil {
		return false
	}
	c.mu.Lock()
	authed := c.authenticated
	subscribed := c.subscriptions() > 0
	c.mu.Unlock()
	if subscribed || (!authed && spec.Flags&commands.FlagNoAuth == 0 && !s.users.DefaultOpen()) {
		return false
	}
	if mode, _, _ := s.pause.current(time.Now()); mode != pauseOff {
		return false
	}
	return s.checkPermission(c, spec, args) == nil
}

// readAskGroup reads, after first (an IS-MASTER-DOWN-BY-ADDR request),
// the further such requests already in rd's buffer, without waiting for
// more bytes; a request of another kind read on the way is returned as
// next, for the caller to run after the group. It returns nil when first
// stands alone (it is then run as any command).
func (s *Server) readAskGroup(c *Client, rd *requestReader, first [][]byte) (group [][][]byte, next [][]byte, err error) {
	if rd.pending() == 0 || !s.groupable(c, first) {
		return nil, nil, nil
	}
	group = [][][]byte{first}
	for len(group) < maxAskGroup {
		args, ok, err := rd.tryNext()
		if err != nil || !ok {
			return group, nil, err
		}
		if !isAsk(args) || !s.groupable(c, args) {
			return group, args, nil
		}
		group = append(group, args)
	}
	return group, nil, nil
}

// answerAsks computes the answers of a group in one pass of the loop:
// each request's Step in order, the config written once, before the
// replies. A request whose arguments do not parse gets no answer (its
// handler replies with the error, as alone).
func (s *Server) answerAsks(group [][][]byte) (*askGroup, bool) {
	if s.opts.Backend == nil {
		return nil, false
	}
	reqs := make([]gossip.AskRequest, 0, len(group))
	for _, args := range group {
		req, err := gossip.ParseAskRequest(string(args[2]), string(args[3]), string(args[4]), string(args[5]))
		if err == nil {
			reqs = append(reqs, req)
		}
	}
	g := &askGroup{answers: make([]gossip.AskReply, 0, len(reqs))}
	_, err := s.opts.Backend.Exec(func(core *monitor.Sentinel, now time.Time) {
		for _, req := range reqs {
			ans, err := core.Step(now, monitor.IsMasterDownByAddr{Request: req})
			if err != nil {
				ans = gossip.NoVoteReply() // unreachable: the input has no error
			}
			g.answers = append(g.answers, ans.(gossip.AskReply))
		}
	})
	if err != nil {
		return nil, false // the loop ended: each handler says so
	}
	return g, true
}
