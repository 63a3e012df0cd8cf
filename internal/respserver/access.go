package respserver

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// clientInfoLine is the CLIENT INFO line of c without its newline, as the
// ACL log keeps it.
func (s *Server) clientInfoLine(c *Client) string {
	return strings.TrimSuffix(c.info(s.now()), "\n")
}

// checkPermission is the ACL step of dispatch: nil when user (the
// client's) may run cmd with args, else the NOPERM error, after logging
// the denial in the ACL log. An alias is checked as the command it stands
// for, and named as sent.
func (s *Server) checkPermission(c *Client, user string, cmd *commands.Spec, args [][]byte) Value {
	res, arg := s.permissionOf(user, cmd, args)
	switch res {
	case acl.Allowed:
		return nil
	case acl.DeniedChannel:
		s.users.LogDenial(res, arg, user, s.clientInfoLine(c), s.now())
		return Err("NOPERM this user has no permissions to access one of the channels used as arguments")
	default:
		s.users.LogDenial(acl.DeniedCommand, cmd.Name, user, s.clientInfoLine(c), s.now())
		return Err(fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", cmd.Name))
	}
}

// permission is the ACL check of checkPermission for c's user, without
// logging.
func (s *Server) permission(c *Client, cmd *commands.Spec, args [][]byte) acl.Result {
	c.mu.Lock()
	user := c.user
	c.mu.Unlock()
	res, _ := s.permissionOf(user, cmd, args)
	return res
}

// permissionOf is the ACL check of a command line for user: the result
// and, for a denied argument, a copy of it. The check reads the arguments
// as strings that share their bytes (it keeps none of them), so that
// checking a command allocates nothing.
func (s *Server) permissionOf(user string, cmd *commands.Spec, args [][]byte) (acl.Result, string) {
	var views [8]string
	sargs := views[:0]
	if len(args) > len(views) {
		sargs = make([]string, 0, len(args))
	}
	for _, a := range args {
		sargs = append(sargs, unsafe.String(unsafe.SliceData(a), len(a)))
	}
	res, pos := s.users.Check(user, cmd, sargs)
	arg := ""
	if res != acl.Allowed && pos >= 0 && pos < len(sargs) {
		arg = strings.Clone(sargs[pos])
	}
	return res, arg
}

// authenticate checks a user/password pair for AUTH and HELLO AUTH; a
// failure is logged in the ACL log (reason auth, object the command name
// as sent).
func (x *ctx) authenticate(user, pass string) bool {
	if x.srv.users.Authenticate(user, pass) {
		return true
	}
	x.srv.users.LogDenial(acl.DeniedAuth, x.arg(0), user, x.srv.clientInfoLine(x.c), x.srv.now())
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
