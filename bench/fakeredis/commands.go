package fakeredis

import (
	"strconv"
	"strings"
)

// dispatch runs one command of c, appending its reply to c.out. It reports
// whether the connection is to be closed after the reply (QUIT).
func (i *Instance) dispatch(c *client, args [][]byte) (quit bool) {
	name := strings.ToUpper(string(args[0]))
	if c.subscribedMode() {
		return i.subscribedCommand(c, name, args)
	}
	if c.inMulti {
		switch name {
		case "EXEC":
			queued := c.queued
			c.inMulti, c.queued = false, nil
			c.out.array(len(queued))
			for _, q := range queued {
				i.exec(c, strings.ToUpper(string(q[0])), q)
			}
		case "DISCARD":
			c.inMulti, c.queued = false, nil
			c.out.status("OK")
		case "MULTI":
			c.out.err("ERR MULTI calls can not be nested")
		default:
			c.queued = append(c.queued, args)
			c.out.status("QUEUED")
		}
		return false
	}
	switch name {
	case "MULTI":
		c.inMulti = true
		c.out.status("OK")
	case "EXEC", "DISCARD":
		c.out.err("ERR " + name + " without MULTI")
	case "SUBSCRIBE":
		i.subscribe(c, args[1:])
	case "QUIT":
		c.out.status("OK")
		return true
	default:
		i.exec(c, name, args)
	}
	return false
}

// exec runs one command outside of the pub/sub and transaction bookkeeping.
func (i *Instance) exec(c *client, name string, args [][]byte) {
	out := &c.out
	switch name {
	case "PING":
		if len(args) > 1 {
			out.bulk(string(args[1]))
		} else {
			out.status("PONG")
		}
	case "ECHO":
		if len(args) != 2 {
			out.err("ERR wrong number of arguments for 'echo' command")
			return
		}
		out.bulk(string(args[1]))
	case "AUTH", "SELECT":
		out.status("OK")
	case "INFO":
		if c.isResp3() {
			out.verbatim(i.info())
		} else {
			out.bulk(i.info())
		}
	case "HELLO":
		i.hello(c, args)
	case "ROLE":
		i.role(out)
	case "PUBLISH":
		if len(args) != 3 {
			out.err("ERR wrong number of arguments for 'publish' command")
			return
		}
		out.int(int64(i.publish(string(args[1]), args[2])))
	case "SLAVEOF", "REPLICAOF":
		i.slaveof(out, args)
	case "CONFIG":
		config(out, args)
	case "CLIENT":
		i.clientCmd(c, args)
	case "SCRIPT":
		out.err("NOTBUSY No scripts in execution right now.")
	default:
		out.err("ERR unknown command '" + string(args[0]) + "'")
	}
}

// hello answers HELLO [protover [AUTH user pass] [SETNAME name]] as Redis
// 7.0 does: protocol 2 or 3, the reply (a map) in the protocol chosen.
func (i *Instance) hello(c *client, args [][]byte) {
	out := &c.out
	resp3 := c.isResp3()
	if len(args) > 1 {
		switch string(args[1]) {
		case "2":
			resp3 = false
		case "3":
			resp3 = true
		default:
			out.err("NOPROTO unsupported protocol version")
			return
		}
	}
	f := i.fleet
	f.mu.Lock()
	c.resp3 = resp3
	role := "master"
	if i.master != "" {
		role = "replica"
	}
	f.mu.Unlock()
	proto := int64(2)
	if resp3 {
		proto = 3
		out.mapLen(7)
	} else {
		out.array(14)
	}
	out.bulk("server")
	out.bulk("redis")
	out.bulk("version")
	out.bulk("7.0.15")
	out.bulk("proto")
	out.int(proto)
	out.bulk("id")
	out.int(1)
	out.bulk("mode")
	out.bulk("standalone")
	out.bulk("role")
	out.bulk(role)
	out.bulk("modules")
	out.array(0)
}

// role answers ROLE as Redis 7.0 does.
func (i *Instance) role(out *reply) {
	f := i.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	off := f.offset()
	if i.master == "" {
		reps := f.replicasOf(i)
		out.array(3)
		out.bulk("master")
		out.int(off)
		out.array(len(reps))
		for _, r := range reps {
			out.array(3)
			out.bulk(r.host)
			out.bulk(strconv.Itoa(r.port))
			out.bulk(strconv.FormatInt(off, 10))
		}
		return
	}
	host, port := splitHostPort(i.master)
	state := "connect"
	if f.liveMaster(i.master) != nil {
		state = "connected"
	}
	out.array(5)
	out.bulk("slave")
	out.bulk(host)
	out.int(int64(port))
	out.bulk(state)
	out.int(off)
}

// slaveof applies SLAVEOF NO ONE (promote) or SLAVEOF host port.
func (i *Instance) slaveof(out *reply, args [][]byte) {
	if len(args) != 3 {
		out.err("ERR wrong number of arguments for 'slaveof' command")
		return
	}
	host, port := string(args[1]), string(args[2])
	master := ""
	if !strings.EqualFold(host, "no") || !strings.EqualFold(port, "one") {
		p, err := strconv.Atoi(port)
		if err != nil || p <= 0 || p > 65535 {
			out.err("ERR Invalid master port")
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
	out.status("OK")
}

// config answers CONFIG REWRITE, SET and GET (the latter with nothing).
func config(out *reply, args [][]byte) {
	if len(args) < 2 {
		out.err("ERR wrong number of arguments for 'config' command")
		return
	}
	switch strings.ToUpper(string(args[1])) {
	case "REWRITE", "SET", "RESETSTAT":
		out.status("OK")
	case "GET":
		out.array(0)
	default:
		out.err("ERR unknown subcommand '" + string(args[1]) + "'")
	}
}

// clientCmd answers CLIENT SETNAME, GETNAME, ID and KILL TYPE
// normal|pubsub (which, like SKIPME yes, spares the calling connection).
func (i *Instance) clientCmd(c *client, args [][]byte) {
	out := &c.out
	if len(args) < 2 {
		out.err("ERR wrong number of arguments for 'client' command")
		return
	}
	switch strings.ToUpper(string(args[1])) {
	case "SETNAME":
		out.status("OK")
	case "GETNAME":
		out.null()
	case "ID":
		out.int(1)
	case "KILL":
		if len(args) < 4 || !strings.EqualFold(string(args[2]), "type") {
			out.err("ERR syntax error")
			return
		}
		var pubsub bool
		switch strings.ToLower(string(args[3])) {
		case "normal":
		case "pubsub":
			pubsub = true
		case "master", "slave", "replica":
			out.int(0)
			return
		default:
			out.err("ERR Unknown client type '" + string(args[3]) + "'")
			return
		}
		out.int(int64(i.killClients(c, pubsub)))
	default:
		out.status("OK")
	}
}

// killClients closes every connection of the given type except self and
// returns how many it closed.
func (i *Instance) killClients(self *client, pubsub bool) int {
	f := i.fleet
	f.mu.Lock()
	var victims []*client
	for c := range i.clients {
		if c != self && (len(c.channels) > 0) == pubsub {
			victims = append(victims, c)
		}
	}
	f.mu.Unlock()
	for _, c := range victims {
		_ = c.nc.Close()
	}
	return len(victims)
}

func splitHostPort(addr string) (string, int) {
	k := strings.LastIndexByte(addr, ':')
	p, _ := strconv.Atoi(addr[k+1:])
	return strings.Trim(addr[:k], "[]"), p
}
