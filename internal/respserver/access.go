package respserver

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// clientInfoLine is the CLIENT INFO line of c without its newline, as the
// ACL log keeps it.
func (s *Server) clientInfoLine(c *Client) string {
	return strings.TrimSuffix(c.info(s.now()), "\n")
}

// checkPermission is the ACL step of dispatch: nil when the client's user
// may run cmd with args, else the NOPERM error, after logging the denial
// in the ACL log. An alias is checked as the command it stands for, and
// named as sent.
func (s *Server) checkPermission(c *Client, cmd *commands.Spec, args [][]byte) Value {
	name, sargs, res, pos := s.permission(c, cmd, args)
	switch res {
	case acl.Allowed:
		return nil
	case acl.DeniedChannel:
		s.users.LogDenial(res, sargs[pos], name, s.clientInfoLine(c), s.now())
		return Err("NOPERM this user has no permissions to access one of the channels used as arguments")
	default:
		s.users.LogDenial(acl.DeniedCommand, cmd.Name, name, s.clientInfoLine(c), s.now())
		return Err(fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", cmd.Name))
	}
}

// permission is the ACL check of checkPermission, without logging: the
// client's user, the arguments as strings, the result and the position
// of the denied argument.
func (s *Server) permission(c *Client, cmd *commands.Spec, args [][]byte) (user string, sargs []string, res acl.Result, pos int) {
	c.mu.Lock()
	user = c.user
	c.mu.Unlock()
	sargs = stringArgs(args)
	res, pos = s.users.Check(user, cmd, sargs)
	return user, sargs, res, pos
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
