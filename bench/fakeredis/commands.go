package fakeredis

import (
	"strconv"
	"strings"

	"github.com/tidwall/redcon"
)

// handle serves one command of a connection that is not subscribed.
func (i *Instance) handle(conn redcon.Conn, cmd redcon.Command) {
	c, ok := conn.Context().(*client)
	if !ok || len(cmd.Args) == 0 {
		conn.WriteError("ERR connection not registered")
		return
	}
	name := strings.ToUpper(string(cmd.Args[0]))
	if c.inMulti {
		switch name {
		case "EXEC":
			queued := c.queued
			c.inMulti, c.queued = false, nil
			conn.WriteArray(len(queued))
			for _, q := range queued {
				i.exec(c, conn, strings.ToUpper(string(q.Args[0])), q.Args)
			}
		case "DISCARD":
			c.inMulti, c.queued = false, nil
			conn.WriteString("OK")
		case "MULTI":
			conn.WriteError("ERR MULTI calls can not be nested")
		default:
			c.queued = append(c.queued, copyCommand(cmd))
			conn.WriteString("QUEUED")
		}
		return
	}
	switch name {
	case "MULTI":
		c.inMulti = true
		conn.WriteString("OK")
	case "EXEC", "DISCARD":
		conn.WriteError("ERR " + name + " without MULTI")
	case "SUBSCRIBE":
		i.subscribe(c, conn, cmd.Args[1:])
	default:
		i.exec(c, conn, name, cmd.Args)
	}
}

// exec runs one command outside of the pub/sub and transaction bookkeeping.
func (i *Instance) exec(c *client, conn redcon.Conn, name string, args [][]byte) {
	switch name {
	case "PING":
		if len(args) > 1 {
			conn.WriteBulk(args[1])
		} else {
			conn.WriteString("PONG")
		}
	case "ECHO":
		if len(args) != 2 {
			conn.WriteError("ERR wrong number of arguments for 'echo' command")
			return
		}
		conn.WriteBulk(args[1])
	case "AUTH", "SELECT":
		conn.WriteString("OK")
	case "QUIT":
		conn.WriteString("OK")
		_ = conn.Close()
	case "INFO":
		conn.WriteBulkString(i.info())
	case "ROLE":
		i.role(conn)
	case "PUBLISH":
		if len(args) != 3 {
			conn.WriteError("ERR wrong number of arguments for 'publish' command")
			return
		}
		conn.WriteInt(i.publish(string(args[1]), args[2]))
	case "SLAVEOF", "REPLICAOF":
		i.slaveof(conn, args)
	case "CONFIG":
		i.config(conn, args)
	case "CLIENT":
		i.clientCmd(c, conn, args)
	case "SCRIPT":
		conn.WriteError("NOTBUSY No scripts in execution right now.")
	default:
		conn.WriteError("ERR unknown command '" + string(args[0]) + "'")
	}
}

// role answers ROLE as Redis 7.0 does.
func (i *Instance) role(conn redcon.Conn) {
	f := i.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	off := f.offset()
	if i.master == "" {
		reps := f.replicasOf(i)
		conn.WriteArray(3)
		conn.WriteBulkString("master")
		conn.WriteInt64(off)
		conn.WriteArray(len(reps))
		for _, r := range reps {
			conn.WriteArray(3)
			conn.WriteBulkString(r.host)
			conn.WriteBulkString(strconv.Itoa(r.port))
			conn.WriteBulkString(strconv.FormatInt(off, 10))
		}
		return
	}
	host, port := splitHostPort(i.master)
	state := "connect"
	if f.liveMaster(i.master) != nil {
		state = "connected"
	}
	conn.WriteArray(5)
	conn.WriteBulkString("slave")
	conn.WriteBulkString(host)
	conn.WriteInt(port)
	conn.WriteBulkString(state)
	conn.WriteInt64(off)
}

// slaveof applies SLAVEOF NO ONE (promote) or SLAVEOF host port.
func (i *Instance) slaveof(conn redcon.Conn, args [][]byte) {
	if len(args) != 3 {
		conn.WriteError("ERR wrong number of arguments for 'slaveof' command")
		return
	}
	host, port := string(args[1]), string(args[2])
	master := ""
	if !strings.EqualFold(host, "no") || !strings.EqualFold(port, "one") {
		p, err := strconv.Atoi(port)
		if err != nil || p <= 0 || p > 65535 {
			conn.WriteError("ERR Invalid master port")
			return
		}
		master = joinHostPort(host, p)
	}
	f := i.fleet
	f.mu.Lock()
	if i.master != master {
		if master == "" {
			i.replID = randomID()
		}
		f.follow(i, master)
	}
	f.mu.Unlock()
	conn.WriteString("OK")
}

// config answers CONFIG REWRITE, SET and GET (the latter with nothing).
func (i *Instance) config(conn redcon.Conn, args [][]byte) {
	if len(args) < 2 {
		conn.WriteError("ERR wrong number of arguments for 'config' command")
		return
	}
	switch strings.ToUpper(string(args[1])) {
	case "REWRITE", "SET", "RESETSTAT":
		conn.WriteString("OK")
	case "GET":
		conn.WriteArray(0)
	default:
		conn.WriteError("ERR unknown subcommand '" + string(args[1]) + "'")
	}
}

// clientCmd answers CLIENT SETNAME, GETNAME, ID and KILL TYPE
// normal|pubsub (which, like SKIPME yes, spares the calling connection).
func (i *Instance) clientCmd(c *client, conn redcon.Conn, args [][]byte) {
	if len(args) < 2 {
		conn.WriteError("ERR wrong number of arguments for 'client' command")
		return
	}
	switch strings.ToUpper(string(args[1])) {
	case "SETNAME":
		conn.WriteString("OK")
	case "GETNAME":
		conn.WriteNull()
	case "ID":
		conn.WriteInt(1)
	case "KILL":
		if len(args) < 4 || !strings.EqualFold(string(args[2]), "type") {
			conn.WriteError("ERR syntax error")
			return
		}
		var pubsub bool
		switch strings.ToLower(string(args[3])) {
		case "normal":
		case "pubsub":
			pubsub = true
		case "master", "slave", "replica":
			conn.WriteInt(0)
			return
		default:
			conn.WriteError("ERR Unknown client type '" + string(args[3]) + "'")
			return
		}
		conn.WriteInt(i.killClients(c, pubsub))
	default:
		conn.WriteString("OK")
	}
}

// killClients closes every connection of the given type except self and
// returns how many it closed.
func (i *Instance) killClients(self *client, pubsub bool) int {
	f := i.fleet
	f.mu.Lock()
	var victims []*client
	for c := range i.clients {
		if c != self && (c.sub != nil) == pubsub {
			victims = append(victims, c)
		}
	}
	f.mu.Unlock()
	for _, c := range victims {
		_ = c.nc.Close()
	}
	return len(victims)
}

// copyCommand copies the arguments of a command redcon will reuse.
func copyCommand(cmd redcon.Command) redcon.Command {
	args := make([][]byte, len(cmd.Args))
	for k, a := range cmd.Args {
		args[k] = append([]byte(nil), a...)
	}
	return redcon.Command{Args: args}
}

func splitHostPort(addr string) (string, int) {
	k := strings.LastIndexByte(addr, ':')
	p, _ := strconv.Atoi(addr[k+1:])
	return strings.Trim(addr[:k], "[]"), p
}
