package respserver

import (
	"fmt"
	"strings"
)

// cmdFlag marks how dispatch treats a command.
type cmdFlag int

const (
	// flagNoAuth commands run before the client authenticated.
	flagNoAuth cmdFlag = 1 << iota
	// flagPubSub commands are allowed in a RESP2 subscribed context.
	flagPubSub
)

// command is one entry of the dispatch table: a top-level command or a
// subcommand of a container (CLIENT, SENTINEL, ...). Arity follows Redis:
// n > 0 means exactly n arguments including the name(s), n < 0 at least -n.
type command struct {
	name    string // full lower-case name, `sentinel|masters` for subcommands
	arity   int
	flags   cmdFlag
	handler func(*ctx) Value
	subs    map[string]*command
}

// ctx is one command being executed.
type ctx struct {
	srv  *Server
	c    *Client
	name string   // lower-case command name as looked up
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

func arityOK(arity, n int) bool {
	if arity > 0 {
		return n == arity
	}
	return n >= -arity
}

// lookup finds the command for args, descending into subcommands, and
// returns a ready error reply when there is none.
func (s *Server) lookup(args [][]byte) (*command, Value) {
	cmd := s.cmds[strings.ToLower(string(args[0]))]
	if cmd == nil {
		return nil, unknownCommand(args)
	}
	if cmd.subs != nil {
		if len(args) < 2 {
			// A container runs itself when it has a handler (COMMAND).
			if cmd.handler != nil && arityOK(cmd.arity, len(args)) {
				return cmd, nil
			}
			return nil, wrongArity(cmd.name)
		}
		sub := cmd.subs[strings.ToLower(string(args[1]))]
		if sub == nil {
			name := string(args[1])
			if len(name) > 128 {
				name = name[:128]
			}
			return nil, Err(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", name, strings.ToUpper(cmd.name)))
		}
		cmd = sub
	}
	if !arityOK(cmd.arity, len(args)) {
		return nil, wrongArity(cmd.name)
	}
	return cmd, nil
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
	s.stats.commands.Add(1)
	cmd, errv := s.lookup(args)
	name := ""
	c.mu.Lock()
	c.lastActive = s.now()
	if cmd != nil {
		c.lastCmd = cmd.name
		name = cmd.name
	}
	authed := c.authenticated
	subscribed := c.subscriptions() > 0 && c.proto == 2
	c.mu.Unlock()
	defer commandDone(c, name)
	if errv != nil {
		s.reply(c, errv)
		return true
	}
	if !authed && cmd.flags&flagNoAuth == 0 && !s.users.DefaultOpen() {
		s.reply(c, Err("NOAUTH Authentication required."))
		return true
	}
	if v := s.checkPermission(c, cmd, args); v != nil {
		s.reply(c, v)
		return true
	}
	if subscribed && cmd.flags&flagPubSub == 0 {
		s.reply(c, Err(fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", cmd.name)))
		return true
	}
	s.waitUnpaused(c, cmd)
	x := &ctx{srv: s, c: c, name: cmd.name, args: args}
	v := cmd.handler(x)
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

// closeConn is returned by a handler after which the connection closes.
var closeConn Value = &closeMarker{}

type closeMarker struct{ noReply }

// commandTable is the set of commands a Sentinel answers, as Redis 7.0
// registers them in Sentinel mode.
func commandTable() map[string]*command {
	t := map[string]*command{}
	add := func(c *command) { t[c.name] = c }
	add(&command{name: "ping", flags: flagPubSub, handler: cmdPing})
	add(&command{name: "hello", flags: flagNoAuth, handler: cmdHello})
	add(&command{name: "auth", flags: flagNoAuth, handler: cmdAuth})
	add(&command{name: "info", handler: cmdInfo})
	add(&command{name: "role", handler: cmdRole})
	add(&command{name: "shutdown", handler: cmdShutdown})
	add(&command{name: "subscribe", flags: flagPubSub, handler: cmdSubscribe})
	add(&command{name: "psubscribe", flags: flagPubSub, handler: cmdSubscribe})
	add(&command{name: "unsubscribe", flags: flagPubSub, handler: cmdUnsubscribe})
	add(&command{name: "punsubscribe", flags: flagPubSub, handler: cmdUnsubscribe})
	add(&command{name: "publish", handler: cmdPublish})
	add(container("client", clientSubcommands()))
	add(container("sentinel", sentinelSubcommands()))
	add(container("acl", aclSubcommands()))
	cmdCmd := container("command", commandSubcommands())
	cmdCmd.handler = cmdCommand
	add(cmdCmd)
	setArities(t)
	return t
}

// setArities takes every command's arity from the Redis 7.0.15 command
// catalogue (cmd_command.go), the one place arities are written down.
func setArities(t map[string]*command) {
	for _, c := range t {
		if s := sentinelCommands.forDispatch(c.name); s != nil {
			c.arity = s.arity
		}
		for _, sub := range c.subs {
			if s := sentinelCommands.forDispatch(sub.name); s != nil {
				sub.arity = s.arity
			}
		}
	}
}

// container builds a command whose first argument picks a subcommand.
func container(name string, subs []*command) *command {
	c := &command{name: name, subs: map[string]*command{}}
	for _, s := range subs {
		s.name = name + "|" + s.name
		c.subs[strings.TrimPrefix(s.name, name+"|")] = s
	}
	return c
}
