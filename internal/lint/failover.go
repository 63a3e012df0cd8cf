package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// The first Redis version with the FAILOVER command, CLIENT PAUSE ...
// WRITE and CLIENT UNPAUSE, which SENTINEL FAILOVER (plain and
// COORDINATED) sends.
const (
	failoverMinMajor = 6
	failoverMinMinor = 2
)

// FailoverCommand is one command a failover sends to a data node, in the
// form ACL DRYRUN is asked about it.
type FailoverCommand struct {
	// Name is the command, Sub its subcommand ("" for none).
	Name, Sub string
	// Args are arguments as a failover sends them; ACL DRYRUN only
	// matches them against the user's rules, it runs nothing.
	Args []string
}

// FailoverCommands are the commands SENTINEL FAILOVER sends the master
// and, once promoted, the new master (so every replica may get them):
// MULTI, CLIENT PAUSE ... WRITE, FAILOVER TO ... (COORDINATED), EXEC;
// then MULTI, CONFIG REWRITE, CLIENT KILL TYPE normal and pubsub, CLIENT
// UNPAUSE, EXEC; FAILOVER ABORT at an abort. They are listed in the order
// of the ACL rules a fix names.
var FailoverCommands = []FailoverCommand{
	{Name: "FAILOVER", Args: []string{"TO", "127.0.0.1", "6379", "TIMEOUT", "10000"}},
	{Name: "FAILOVER", Args: []string{"ABORT"}},
	{Name: "CLIENT", Sub: "PAUSE", Args: []string{"10000", "WRITE"}},
	{Name: "CLIENT", Sub: "UNPAUSE"},
	{Name: "CLIENT", Sub: "KILL", Args: []string{"TYPE", "normal"}},
	{Name: "CLIENT", Sub: "KILL", Args: []string{"TYPE", "pubsub"}},
	{Name: "CONFIG", Sub: "REWRITE"},
	{Name: "MULTI"},
	{Name: "EXEC"},
}

// renamed returns cmd under m's rename-command mapping.
func renamed(m settings.MasterSpec, cmd string) string {
	for _, r := range m.RenameCommands {
		if strings.EqualFold(r.Command, cmd) {
			return r.Renamed
		}
	}
	return cmd
}

// ACLName is c as an ACL rule names it on m's instances: "client|pause",
// with the command under its rename-command name.
func (c FailoverCommand) ACLName(m settings.MasterSpec) string {
	n := strings.ToLower(renamed(m, c.Name))
	if c.Sub != "" {
		n += "|" + strings.ToLower(c.Sub)
	}
	return n
}

// Argv is c as Sentinel sends it to m's instances.
func (c FailoverCommand) Argv(m settings.MasterSpec) []string {
	argv := []string{renamed(m, c.Name)}
	if c.Sub != "" {
		argv = append(argv, c.Sub)
	}
	return append(argv, c.Args...)
}

// SentinelUser is the user Sentinel logs in to m's instances as: its
// auth-user when auth-pass is set too, else "default".
func SentinelUser(m settings.MasterSpec) string {
	if m.AuthPass != "" && m.AuthUser != "" {
		return m.AuthUser
	}
	return "default"
}

// failoverACLRules are the distinct ACL rules granting FailoverCommands on
// m's instances, in order: "+multi +client|pause ...".
func failoverACLRules(m settings.MasterSpec) string {
	var rules []string
	seen := map[string]bool{}
	for _, c := range FailoverCommands {
		if n := c.ACLName(m); !seen[n] {
			seen[n] = true
			rules = append(rules, "+"+n)
		}
	}
	return strings.Join(rules, " ")
}

// failoverSupported reports whether i has the FAILOVER command and CLIENT
// PAUSE ... WRITE: INFO reports master_failover_state and a version of
// 6.2 or later (or none).
func failoverSupported(i Instance) bool {
	if !i.FailoverState {
		return false
	}
	major, minor, ok := parseVersion(i.Version)
	return !ok || major > failoverMinMajor || (major == failoverMinMajor && minor >= failoverMinMinor)
}

