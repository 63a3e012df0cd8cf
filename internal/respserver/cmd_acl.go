package respserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/commands"
)

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
		for _, s := range catalogue.ListedOn(x.srv.opts.Surface) {
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
	loss, err := x.srv.users.SetUser(name, stringArgs(x.args[3:]))
	if err != nil {
		return Err("ERR " + err.Error())
	}
	if loss != nil {
		x.killRevokedSubscribers(name, loss)
	}
	return OK
}

// killRevokedSubscribers disconnects the subscribed clients of user whose
// channels or patterns the user's remaining permissions no longer allow.
func (x *ctx) killRevokedSubscribers(user string, loss *acl.ChannelLoss) {
	for _, c := range x.srv.clientList() {
		c.mu.Lock()
		kill := false
		if c.user == user {
			for p := range c.patterns {
				kill = kill || !loss.Allows(p, true)
			}
			for ch := range c.channels {
				kill = kill || !loss.Allows(ch, false)
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
	info, ok := x.srv.users.Info(x.arg(2))
	if !ok {
		return Null{}
	}
	flags := make(setReply, len(info.Flags))
	for i, f := range info.Flags {
		flags[i] = Bulk(f)
	}
	pw := make(Array, len(info.Passwords))
	for i, p := range info.Passwords {
		pw[i] = Bulk(p)
	}
	m := Map{Bulk("flags"), flags, Bulk("passwords"), pw}
	m = append(m, selectorFields(info.Selectors[0])...)
	sels := Array{}
	for _, s := range info.Selectors[1:] {
		sels = append(sels, Map(selectorFields(s)))
	}
	return append(m, Bulk("selectors"), sels)
}

// selectorFields are the commands, keys and channels fields ACL GETUSER
// shows for a selector.
func selectorFields(s acl.SelectorInfo) []Value {
	return []Value{Bulk("commands"), Bulk(s.Commands), Bulk("keys"), Bulk(s.Keys), Bulk("channels"), Bulk(s.Channels)}
}

func cmdACLList(x *ctx) Value {
	out := Array{}
	for _, l := range x.srv.users.ConfigLines() {
		out = append(out, Bulk("user "+strings.Join(l, " ")))
	}
	return out
}

func cmdACLUsers(x *ctx) Value {
	out := Array{}
	for _, n := range x.srv.users.Names() {
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
	if err := x.srv.users.LoadFile(); err != nil {
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
	err := x.srv.users.SaveFile()
	switch {
	case err == nil:
		return OK
	case errors.Is(err, acl.ErrNoFile):
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
			x.srv.users.ResetLog()
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
	for _, e := range x.srv.users.LogEntries(int(min(count, 1<<20))) {
		out = append(out, Map{
			Bulk("count"), Int(e.Count),
			Bulk("reason"), Bulk(e.Reason.String()),
			Bulk("context"), Bulk("toplevel"),
			Bulk("object"), Bulk(e.Object),
			Bulk("username"), Bulk(e.Username),
			Bulk("age-seconds"), doubleReply(float64(now-e.Time.UnixMilli()) / 1000),
			Bulk("client-info"), Bulk(e.ClientInfo),
		})
	}
	return out
}

func cmdACLDryRun(x *ctx) Value {
	user := x.arg(2)
	if !x.srv.users.Exists(user) {
		return Err(fmt.Sprintf("ERR User '%s' not found", user))
	}
	args := stringArgs(x.args[3:])
	spec := catalogue.LookupArgs(args)
	if spec == nil {
		return Err(fmt.Sprintf("ERR Command '%s' not found", args[0]))
	}
	if !spec.ArityOKOn(len(args), x.srv.opts.Surface) {
		return wrongArity(spec.Name)
	}
	switch res, pos := x.srv.users.Check(user, spec, args); res {
	case acl.Allowed:
		return OK
	case acl.DeniedChannel:
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
