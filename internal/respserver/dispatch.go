package respserver

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// ctx is one command being executed.
type ctx struct {
	srv  *Server
	c    *Client
	name string   // the full name of the command, an alias's own
	args [][]byte // the whole command line, name first
}

func (x *ctx) arg(i int) string { return string(x.args[i]) }

// unknownCommand builds Redis's error for a command it does not know,
// listing the first arguments up to about 128 bytes, each quoted and
// followed by a space.
func unknownCommand(args [][]byte) Value {
	var sb strings.Builder
	for _, a := range args[1:] {
		if sb.Len() >= 128 {
			break
		}
		room := 128 - sb.Len()
		s := string(a)
		if len(s) > room {
			s = s[:room]
		}
		fmt.Fprintf(&sb, "'%s' ", s)
	}
	name := string(args[0])
	if len(name) > 128 {
		name = name[:128]
	}
	return Err(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", name, sb.String()))
}

func wrongArity(fullname string) Value {
	return Err(fmt.Sprintf("ERR wrong number of arguments for '%s' command", fullname))
}

// lookup finds the command args runs, as Redis does before running
// anything: the first argument names a top-level command, the second a
// subcommand of a container; then the arity must fit. It returns a ready
// error reply when there is no such command or the arity is wrong.
func lookup(args [][]byte, sf commands.Surface) (*commands.Spec, Value) {
	spec := topCommand(args[0])
	if spec == nil {
		return nil, unknownCommand(args)
	}
	if spec.Subs != nil && len(args) >= 2 {
		sub := subCommand(spec, args[1])
		if sub == nil {
			name := string(args[1])
			if len(name) > 128 {
				name = name[:128]
			}
			return nil, Err(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", name, strings.ToUpper(spec.Name)))
		}
		spec = sub
	}
	if !spec.ArityOKOn(len(args), sf) {
		return nil, wrongArity(spec.Name)
	}
	return spec, nil
}

// runsWhenSubscribed are the commands a RESP2 client may run while it is
// subscribed (Redis tests the functions; these are the ones a Sentinel
// has).
var runsWhenSubscribed = map[string]bool{
	"ping": true, "subscribe": true, "psubscribe": true, "unsubscribe": true, "punsubscribe": true,
}

// dispatch runs one command for c and queues its reply. It returns false
// when the connection must stop reading (QUIT-like closes, SHUTDOWN).
// The checks come in Redis's order: existence and arity, authentication,
// ACL, the RESP2 subscribed context, then CLIENT PAUSE may hold the
// command. Replies go through CLIENT REPLY's gate.
func (s *Server) dispatch(c *Client, args [][]byte) bool {
	if ignoring(c) {
		return true
	}
	spec, errv := lookup(args, s.opts.Surface)
	return s.dispatchFound(c, args, spec, errv, s.now().UnixNano(), nil)
}

// dispatchFound is dispatch of a command line lookup has looked up
// already (the loops look up each command to choose where it runs). now
// is the time the command runs at (unix nanoseconds of the server's
// clock), which a loop reads once for all the commands of one read. x,
// when not nil, is the ctx to run the handler with, which the caller
// reuses (a loop's, for the commands it runs one at a time); nil makes
// one.
func (s *Server) dispatchFound(c *Client, args [][]byte, spec *commands.Spec, errv Value, now int64, x *ctx) bool {
	if ignoring(c) {
		return true
	}
	s.stats.commands.Add(1)
	name := ""
	c.mu.Lock()
	c.lastActive = now
	if spec != nil {
		c.lastCmd = spec.Name
		name = spec.Name
	}
	authed, subscribed, user := c.gateStateLocked()
	c.mu.Unlock()
	defer commandDone(c, name)
	if errv != nil {
		s.reply(c, errv)
		return true
	}
	if s.needsAuth(spec, authed) {
		s.reply(c, Err("NOAUTH Authentication required."))
		return true
	}
	if v := s.checkPermission(c, user, spec, args); v != nil {
		s.reply(c, v)
		return true
	}
	if refusedWhenSubscribed(spec, subscribed) {
		s.reply(c, Err(fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", spec.Name)))
		return true
	}
	s.waitUnpaused(c, spec)
	if x == nil {
		x = &ctx{}
	}
	*x = ctx{srv: s, c: c, name: spec.Name, args: args}
	v := handlerOf(spec)(x)
	*x = ctx{}
	if _, none := v.(noReply); v == nil || none {
		return true
	}
	if v == closeConn {
		c.closeAfterReplies()
		return false
	}
	s.reply(c, v)
	return true
}

// gateState is what dispatch's checks read of c: whether it has
// authenticated, and whether it is a RESP2 client in a subscribed context.
func gateState(c *Client) (authed, subscribed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	authed, subscribed, _ = c.gateStateLocked()
	return authed, subscribed
}

// gateStateLocked is gateState and the client's user, for a caller that
// holds c.mu.
func (c *Client) gateStateLocked() (authed, subscribed bool, user string) {
	return c.authenticated, c.subscriptions() > 0 && c.proto == 2, c.user
}

// needsAuth reports whether dispatch refuses spec with NOAUTH from a
// client that has (authed) or has not authenticated.
func (s *Server) needsAuth(spec *commands.Spec, authed bool) bool {
	return !authed && spec.Flags&commands.FlagNoAuth == 0 && !s.users.DefaultOpen()
}

// refusedWhenSubscribed reports whether dispatch refuses spec from a
// RESP2 client in a subscribed context.
func refusedWhenSubscribed(spec *commands.Spec, subscribed bool) bool {
	return subscribed && !runsWhenSubscribed[spec.Canonical().Name]
}

// closeConn is returned by a handler after which the connection closes.
var closeConn Value = &closeMarker{}

type closeMarker struct{ noReply }
