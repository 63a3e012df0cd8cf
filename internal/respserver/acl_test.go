package respserver

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/resptest"
)

func TestACLCommandsAgainstAnACLFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.acl")
	os.WriteFile(file, []byte("user default on nopass ~* &* +@all\nuser alice on >pw +@all\n"), 0o600)
	users, err := acl.Load(acl.Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	_, _, addr := startServer(t, func(o *Options) { o.Users = users })
	admin := dial(t, addr)
	alice := dial(t, addr)
	if got := alice.Do("AUTH", "alice", "pw"); got != "+OK\r\n" {
		t.Fatalf("auth: %q", got)
	}
	if got := admin.Do("ACL", "SETUSER", "bob", "on", ">x"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if got := admin.Do("ACL", "SAVE"); got != "+OK\r\n" {
		t.Fatalf("ACL SAVE: %q", got)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), "user bob on #") {
		t.Fatalf("saved: %s", data)
	}
	os.WriteFile(file, []byte("user alice on >pw +@all\n"), 0o600)
	if got := admin.Do("ACL", "LOAD"); got != "+OK\r\n" {
		t.Fatalf("ACL LOAD: %q", got)
	}
	if !alice.Closed() {
		t.Fatal("ACL LOAD must disconnect clients of other users than default")
	}
	if got := admin.Do("ACL", "USERS"); got != "*2\r\n$5\r\nalice\r\n$7\r\ndefault\r\n" {
		t.Fatalf("ACL USERS: %q", got)
	}
	os.WriteFile(file, []byte("nope\n"), 0o600)
	want := "-ERR " + file + ":1 should start with user keyword followed by the username. WARNING: ACL errors detected, no change to the previously active ACL rules was performed\r\n"
	if got := admin.Do("ACL", "LOAD"); got != want {
		t.Fatalf("ACL LOAD of a bad file:\n got %q\nwant %q", got, want)
	}
}

// TestACLGenpass checks ACL GENPASS's sizes: 4 bits per hex digit.
func TestACLGenpass(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	for bits, n := range map[string]int{"": 64, "5": 2, "4096": 1024} {
		args := []string{"ACL", "GENPASS"}
		if bits != "" {
			args = append(args, bits)
		}
		got := c.Do(args...)
		if !strings.HasPrefix(got, "$") || len(strings.Split(got, "\r\n")[1]) != n {
			t.Errorf("GENPASS %s: %q", bits, got)
		}
	}
}

// fixedClock returns a clock that only moves when told.
func fixedClock(start time.Time) (now func() time.Time, advance func(time.Duration)) {
	var mu sync.Mutex
	cur := start
	now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return cur
	}
	advance = func(d time.Duration) {
		mu.Lock()
		cur = cur.Add(d)
		mu.Unlock()
	}
	return now, advance
}

