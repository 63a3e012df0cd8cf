package lint

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// withServer returns i reporting version v (Valkey when valkey) and, when
// state, master_failover_state.
func withServer(i Instance, v string, valkey, state bool) Instance {
	i.Version, i.Valkey, i.FailoverState = v, valkey, state
	return i
}

// withACL returns i with the ACL DRYRUN outcome a.
func withACL(i Instance, a ACLCheck) Instance {
	i.FailoverACL = a
	return i
}

func TestCoordinatedFailoverUnsupportedRule(t *testing.T) {
	down := withServer(goodMaster(), "6.0.16", false, false)
	down.Err = "connection refused"
	runRuleCases(t, RuleCoordinatedFailoverUnsupported, []ruleCase{
		{name: "master 6.0", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "6.0.16", false, false), goodReplica(6380)), want: sev(Warning),
			contains: []string{"the master 127.0.0.1:6379 of mymaster runs Redis 6.0.16, older than 6.2", "no FAILOVER command and no CLIENT PAUSE ... WRITE",
				"`SENTINEL FAILOVER mymaster COORDINATED` answers -NOGOODPRIMARY while it is the master", "cannot pause its writes"},
			fix: []string{"Upgrade 127.0.0.1:6379 to Redis 6.2 or later"}},
		{name: "replica 5.0", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380), withServer(goodReplica(6381), "5.0.7", false, false)), want: sev(Warning),
			contains: []string{"the replica 127.0.0.1:6381 of mymaster runs Redis 5.0.7, older than 6.2", "once it has been promoted"},
			fix:      []string{"Upgrade 127.0.0.1:6381"}},
		{name: "old version that reports a failover state", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "6.0.9", false, true), goodReplica(6380)),
			want: sev(Warning), contains: []string{"runs Redis 6.0.9, older than 6.2"}},
		{name: "6.2 without master_failover_state", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "6.2.14", false, false), goodReplica(6380)),
			want: sev(Warning), contains: []string{"runs Redis 6.2.14 whose INFO has no master_failover_state"}},
		{name: "no version, no failover state", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "", false, false), goodReplica(6380)),
			want: sev(Warning), contains: []string{"runs a server that reports no version whose INFO has no master_failover_state"}},
		{name: "6.2", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "6.2.0", false, true), goodReplica(6380))},
		{name: "valkey", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "8.0.1", true, true), withServer(goodReplica(6380), "8.0.1", true, true))},
		{name: "no version but a failover state", conf: conf(2, 2), facts: fleet(3, withServer(goodMaster(), "", false, true), goodReplica(6380))},
		{name: "master unreachable", conf: conf(2, 2), facts: fleet(3, down, goodReplica(6380))},
		{name: "current", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
		{name: "static", conf: conf(2, 2)},
	})
}

// TestCoordinatedFailoverUnsupportedEach checks that every old instance
// gets its own finding, and no ACL finding besides.
func TestCoordinatedFailoverUnsupportedEach(t *testing.T) {
	unverified := ACLCheck{User: "default", Unverified: "ERR unknown command 'ACL'"}
	old := func(i Instance) Instance { return withACL(withServer(i, "5.0.14", false, false), unverified) }
	fs := Check(parse(t, conf(2, 2)), fleet(3, old(goodMaster()), old(goodReplica(6380)), goodReplica(6381)), Options{})
	var addrs []string
	for _, f := range fs {
		switch f.Rule {
		case RuleCoordinatedFailoverUnsupported:
			addrs = append(addrs, strings.Fields(f.Reason)[2])
		case RuleCoordinatedFailoverACL:
			t.Errorf("ACL finding about an old server: %+v", f)
		}
	}
	if !reflect.DeepEqual(addrs, []string{"127.0.0.1:6379", "127.0.0.1:6380"}) {
		t.Fatalf("findings about %v\nall: %+v", addrs, fs)
	}
}

