package sim

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// redisCommand executes one command a Sentinel sent to a modelled Redis
// server on cn and returns its reply, as execute does.
func (c *Cluster) redisCommand(s *Server, cn *conn, args []string) msg.Reply {
	return c.execute(s, &cn.session, args)
}

// execute runs one command of the connection ss on s now and returns its
// reply. Inside MULTI, commands are queued (a write that a read-only
// replica refuses is answered -READONLY and makes EXEC abort, as in Redis)
// and run by EXEC, whose writes form one entry of the data log.
func (c *Cluster) execute(s *Server, ss *session, args []string) msg.Reply {
	cmd := strings.ToUpper(args[0])
	if ss.multi && cmd != "EXEC" && cmd != "MULTI" && cmd != "DISCARD" {
		if writeCommands[cmd] && s.Role == RoleReplica {
			ss.dirty = true
			return errReply(ReadOnlyError)
		}
		ss.multiQ = append(ss.multiQ, args)
		return status("QUEUED")
	}
	switch cmd {
	case "MULTI":
		if ss.multi {
			return errReply("ERR MULTI calls can not be nested")
		}
		ss.multi = true
		return status("OK")
	case "DISCARD":
		if !ss.multi {
			return errReply("ERR DISCARD without MULTI")
		}
		ss.multi, ss.multiQ, ss.dirty = false, nil, false
		return status("OK")
	case "EXEC":
		if !ss.multi {
			return errReply("ERR EXEC without MULTI")
		}
		q, dirty := ss.multiQ, ss.dirty
		ss.multi, ss.multiQ, ss.dirty = false, nil, false
		if dirty {
			return errReply("EXECABORT Transaction discarded because of previous errors.")
		}
		if s.Role == RoleReplica && writesIn(q) {
			return errReply(ReadOnlyError)
		}
		s.data.inTxn = true
		out := make([]msg.Reply, 0, len(q))
		for _, a := range q {
			out = append(out, c.execute(s, ss, a))
		}
		c.commitTxn(s)
		return arrayReply(out...)
	}
	return c.redisExec(s, ss, cmd, args)
}

// writesIn reports whether a transaction's queue holds a write.
func writesIn(q [][]string) bool {
	for _, a := range q {
		if writeCommands[strings.ToUpper(a[0])] {
			return true
		}
	}
	return false
}

// redisExec runs one command outside a transaction (or as EXEC runs it).
func (c *Cluster) redisExec(s *Server, ss *session, cmd string, args []string) msg.Reply {
	switch cmd {
	case "PING":
		if s.PingError != "" {
			return errReply(s.PingError)
		}
		return status("PONG")
	case "INFO":
		return bulk(s.Info())
	case "PUBLISH":
		if len(args) != 3 {
			return errWrongArgs(args[0])
		}
		return intReply(int64(c.publish(s, args[1], args[2])))
	case "SLAVEOF", "REPLICAOF":
		if len(args) != 3 {
			return errWrongArgs(args[0])
		}
		if s.fo.state != foNone {
			return errReply("ERR REPLICAOF not allowed while failing over.")
		}
		if strings.EqualFold(args[1], "no") && strings.EqualFold(args[2], "one") {
			if s.IgnoreSlaveOfNoOne {
				c.tracef(s.Name, "ignores replicaof no one")
				return status("OK")
			}
			s.SlaveOfNoOne()
			return status("OK")
		}
		port, err := strconv.Atoi(args[2])
		if err != nil {
			return errReply("ERR value is not an integer or out of range")
		}
		to := settings.Addr{Host: args[1], Port: port}
		if s.Role == RoleReplica && s.MasterAddr == to {
			return status("OK Already connected to specified master")
		}
		s.SlaveOf(to)
		return status("OK")
	case "CONFIG":
		if len(args) == 2 && strings.EqualFold(args[1], "rewrite") {
			return status("OK")
		}
		return errReply("ERR unknown subcommand for 'config'")
	case "CLIENT":
		switch {
		case len(args) == 4 && strings.EqualFold(args[1], "kill") && strings.EqualFold(args[2], "type"):
			return intReply(int64(c.clientKill(s, ss, strings.ToLower(args[3]))))
		case len(args) >= 2 && strings.EqualFold(args[1], "pause"):
			return c.clientPauseCommand(s, args)
		case len(args) == 2 && strings.EqualFold(args[1], "unpause"):
			return c.clientUnpauseCommand(s)
		}
		return errReply("ERR syntax error")
	case "FAILOVER":
		return c.failoverCommand(s, args)
	case "INCR", "SET", "GET":
		return c.dataCommand(s, cmd, args)
	case "SCRIPT":
		return errReply("NOTBUSY No scripts in execution right now.")
	}
	return errReply("ERR unknown command '" + args[0] + "'")
}

func errWrongArgs(cmd string) msg.Reply {
	return errReply("ERR wrong number of arguments for '" + strings.ToLower(cmd) + "' command")
}

// publish fans a message out to every connection subscribed to channel on
// s (the publisher's own pub/sub link included) and returns how many
// received it.
func (c *Cluster) publish(s *Server, channel, payload string) int {
	n := 0
	for _, x := range c.conns {
		if x.toSrv != s || !x.subscribed || x.peerClosed || x.channel != channel {
			continue
		}
		n++
		x := x
		c.push(x, downstream, "message "+channel+" "+payload, func() {
			c.step(x.from, msg.PubSubMessage{ID: x.link, Channel: channel, Payload: payload})
		})
	}
	return n
}

// clientKill closes the clients of s of one type (normal: command links
// and Clients' connections, pubsub: pub/sub links), except the one
// running the command, and returns how many it closed. What a killed
// client had held by a pause is never executed.
func (c *Cluster) clientKill(s *Server, self *session, typ string) int {
	n := 0
	for _, x := range c.connsSnapshot() {
		if x.toSrv != s || &x.session == self || !x.up || x.peerClosed {
			continue
		}
		if (typ == "normal" && x.kind == msg.CmdLink) || (typ == "pubsub" && x.kind == msg.PubSubLink) {
			c.resetConn(x, "Server closed the connection")
			n++
		}
	}
	if typ == "normal" {
		for _, x := range append([]*clientConn(nil), c.clientConns...) {
			if x.srv == s && &x.session != self && x.up && !x.peerClosed {
				c.resetClientConn(x, "Server closed the connection")
				n++
			}
		}
	}
	c.tracef(s.Name, "client kill type %s: %d", typ, n)
	return n
}
