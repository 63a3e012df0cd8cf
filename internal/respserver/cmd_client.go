package respserver

import (
	"strconv"
	"strings"
)

func clientSubcommands() []*command {
	return []*command{
		{name: "id", arity: 2, handler: cmdClientID},
		{name: "getname", arity: 2, handler: cmdClientGetname},
		{name: "setname", arity: 3, handler: cmdClientSetname},
		{name: "info", arity: 2, handler: cmdClientInfo},
		{name: "list", arity: -2, handler: cmdClientList},
		{name: "kill", arity: -3, handler: cmdClientKill},
		{name: "help", arity: 2, handler: cmdClientHelp},
	}
}

func cmdClientID(x *ctx) Value { return Int(x.c.ID) }

func cmdClientGetname(x *ctx) Value {
	x.c.mu.Lock()
	defer x.c.mu.Unlock()
	if x.c.name == "" {
		return Null{}
	}
	return Bulk(x.c.name)
}

func cmdClientSetname(x *ctx) Value {
	name := x.arg(2)
	if !validClientName(name) {
		return Err("ERR Client names cannot contain spaces, newlines or special characters.")
	}
	x.c.mu.Lock()
	x.c.name = name
	x.c.mu.Unlock()
	return OK
}

func cmdClientInfo(x *ctx) Value { return Verbatim(x.c.info(x.srv.now())) }

func clientType(c *Client) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subscriptions() > 0 {
		return "pubsub"
	}
	return "normal"
}

func cmdClientList(x *ctx) Value {
	var typ string
	var ids map[int64]bool
	for i := 2; i < len(x.args); i++ {
		switch strings.ToLower(x.arg(i)) {
		case "type":
			if i+1 >= len(x.args) {
				return Err("ERR syntax error")
			}
			typ = strings.ToLower(x.arg(i + 1))
			switch typ {
			case "normal", "pubsub", "master", "replica", "slave":
			default:
				return Err("ERR Unknown client type '" + x.arg(i+1) + "'")
			}
			i++
		case "id":
			if i+1 >= len(x.args) {
				return Err("ERR syntax error")
			}
			ids = map[int64]bool{}
			for i+1 < len(x.args) {
				id, err := strconv.ParseInt(x.arg(i+1), 10, 64)
				if err != nil || id <= 0 {
					return Err("ERR Invalid client ID")
				}
				ids[id] = true
				i++
			}
		default:
			return Err("ERR syntax error")
		}
	}
	var sb strings.Builder
	now := x.srv.now()
	for _, c := range x.srv.clientList() {
		if typ != "" && clientType(c) != typ {
			continue
		}
		if ids != nil && !ids[c.ID] {
			continue
		}
		sb.WriteString(c.info(now))
	}
	return Verbatim(sb.String())
}

// cmdClientKill supports both forms: `CLIENT KILL addr:port` (replies +OK
// or an error) and the filter form (`ID`, `TYPE`, `USER`, `ADDR`, `LADDR`,
// `SKIPME`), which replies with the number of clients killed.
func cmdClientKill(x *ctx) Value {
	if len(x.args) == 3 {
		addr := x.arg(2)
		for _, c := range x.srv.clientList() {
			if c.addr == addr {
				if c == x.c {
					c.closeAfterReplies()
				} else {
					c.close()
				}
				return OK
			}
		}
		return Err("ERR No such client")
	}
	var (
		id                    int64
		typ, user, addr, ladd string
		skipme                = true
	)
	if (len(x.args)-2)%2 != 0 {
		return Err("ERR syntax error")
	}
	for i := 2; i < len(x.args); i += 2 {
		v := x.arg(i + 1)
		switch strings.ToLower(x.arg(i)) {
		case "id":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return Err("ERR client-id should be greater than 0")
			}
			id = n
		case "type":
			typ = strings.ToLower(v)
			switch typ {
			case "normal", "pubsub", "master", "replica", "slave":
			default:
				return Err("ERR Unknown client type '" + v + "'")
			}
		case "user":
			user = v
		case "addr":
			addr = v
		case "laddr":
			ladd = v
		case "skipme":
			switch strings.ToLower(v) {
			case "yes":
				skipme = true
			case "no":
				skipme = false
			default:
				return Err("ERR syntax error")
			}
		default:
			return Err("ERR syntax error")
		}
	}
	killed := 0
	for _, c := range x.srv.clientList() {
		c.mu.Lock()
		cu, ca, cl := c.user, c.addr, c.laddr
		c.mu.Unlock()
		if (id != 0 && c.ID != id) || (typ != "" && clientType(c) != typ) ||
			(user != "" && cu != user) || (addr != "" && ca != addr) || (ladd != "" && cl != ladd) {
			continue
		}
		if c == x.c {
			if skipme {
				continue
			}
			c.closeAfterReplies()
		} else {
			c.close()
		}
		killed++
	}
	return Int(killed)
}

func cmdClientHelp(x *ctx) Value {
	lines := []string{
		"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GETNAME",
		"    Return the name of the current connection.",
		"ID",
		"    Return the ID of the current connection.",
		"INFO",
		"    Return information about the current client connection.",
		"KILL <ip:port>",
		"    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]",
		"    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made to specified local address",
		"    * TYPE (normal|master|replica|pubsub)",
		"      Kill connections by type.",
		"    * USER <username>",
		"      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)",
		"      Skip killing current connection (default: yes).",
		"    * ID <client-id>",
		"      Kill connections by client id.",
		"LIST [options ...]",
		"    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Return clients of specified type.",
		"SETNAME <name>",
		"    Assign the name <name> to the current connection.",
		"HELP",
		"    Prints this help.",
	}
	out := make(Array, len(lines))
	for i, l := range lines {
		out[i] = Status(l)
	}
	return out
}
