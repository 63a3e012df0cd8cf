package respserver

import (
	"strconv"
	"strings"
)

func cmdPing(x *ctx) Value {
	if len(x.args) > 2 {
		return wrongArity("ping")
	}
	x.c.mu.Lock()
	subscribed := x.c.subscriptions() > 0 && x.c.proto == 2
	x.c.mu.Unlock()
	if subscribed {
		msg := ""
		if len(x.args) == 2 {
			msg = x.arg(1)
		}
		return Array{Bulk("pong"), Bulk(msg)}
	}
	if len(x.args) == 2 {
		return Bulk(x.arg(1))
	}
	return Status("PONG")
}

func cmdHello(x *ctx) Value {
	ver := 0
	next := 1
	if len(x.args) >= 2 {
		v, err := strconv.ParseInt(x.arg(1), 10, 64)
		if err != nil {
			return Err("ERR Protocol version is not an integer or out of range")
		}
		if v < 2 || v > 3 {
			return Err("NOPROTO unsupported protocol version")
		}
		ver = int(v)
		next = 2
	}
	var setname *string
	for j := next; j < len(x.args); j++ {
		more := len(x.args) - 1 - j
		opt := x.arg(j)
		switch {
		case strings.EqualFold(opt, "AUTH") && more >= 2:
			if !x.authenticate(x.arg(j+1), x.arg(j+2)) {
				return Err("WRONGPASS invalid username-password pair or user is disabled.")
			}
			x.c.mu.Lock()
			x.c.authenticated = true
			x.c.user = x.arg(j + 1)
			x.c.mu.Unlock()
			j += 2
		case strings.EqualFold(opt, "SETNAME") && more >= 1:
			name := x.arg(j + 1)
			if !validClientName(name) {
				return Err("ERR Client names cannot contain spaces, newlines or special characters.")
			}
			setname = &name
			j++
		default:
			return Err("ERR Syntax error in HELLO option '" + opt + "'")
		}
	}
	x.c.mu.Lock()
	defer x.c.mu.Unlock()
	if !x.c.authenticated {
		return Err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
	}
	if setname != nil {
		x.c.name = *setname
	}
	if ver != 0 {
		x.c.proto = ver
	}
	return Map{
		Bulk("server"), Bulk("redis"),
		Bulk("version"), Bulk(x.srv.opts.Info.Version),
		Bulk("proto"), Int(x.c.proto),
		Bulk("id"), Int(x.c.ID),
		Bulk("mode"), Bulk("sentinel"),
		Bulk("modules"), Array{},
	}
}

func cmdAuth(x *ctx) Value {
	if len(x.args) > 3 {
		return Err("ERR syntax error")
	}
	user, pass := "default", x.arg(1)
	if len(x.args) == 3 {
		user, pass = x.arg(1), x.arg(2)
	} else if x.srv.users.DefaultNoPass() {
		return Err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	}
	if !x.authenticate(user, pass) {
		return Err("WRONGPASS invalid username-password pair or user is disabled.")
	}
	x.c.mu.Lock()
	x.c.authenticated = true
	x.c.user = user
	x.c.mu.Unlock()
	return OK
}

func cmdShutdown(x *ctx) Value {
	for _, a := range x.args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave", "save", "now", "force":
		case "abort":
			return Err("ERR No shutdown in progress.")
		default:
			return Err("ERR syntax error")
		}
	}
	x.srv.log.Warningf("User requested shutdown...")
	if x.srv.opts.Backend != nil {
		x.srv.opts.Backend.Shutdown()
	}
	return closeConn
}