// parseVersion reads the major and minor numbers of "7.0.15".
func parseVersion(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// serverName is "Redis 7.0.15", "Valkey 8.0.1" or "a server that reports
// no version".
func serverName(i Instance) string {
	switch {
	case i.Version == "":
		return "a server that reports no version"
	case i.Valkey:
		return "Valkey " + i.Version
	}
	return "Redis " + i.Version
}

// coordinatedFailoverRules report, for the master and every replica (any
// of them may become the master), a server that cannot take part in a
// failover that pauses writes, and a Sentinel user that may not send it
// the commands that needs.
func coordinatedFailoverRules(t *target) []Finding {
	if t.live == nil {
		return nil
	}
	var out []Finding
	check := func(kind string, i Instance) {
		if !i.reachable() || i.Addr == "" {
			return
		}
		if !failoverSupported(i) {
			out = append(out, t.failoverUnsupported(kind, i))
			return
		}
		if f, ok := t.failoverACL(kind, i); ok {
			out = append(out, f)
		}
	}
	check("master", t.live.Master)
	for _, r := range t.live.Replicas {
		check("replica", r)
	}
	return out
}

// failoverUnsupported is the finding about an instance older than 6.2.
func (t *target) failoverUnsupported(kind string, i Instance) Finding {
	name := t.spec.Name
	var why string
	if major, minor, ok := parseVersion(i.Version); ok && (major < failoverMinMajor || (major == failoverMinMajor && minor < failoverMinMinor)) {
		why = fmt.Sprintf("runs %s, older than 6.2", serverName(i))
	} else {
		why = fmt.Sprintf("runs %s whose INFO has no master_failover_state (Redis reports it from 6.2 on)", serverName(i))
	}
	return t.finding(Warning, RuleCoordinatedFailoverUnsupported,
		fmt.Sprintf("the %s %s of %s %s, so it has no FAILOVER command and no CLIENT PAUSE ... WRITE: `SENTINEL FAILOVER %s COORDINATED` "+
			"answers -NOGOODPRIMARY %s, and a plain `SENTINEL FAILOVER %s` cannot pause its writes, "+
			"so writes it accepts between the promotion of a replica and its own demotion are lost.", kind, i.Addr, name, why, name, whileMaster(kind), name),
		fmt.Sprintf("Upgrade %s to Redis 6.2 or later (from 7.0 on, check also verifies with ACL DRYRUN that Sentinel's user may send the failover commands).", i.Addr))
}

// whileMaster says when an instance of kind is the one a coordinated
// failover starts from.
func whileMaster(kind string) string {
	if kind == "master" {
		return "while it is the master"
	}
	return "once it has been promoted (any replica may be)"
}

// failoverACL is the finding about the Sentinel user's permissions on an
// instance, if any.
func (t *target) failoverACL(kind string, i Instance) (Finding, bool) {
	name := t.spec.Name
	a := i.FailoverACL
	user := a.User
	if user == "" {
		user = SentinelUser(t.spec)
	}
	who := fmt.Sprintf("the user Sentinel logs in to the %s %s of %s as (%s)", kind, i.Addr, name, user)
	switch {
	case a.Verified && len(a.Denied) == 0:
		return Finding{}, false
	case a.Verified:
		var denied, rules, missing []string
		plain := false
		for _, d := range a.Denied {
			if d.Command != FailoverCommands[0].ACLName(t.spec) {
				plain = true
			}
			if d.Missing {
				missing = append(missing, d.Command)
			} else {
				denied, rules = append(denied, d.Command), append(rules, "+"+d.Command)
			}
		}
		var what, fix []string
		if len(denied) > 0 {
			what = append(what, "may not run "+strings.Join(denied, ", "))
			fix = append(fix, fmt.Sprintf("Run `ACL SETUSER %s %s` on %s, then `ACL SAVE` (with an aclfile) or `CONFIG REWRITE` so that it survives a restart.",
				user, strings.Join(rules, " "), i.Addr))
		}
		if len(missing) > 0 {
			what = append(what, "would send "+strings.Join(missing, ", ")+", which that server does not have (disabled or renamed by its rename-command)")
			fix = append(fix, fmt.Sprintf("Enable them on %s, or give Sentinel their names there with `sentinel rename-command %s <command> <renamed>` in this file.",
				i.Addr, name))
		}
		consequence := fmt.Sprintf("`SENTINEL FAILOVER %s COORDINATED` cannot run %s", name, whileMaster(kind))
		if plain {
			consequence += fmt.Sprintf(", and a plain `SENTINEL FAILOVER %s` cannot pause its writes or reconfigure it", name)
		}
		return t.finding(Warning, RuleCoordinatedFailoverACL,
			fmt.Sprintf("%s %s, as ACL DRYRUN reports, so the failover commands Sentinel sends it fail (one denied command fails its whole MULTI/EXEC): %s.",
				who, strings.Join(what, " and "), consequence),
			strings.Join(fix, " ")), true
	case a.Unverified != "":
		return t.finding(Info, RuleCoordinatedFailoverACL,
			fmt.Sprintf("whether %s may run the commands a failover sends (FAILOVER, CLIENT PAUSE, CLIENT UNPAUSE, CLIENT KILL, CONFIG REWRITE, MULTI, EXEC) "+
				"could not be verified: ACL DRYRUN answered %q (it exists from Redis 7.0 on, and this user needs +acl|dryrun to run it).", who, a.Unverified),
			fmt.Sprintf("Check by hand with `ACL GETUSER %s` on %s; if it lacks any of them, run `ACL SETUSER %s %s` there.",
				user, i.Addr, user, failoverACLRules(t.spec))), true
	}
	return Finding{}, false
}