func TestACLPermissions(t *testing.T) {
	now, advance := fixedClock(time.Unix(1700000000, 0))
	_, _, addr := startServer(t, func(o *Options) { o.Now = now })
	admin := dial(t, addr)
	for _, rules := range [][]string{
		{"limited", "on", ">pw", "+@all", "-sentinel|masters"},
		{"pinger", "on", ">pw", "+ping"},
		{"disabled", "off", ">pw", "+@all"},
		{"chans", "on", "nopass", "+@all", "&news.*"},
	} {
		if got := admin.Do(append([]string{"ACL", "SETUSER"}, rules...)...); got != "+OK\r\n" {
			t.Fatalf("SETUSER %v: %q", rules, got)
		}
	}
	c := dial(t, addr)
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"AUTH", "disabled", "pw"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{[]string{"AUTH", "limited", "nope"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{[]string{"AUTH", "limited", "pw"}, "+OK\r\n"},
		{[]string{"ACL", "WHOAMI"}, "$7\r\nlimited\r\n"},
		{[]string{"SENTINEL", "MASTERS"}, "-NOPERM this user has no permissions to run the 'sentinel|masters' command\r\n"},
		{[]string{"SENTINEL", "MYID"}, "$40\r\n" + testID + "\r\n"},
		{[]string{"SENTINEL", "PRIMARIES"}, "-NOPERM this user has no permissions to run the 'sentinel|primaries' command\r\n"},
		// Errors of existence and arity come before ACL.
		{[]string{"SENTINEL", "MASTERS", "x"}, "-ERR wrong number of arguments for 'sentinel|masters' command\r\n"},
		{[]string{"PUBLISH", "__sentinel__:hello", "x"}, "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n"},
		{[]string{"SUBSCRIBE", "a"}, "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n"},
		{[]string{"UNSUBSCRIBE", "a"}, "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n"},
		{[]string{"HELLO", "3", "AUTH", "pinger", "pw"}, "%6\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n"},
		{[]string{"PING"}, "+PONG\r\n"},
		{[]string{"CLIENT", "ID"}, "-NOPERM this user has no permissions to run the 'client|id' command\r\n"},
		{[]string{"ACL", "WHOAMI"}, "-NOPERM this user has no permissions to run the 'acl|whoami' command\r\n"},
		{[]string{"AUTH", "chans", "x"}, "+OK\r\n"},
		{[]string{"SUBSCRIBE", "news.1", "other"}, "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n"},
		{[]string{"PSUBSCRIBE", "news.*"}, ">3\r\n$10\r\npsubscribe\r\n$6\r\nnews.*\r\n:1\r\n"},
	} {
		got := c.Do(step.args...)
		if step.args[0] == "HELLO" {
			got = got[:strings.Index(got, "$2\r\nid\r\n")+8]
		}
		if got != step.want {
			t.Errorf("%v:\n got %q\nwant %q", step.args, got, step.want)
		}
	}
	advance(1500 * time.Millisecond)
	log := admin.Do("ACL", "LOG")
	for _, want := range []string{
		"*9\r\n*14\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$7\r\nchannel\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$5\r\nother\r\n$8\r\nusername\r\n$5\r\nchans\r\n$11\r\nage-seconds\r\n$3\r\n1.5\r\n$11\r\nclient-info\r\n",
		"$6\r\nobject\r\n$1\r\na\r\n$8\r\nusername\r\n$7\r\nlimited\r\n",
		"$6\r\nobject\r\n$18\r\n__sentinel__:hello\r\n",
		"$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$16\r\nsentinel|masters\r\n$8\r\nusername\r\n$7\r\nlimited\r\n",
		"cmd=sentinel|masters user=limited redir=-1 resp=2 lib-name= lib-ver=\r\n",
		"$6\r\nreason\r\n$4\r\nauth\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$4\r\nAUTH\r\n$8\r\nusername\r\n$8\r\ndisabled\r\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("ACL LOG lacks %q:\n%s", want, log)
		}
	}
	// The same denial within a minute bumps the count of its entry.
	c.Do("SUBSCRIBE", "news.1", "other")
	if got := admin.Do("ACL", "LOG", "1"); !strings.HasPrefix(got, "*1\r\n*14\r\n$5\r\ncount\r\n:2\r\n") || !strings.Contains(got, "$5\r\nother\r\n") {
		t.Errorf("ACL LOG 1 after a repeat: %q", got)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ACL", "DRYRUN", "limited", "sentinel", "masters"}, "$66\r\nThis user has no permissions to run the 'sentinel|masters' command\r\n"},
		{[]string{"ACL", "DRYRUN", "limited", "sentinel", "myid"}, "+OK\r\n"},
		{[]string{"ACL", "DRYRUN", "limited", "publish", "x", "y"}, "$54\r\nThis user has no permissions to access the 'x' channel\r\n"},
		{[]string{"ACL", "DRYRUN", "pinger", "ping"}, "+OK\r\n"},
		{[]string{"ACL", "DRYRUN", "pinger", "info"}, "$54\r\nThis user has no permissions to run the 'info' command\r\n"},
	} {
		if got := admin.Do(tt.args...); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}

// TestACLUpstreamSentinelFlow replays the ACL steps of the upstream
// sentinel tests 09-acl-support and 03-runtime-reconf.
func TestACLUpstreamSentinelFlow(t *testing.T) {
	_, _, addr := startServer(t, nil)
	a := dial(t, addr)
	other := dial(t, addr)
	other.Do("PING") // served, so registered before the kill below
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"ACL", "SETUSER", "testuser", ">secret", "+@all", "on"}, "+OK\r\n"},
		{[]string{"ACL", "SETUSER", "default", "off"}, "+OK\r\n"},
		{[]string{"PING"}, "+PONG\r\n"}, // already authenticated connections go on
	} {
		if got := a.Do(step.args...); got != step.want {
			t.Fatalf("%v: %q", step.args, got)
		}
	}
	if got := a.Do("CLIENT", "KILL", "USER", "default", "SKIPME", "no"); got != ":2\r\n" {
		t.Fatalf("CLIENT KILL USER default SKIPME no: %q", got)
	}
	if !a.Closed() || !other.Closed() {
		t.Fatal("the default user's connections survived")
	}
	b := dial(t, addr)
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "-NOAUTH Authentication required.\r\n"},
		{[]string{"AUTH", "testuser", "secret"}, "+OK\r\n"},
		{[]string{"ACL", "WHOAMI"}, "$8\r\ntestuser\r\n"},
		{[]string{"ACL", "SETUSER", "default", "on"}, "+OK\r\n"},
		{[]string{"ACL", "DELUSER", "testuser"}, ":1\r\n"},
	} {
		if got := b.Do(step.args...); got != step.want {
			t.Fatalf("%v: %q", step.args, got)
		}
	}
	if !b.Closed() {
		t.Fatal("deleting the connection's own user must close it after the reply")
	}
	c := dial(t, addr)
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("default back on: %q", got)
	}
}

func TestACLSetUserKillsRevokedSubscribers(t *testing.T) {
	_, _, addr := startServer(t, nil)
	admin := dial(t, addr)
	admin.Do("ACL", "SETUSER", "u", "on", "nopass", "+@all", "&foo*", "&bar")
	keep, drop, idle := dial(t, addr), dial(t, addr), dial(t, addr)
	for _, c := range []*struct {
		conn *resptest.Conn
		sub  []string
	}{{keep, []string{"SUBSCRIBE", "foo1"}}, {drop, []string{"SUBSCRIBE", "bar"}}, {idle, nil}} {
		c.conn.Do("AUTH", "u", "x")
		if c.sub != nil {
			c.conn.Do(c.sub...)
		}
	}
	if got := admin.Do("ACL", "SETUSER", "u", "resetchannels", "&foo*"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if !drop.Closed() {
		t.Fatal("subscriber of a revoked channel survived")
	}
	if got := keep.Do("PING"); got != "*2\r\n$4\r\npong\r\n$0\r\n\r\n" {
		t.Fatalf("subscriber of an allowed channel: %q", got)
	}
	if got := idle.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("non-subscriber: %q", got)
	}
}
