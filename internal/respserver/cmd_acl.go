package respserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// subcommandSyntaxError is Redis's reply to a known subcommand given a
// number of arguments its handler does not take.
func subcommandSyntaxError(x *ctx) Value {
	sub := x.arg(1)
	if len(sub) > 128 {
		sub = sub[:128]
	}
	return Err(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP.", sub, strings.ToUpper(x.arg(0))))
}

// clientInfoLine is the CLIENT INFO line of c without its newline, as the
// ACL log keeps it.
func (s *Server) clientInfoLine(c *Client) string {
	return strings.TrimSuffix(c.info(s.now()), "\n")
}

func stringArgs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// checkPermission is the ACL step of dispatch: nil when the client's user
// may run cmd with args, else the NOPERM error, after logging the denial
// in the ACL log. Commands outside Redis 7.0's set (the Valkey aliases
// are mapped to their 7.0 names) need the +@all "future commands" right.
func (s *Server) checkPermission(c *Client, cmd *commands.Spec, args [][]byte) Value {
	c.mu.Lock()
	name := c.user
	c.mu.Unlock()
	sargs := stringArgs(args)
	res, pos := aclDeniedCmd, 0
	s.users.mu.RLock()
	if usr := s.users.get(name); usr != nil {
		res, pos = usr.check(cmd.Canonical(), sargs)
	}
	s.users.mu.RUnlock()
	switch res {
	case aclOK:
		return nil
	case aclDeniedChannel:
		s.users.addLog(res, sargs[pos], name, s.clientInfoLine(c), s.now())
		return Err("NOPERM this user has no permissions to access one of the channels used as arguments")
	default:
		s.users.addLog(aclDeniedCmd, cmd.Name, name, s.clientInfoLine(c), s.now())
		return Err(fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", cmd.Name))
	}
}

// authenticate checks a user/password pair for AUTH and HELLO AUTH; a
// failure is logged in the ACL log (reason auth, object the command name
// as sent).
func (x *ctx) authenticate(user, pass string) bool {
	if x.srv.users.Authenticate(user, pass) {
		return true
	}
	x.srv.users.addLog(aclDeniedAuth, x.arg(0), user, x.srv.clientInfoLine(x.c), x.srv.now())
	return false
}

// dropClient ends c because its user went away or lost rights: it falls
// back to the unauthenticated default user and is closed, after its
// pending reply when it is the client running the command.
func (x *ctx) dropClient(c *Client) {
	c.mu.Lock()
	c.user = "default"
	c.authenticated = false
	c.mu.Unlock()
	if c == x.c {
		clientStateOf(c).closeAfterCommand = true
		return
	}
	c.close()
}

func cmdACLCat(x *ctx) Value {
	switch len(x.args) {
	case 2:
		out := make(Array, len(commands.CategoryNames))
		for i, n := range commands.CategoryNames {
			out[i] = Bulk(n)
		}
		return out
	case 3:
		cat := commands.CategoryByName(x.arg(2))
		if cat == 0 {
			name := x.arg(2)
			if len(name) > 128 {
				name = name[:128]
			}
			return Err(fmt.Sprintf("ERR Unknown category '%s'", name))
		}
		out := Array{}
		for _, s := range catalogue.All() {
			if s.Categories&cat != 0 {
				out = append(out, Bulk(s.Name))
			}
		}
		return out
	}
	return subcommandSyntaxError(x)
}

func cmdACLSetUser(x *ctx) Value {
	name := x.arg(2)
	before, after, err := x.srv.users.SetUser(name, stringArgs(x.args[3:]))
	if err != nil {
		return Err("ERR " + err.Error())
	}
	if before != nil {
		if upcoming, revoked := channelsRevoked(before, after); revoked {
			x.killRevokedSubscribers(name, upcoming)
		}
	}
	return OK
}

// killRevokedSubscribers disconnects the subscribed clients of user whose
// channels or patterns the upcoming channel list no longer allows.
func (x *ctx) killRevokedSubscribers(user string, upcoming []string) {
	for _, c := range x.srv.clientList() {
		c.mu.Lock()
		kill := false
		if c.user == user {
			for p := range c.patterns {
				kill = kill || !channelAllowed(upcoming, p, true)
			}
			for ch := range c.channels {
				kill = kill || !channelAllowed(upcoming, ch, false)
			}
		}
		c.mu.Unlock()
		if kill {
			x.dropClient(c)
		}
	}
}

func cmdACLDelUser(x *ctx) Value {
	deleted, err := x.srv.users.DeleteUsers(stringArgs(x.args[2:]))
	if err != nil {
		return Err("ERR " + err.Error())
	}
	gone := map[string]bool{}
	for _, n := range deleted {
		gone[n] = true
	}
	for _, c := range x.srv.clientList() {
		c.mu.Lock()
		hit := gone[c.user]
		c.mu.Unlock()
		if hit {
			x.dropClient(c)
		}
	}
	return Int(len(deleted))
}

func cmdACLGetUser(x *ctx) Value {
	u := x.srv.users
	u.mu.RLock()
	defer u.mu.RUnlock()
	usr := u.get(x.arg(2))
	if usr == nil {
		return Null{}
	}
	flags := setReply{}
	for _, f := range usr.flagNames() {
		flags = append(flags, Bulk(f))
	}
	pw := Array{}
	for _, p := range usr.passwords {
		pw = append(pw, Bulk(p))
	}
	m := Map{Bulk("flags"), flags, Bulk("passwords"), pw}
	m = append(m, selectorFields(usr.selectors[0])...)
	sels := Array{}
	for _, s := range usr.selectors[1:] {
		sels = append(sels, Map(selectorFields(s)))
	}
	return append(m, Bulk("selectors"), sels)
}

// selectorFields are the commands, keys and channels fields ACL GETUSER
// shows for a selector.
func selectorFields(s *selector) []Value {
	keys := "~*"
	if !s.allKeys {
		var parts []string
		for _, k := range s.keys {
			parts = append(parts, k.String())
		}
		keys = strings.Join(parts, " ")
	}
	chans := "&*"
	if !s.allChannels {
		var parts []string
		for _, c := range s.channels {
			parts = append(parts, "&"+c)
		}
		chans = strings.Join(parts, " ")
	}
	return []Value{Bulk("commands"), Bulk(s.describeSelectorCommands()), Bulk("keys"), Bulk(keys), Bulk("channels"), Bulk(chans)}
}

func cmdACLList(x *ctx) Value {
	out := Array{}
	for _, l := range x.srv.users.ConfigLines() {
		out = append(out, Bulk("user "+strings.Join(l, " ")))
	}
	return out
}

func cmdACLUsers(x *ctx) Value {
	u := x.srv.users
	u.mu.RLock()
	defer u.mu.RUnlock()
	out := Array{}
	for _, n := range u.names() {
		out = append(out, Bulk(n))
	}
	return out
}

func cmdACLWhoAmI(x *ctx) Value {
	x.c.mu.Lock()
	defer x.c.mu.Unlock()
	return Bulk(x.c.user)
}

// cmdACLLoad reloads the aclfile. As in Redis every client authenticated
// as a user other than default is disconnected, even if the file keeps it.
func cmdACLLoad(x *ctx) Value {
	if err := x.srv.users.LoadACLFile(); err != nil {
		return Err("ERR " + err.Error())
	}
	for _, c := range x.srv.clientList() {
		c.mu.Lock()
		other := c.user != "default"
		c.mu.Unlock()
		if other {
			x.dropClient(c)
		}
	}
	return OK
}

func cmdACLSave(x *ctx) Value {
	err := x.srv.users.SaveACLFile()
	switch {
	case err == nil:
		return OK
	case errors.Is(err, ErrNoACLFile):
		return Err("ERR " + err.Error())
	}
	x.srv.log.Warningf("%v", err)
	return Err("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
}

// genpassMaxBits is the largest ACL GENPASS size.
const genpassMaxBits = 4096

func cmdACLGenPass(x *ctx) Value {
	if len(x.args) > 3 {
		return subcommandSyntaxError(x)
	}
	bits := int64(256)
	if len(x.args) == 3 {
		n, ok := parseLongLong(x.arg(2))
		if !ok {
			return errIntArg
		}
		bits = n
	}
	if bits <= 0 || bits > genpassMaxBits {
		return Err(fmt.Sprintf("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to %d", genpassMaxBits))
	}
	chars := int((bits + 3) / 4)
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		return Err("ERR " + err.Error())
	}
	return Bulk(hex.EncodeToString(buf)[:chars])
}

func cmdACLLog(x *ctx) Value {
	if len(x.args) > 3 {
		return subcommandSyntaxError(x)
	}
	count := int64(10)
	if len(x.args) == 3 {
		if strings.EqualFold(x.arg(2), "reset") {
			x.srv.users.resetLog()
			return OK
		}
		n, ok := parseLongLong(x.arg(2))
		if !ok {
			return errIntArg
		}
		count = max(n, 0)
	}
	now := x.srv.now().UnixMilli()
	out := Array{}
	for _, e := range x.srv.users.logEntries(int(min(count, 1<<20))) {
		reason := "command"
		switch e.reason {
		case aclDeniedKey:
			reason = "key"
		case aclDeniedChannel:
			reason = "channel"
		case aclDeniedAuth:
			reason = "auth"
		}
		out = append(out, Map{
			Bulk("count"), Int(e.count),
			Bulk("reason"), Bulk(reason),
			Bulk("context"), Bulk("toplevel"),
			Bulk("object"), Bulk(e.object),
			Bulk("username"), Bulk(e.username),
			Bulk("age-seconds"), doubleReply(float64(now-e.ctime.UnixMilli()) / 1000),
			Bulk("client-info"), Bulk(e.cinfo),
		})
	}
	return out
}

func cmdACLDryRun(x *ctx) Value {
	u := x.srv.users
	u.mu.RLock()
	usr := u.get(x.arg(2))
	if usr == nil {
		u.mu.RUnlock()
		return Err(fmt.Sprintf("ERR User '%s' not found", x.arg(2)))
	}
	usr = usr.clone()
	u.mu.RUnlock()
	args := stringArgs(x.args[3:])
	spec := catalogue.LookupArgs(args)
	if spec == nil {
		return Err(fmt.Sprintf("ERR Command '%s' not found", args[0]))
	}
	if !spec.ArityOK(len(args)) {
		return wrongArity(spec.Name)
	}
	switch res, pos := usr.check(spec, args); res {
	case aclOK:
		return OK
	case aclDeniedChannel:
		return Bulk(fmt.Sprintf("This user has no permissions to access the '%s' channel", args[pos]))
	default:
		return Bulk(fmt.Sprintf("This user has no permissions to run the '%s' command", spec.Name))
	}
}

func cmdACLHelp(x *ctx) Value {
	return helpReply("ACL",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.",
	)
}