func TestCoordinatedFailoverACLRule(t *testing.T) {
	auth := []string{"sentinel auth-user mymaster sentinel-user", "sentinel auth-pass mymaster s3cr3t"}
	denied := ACLCheck{User: "sentinel-user", Verified: true, Denied: []ACLDenial{
		{Command: "failover", Reason: "This user has no permissions to run the 'failover' command"},
		{Command: "client|pause", Reason: "This user has no permissions to run the 'client|pause' command"},
		{Command: "client|unpause", Reason: "This user has no permissions to run the 'client|unpause' command"},
	}}
	missing := ACLCheck{User: "default", Verified: true, Denied: []ACLDenial{{Command: "failover", Missing: true, Reason: "ERR Command 'FAILOVER' not found"}}}
	unverified := ACLCheck{Unverified: "ERR unknown subcommand 'DRYRUN'. Try ACL HELP."}
	noperm := ACLCheck{User: "sentinel-user", Unverified: "NOPERM this user has no permissions to run the 'acl|dryrun' command"}
	allRules := "+failover +client|pause +client|unpause +client|kill +config|rewrite +multi +exec"
	runRuleCases(t, RuleCoordinatedFailoverACL, []ruleCase{
		{name: "denied on the master", conf: conf(2, 2, auth...), facts: fleet(3, withACL(goodMaster(), denied), goodReplica(6380)), want: sev(Warning),
			contains: []string{"the user Sentinel logs in to the master 127.0.0.1:6379 of mymaster as (sentinel-user) may not run failover, client|pause, client|unpause, as ACL DRYRUN reports",
				"`SENTINEL FAILOVER mymaster COORDINATED` cannot run while it is the master", "a plain `SENTINEL FAILOVER mymaster` cannot pause its writes"},
			fix: []string{"Run `ACL SETUSER sentinel-user +failover +client|pause +client|unpause` on 127.0.0.1:6379", "ACL SAVE"}},
		{name: "denied on a replica", conf: conf(2, 2, auth...), facts: fleet(3, goodMaster(), withACL(goodReplica(6380), denied)), want: sev(Warning),
			contains: []string{"the replica 127.0.0.1:6380 of mymaster as (sentinel-user)", "once it has been promoted"},
			fix:      []string{"on 127.0.0.1:6380"}},
		{name: "command missing", conf: conf(2, 2), facts: fleet(3, withACL(goodMaster(), missing), goodReplica(6380)), want: sev(Warning),
			contains: []string{"as (default) would send failover, which that server does not have"},
			fix:      []string{"`sentinel rename-command mymaster <command> <renamed>`"}},
		{name: "unverified, auth-user", conf: conf(2, 2, auth...), facts: fleet(3, withACL(goodMaster(), unverified), goodReplica(6380)), want: sev(Info),
			contains: []string{"the master 127.0.0.1:6379 of mymaster as (sentinel-user)", "could not be verified: ACL DRYRUN answered \"ERR unknown subcommand 'DRYRUN'. Try ACL HELP.\""},
			fix:      []string{"`ACL GETUSER sentinel-user` on 127.0.0.1:6379", "`ACL SETUSER sentinel-user " + allRules + "`"}},
		{name: "unverified, auth-user without auth-pass", conf: conf(2, 2, auth[0]), facts: fleet(3, withACL(goodMaster(), unverified), goodReplica(6380)), want: sev(Info),
			contains: []string{"as (default)"}, fix: []string{"`ACL SETUSER default " + allRules + "`"}},
		{name: "unverified, renamed", conf: conf(2, 2, "sentinel rename-command mymaster CLIENT MYCLIENT", "sentinel rename-command mymaster config cfg"),
			facts: fleet(3, goodMaster(), withACL(goodReplica(6380), noperm)), want: sev(Info),
			contains: []string{"the replica 127.0.0.1:6380 of mymaster as (sentinel-user)", "NOPERM"},
			fix:      []string{"+failover +myclient|pause +myclient|unpause +myclient|kill +cfg|rewrite +multi +exec`"}},
		{name: "allowed", conf: conf(2, 2, auth...), facts: fleet(3, goodMaster(), goodReplica(6380))},
		{name: "not asked", conf: conf(2, 2), facts: fleet(3, withACL(goodMaster(), ACLCheck{}), goodReplica(6380))},
		{name: "static", conf: conf(2, 2, auth...)},
	})
}

// TestCoordinatedFailoverACLOnlyFailover checks that a user denied only
// FAILOVER is not said to break the plain failover.
func TestCoordinatedFailoverACLOnlyFailover(t *testing.T) {
	a := ACLCheck{User: "default", Verified: true, Denied: []ACLDenial{{Command: "failover"}}}
	fs := Check(parse(t, conf(2, 2)), fleet(3, withACL(goodMaster(), a), goodReplica(6380)), Options{})
	f := find(fs, RuleCoordinatedFailoverACL)
	if f == nil || f.Severity != Warning || contains(f.Reason, "plain") || !contains(f.Fix, "`ACL SETUSER default +failover` on 127.0.0.1:6379") {
		t.Fatalf("got %+v", f)
	}
	if ExitCode(fs) != 1 {
		t.Errorf("exit code %d", ExitCode(fs))
	}
}

func TestSentinelUser(t *testing.T) {
	for _, tc := range []struct {
		user, pass, want string
	}{
		{"", "", "default"},
		{"", "pw", "default"},
		{"sentinel-user", "", "default"},
		{"sentinel-user", "pw", "sentinel-user"},
	} {
		var m settings.MasterSpec
		m.AuthUser, m.AuthPass = tc.user, tc.pass
		if got := SentinelUser(m); got != tc.want {
			t.Errorf("auth-user %q auth-pass %q: %q, want %q", tc.user, tc.pass, got, tc.want)
		}
	}
}

func TestFailoverCommandNames(t *testing.T) {
	var m settings.MasterSpec
	m.RenameCommands = []settings.Rename{{Command: "client", Renamed: "MYCLIENT"}}
	c := FailoverCommand{Name: "CLIENT", Sub: "PAUSE", Args: []string{"10000", "WRITE"}}
	if got := c.ACLName(m); got != "myclient|pause" {
		t.Errorf("ACL name %q", got)
	}
	if got := c.Argv(m); !reflect.DeepEqual(got, []string{"MYCLIENT", "PAUSE", "10000", "WRITE"}) {
		t.Errorf("argv %q", got)
	}
	if got := (FailoverCommand{Name: "MULTI"}).ACLName(m); got != "multi" {
		t.Errorf("ACL name %q", got)
	}
	if got := failoverACLRules(settings.MasterSpec{}); got != "+failover +client|pause +client|unpause +client|kill +config|rewrite +multi +exec" {
		t.Errorf("rules %q", got)
	}
}
