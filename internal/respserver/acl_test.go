package respserver

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/resptest"
)

// TestACLRules applies ACL SETUSER rules to a new user and compares ACL
// LIST's description (after `user <name> `) or the error with what
// redis-sentinel 7.0.15 answered. Where Redis lists single commands in its
// hash-table order, the expected text uses the catalogue's order instead.
func TestACLRules(t *testing.T) {
	const (
		hashP1 = "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a" // sha256("p1")
		hashP2 = "3946ca64ff78d93ca61090a437cbb6b3d2ca0d488f5f9ccf3059608368b27693" // sha256("p2")
		hashB  = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d" // sha256("b")
	)
	tests := []struct {
		rules string
		want  string // description, or the error text
	}{
		{">p1 +@all on", "on #" + hashP1 + " resetchannels +@all"},
		{"+@all -sentinel|masters -ping", "off resetchannels +@all -ping -sentinel|masters"},
		{"+ping", "off resetchannels -@all +ping"},
		{"+@all -@admin +sentinel|myid ~x %R~y &ch resetchannels &a &b nopass", "off nopass ~x %R~y resetchannels &a &b +@all -@admin +sentinel|myid"},
		{"reset", "off sanitize-payload resetchannels -@all"},
		{"on nopass allkeys allchannels allcommands", "on nopass ~* &* +@all"},
		{"ON >x OFF", "off #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 resetchannels -@all"},
		{"+@all -@dangerous +@pubsub -publish", "off resetchannels +@all -@dangerous -publish"},
		{"-@all +@connection +client|kill -client|id", "off resetchannels -@all +@connection -client|id"},
		{"-@all +@admin", "off resetchannels -@all +@admin"},
		{"-@all +@slow", "off resetchannels -@all +@slow"},
		{"+@all -@slow", "off resetchannels +@all -@slow"},
		{"+@admin -sentinel", "off resetchannels -@all +acl|deluser +acl|dryrun +acl|getuser +acl|list +acl|load +acl|log +acl|save +acl|setuser +acl|users +client|kill +client|list +client|no-evict +client|pause +client|unblock +client|unpause +role +shutdown"},
		{"+@all -sentinel +sentinel|help skip-sanitize-payload", "off skip-sanitize-payload resetchannels +@all -@admin +acl|deluser +acl|dryrun +acl|getuser +acl|list +acl|load +acl|log +acl|save +acl|setuser +acl|users +client|kill +client|list +client|no-evict +client|pause +client|unblock +client|unpause +role +sentinel|help +shutdown"},
		{"-@all +client +acl|whoami -client|kill", "off resetchannels -@all +@connection +acl|whoami -auth +client -client|kill -command -hello -ping"},
		{"-@all +info|server +info|clients +info", "off resetchannels -@all +info"},
		{"-@all +info|server -info", "off resetchannels -@all"},
		{"+ping|x", "off resetchannels -@all +ping|x"},
		{"+@all -ping +ping|x +ping|y +ping|X", "off resetchannels +@all -ping +ping|x +ping|y"},
		{"resetkeys %RW~x %R~x %W~y ~a%", "off ~x %W~y ~a% resetchannels -@all"},
		{"&a &b &a ~a %R~a %W~a ~b", "off ~a ~b resetchannels &a &b -@all"},
		{"%R", "off %R~ resetchannels -@all"},
		{">a >b >a <a", "off #" + hashB + " resetchannels -@all"},
		{"#" + hashP1 + " >p2 <p1", "off #" + hashP2 + " resetchannels -@all"},
		{"#" + hashP1 + " !" + hashP1, "off resetchannels -@all"},
		{"(~x +ping) (+@all ~y)", "off resetchannels -@all (~x resetchannels -@all +ping) (~y resetchannels +@all)"},
		{"(~x +ping) clearselectors", "off resetchannels -@all"},
		{"(~x +ping -@all +sentinel|myid)", "off resetchannels -@all (~x resetchannels -@all +sentinel|myid)"},
		{"( )", "off resetchannels -@all (resetchannels -@all)"},
		{`(~a "+ping")`, "off resetchannels -@all (~a resetchannels -@all +ping)"},
		{"(~a", "Unmatched parenthesis in acl selector starting at '(~a'."},
		// Malformed rules.
		{"+get", "Error in ACL SETUSER modifier '+get': Unknown command or category name in ACL"},
		{"+sentinel|foo", "Error in ACL SETUSER modifier '+sentinel|foo': Unknown command or category name in ACL"},
		{"+sentinel|primary", "Error in ACL SETUSER modifier '+sentinel|primary': Unknown command or category name in ACL"},
		{"-@foo", "Error in ACL SETUSER modifier '-@foo': Unknown command or category name in ACL"},
		{"+acl|setuser|x", "Error in ACL SETUSER modifier '+acl|setuser|x': Allowing first-arg of a subcommand is not supported"},
		{"+acl|", "Error in ACL SETUSER modifier '+acl|': Syntax error"},
		{"-ping|x", "Error in ACL SETUSER modifier '-ping|x': Unknown command or category name in ACL"},
		{"~* ~x", "Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{"&* &x", "Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"},
		{"resetkeys %RW~x %Z~a", "Error in ACL SETUSER modifier '%Z~a': Syntax error"},
		{"%~x", "Error in ACL SETUSER modifier '%~x': Syntax error"},
		{"#abc", "Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
		{"<zzz", "Error in ACL SETUSER modifier '<zzz': The password you are trying to remove from the user does not exist"},
		{"foo", "Error in ACL SETUSER modifier 'foo': Syntax error"},
		{"(~x +ping +foo)", "Error in ACL SETUSER modifier '(~x +ping +foo)': Unknown command or category name in ACL"},
	}
	for _, tt := range tests {
		u, _ := NewUsers("", nil)
		_, after, err := u.SetUser("t", strings.Fields(tt.rules))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = after.describe()
		}
		if got != tt.want {
			t.Errorf("SETUSER t %s:\n got %q\nwant %q", tt.rules, got, tt.want)
		}
		if err != nil && u.users["t"] != nil {
			t.Errorf("SETUSER t %s failed but created the user", tt.rules)
		}
	}
}

func TestACLRuleErrorKeepsUser(t *testing.T) {
	u, _ := NewUsers("", nil)
	if _, _, err := u.SetUser("t", []string{"on", "+ping"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := u.SetUser("t", []string{"off", "-ping", "+nope"})
	var re *ACLRuleError
	if !errors.As(err, &re) || !errors.Is(err, ErrACLUnknownCommand) || re.Rule != "+nope" {
		t.Fatalf("err = %v", err)
	}
	if got := u.users["t"].describe(); got != "on resetchannels -@all +ping" {
		t.Fatalf("a failed SETUSER changed the user: %q", got)
	}
	if _, _, err := u.SetUser("a b", nil); !errors.Is(err, ErrACLUsernameSpaces) {
		t.Fatalf("user name with a space: %v", err)
	}
}

func TestLoadUsers(t *testing.T) {
	u, err := NewUsers("s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"default", "on", "#" + hashPassword("s3cret"), "~*", "&*", "+@all"}}
	if got := u.ConfigLines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("requirepass: %q", got)
	}
	// A `user default` line resets the default user (sanitize-payload
	// included, as Redis's reset does) and overrides requirepass.
	u, err = NewUsers("s3cret", [][]string{{"default", "on", "nopass", "+@all"}, {"bob", "on", ">pw", "(+ping", "~k)", "+sentinel|myid"}})
	if err != nil {
		t.Fatal(err)
	}
	want = [][]string{
		{"bob", "on", "#" + hashPassword("pw"), "resetchannels", "-@all", "+sentinel|myid", "(~k resetchannels -@all +ping)"},
		{"default", "on", "nopass", "sanitize-payload", "resetchannels", "+@all"},
	}
	if got := u.ConfigLines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines:\n got %q\nwant %q", got, want)
	}
	if !u.DefaultOpen() || !u.Authenticate("bob", "pw") || u.Authenticate("bob", "x") {
		t.Fatal("authentication after loading is wrong")
	}
	for _, tt := range []struct {
		opts UsersOptions
		want error
	}{
		{UsersOptions{Lines: [][]string{{"a", "+nope"}}}, ErrACLUnknownCommand},
		{UsersOptions{Lines: [][]string{{"a", "on"}, {"a", "off"}}}, ErrACLDuplicateUser},
		{UsersOptions{Lines: [][]string{{"a b", "on"}}}, ErrACLUsernameSpaces},
		{UsersOptions{Lines: [][]string{{"a", "(+ping"}}}, ErrACLSyntax},
		{UsersOptions{Lines: [][]string{{"a", "on"}}, ACLFile: "/nonexistent"}, ErrACLFileAndUsers},
	} {
		if _, err := LoadUsers(tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("LoadUsers(%v) = %v, want %v", tt.opts, err, tt.want)
		}
	}
	if _, err := LoadUsers(UsersOptions{ACLFile: filepath.Join(t.TempDir(), "missing.acl")}); err == nil || !strings.Contains(err.Error(), "No such file or directory") {
		t.Errorf("missing aclfile: %v", err)
	}
}

func TestACLFileLoadAndSave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(file, []byte("user default on nopass ~* &* +@all\nuser alice on >pw +@all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := LoadUsers(UsersOptions{ACLFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Authenticate("alice", "pw") || u.ACLFile() != file {
		t.Fatal("aclfile users not loaded")
	}
	if _, _, err := u.SetUser("bob", []string{"on", ">x", "(+ping ~k)", "-@all", "+sentinel|myid"}); err != nil {
		t.Fatal(err)
	}
	if err := u.SaveACLFile(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	want := "user alice on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 resetchannels +@all\n" +
		"user bob on #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 resetchannels -@all +sentinel|myid (~k resetchannels -@all +ping)\n" +
		"user default on nopass ~* &* +@all\n"
	if string(got) != want {
		t.Fatalf("saved file:\n%s\nwant:\n%s", got, want)
	}
	// A broken file changes nothing and lists every problem.
	bad := "user alice on +foo\nfoo bar\nuser alice off\nuser bo\\x b ~a ~* ~b\nuser carl (~x\n"
	os.WriteFile(file, []byte(bad), 0o600)
	err = u.LoadACLFile()
	wantErr := file + ":1: Error in applying operation '+foo': Unknown command or category name in ACL. " +
		file + ":2 should start with user keyword followed by the username. " +
		"WARNING: Duplicate user 'alice' found on line 3. " +
		file + ":4: Syntax error. " +
		file + ":5: Unmatched parenthesis in selector definition." +
		"WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("bad file:\n got %v\nwant %s", err, wantErr)
	}
	if !u.Authenticate("bob", "x") {
		t.Fatal("failed load changed the users")
	}
	// Without default, the file gets a fresh one; with it, it is replaced.
	os.WriteFile(file, []byte("user zed on nopass +ping\n"), 0o600)
	if err := u.LoadACLFile(); err != nil {
		t.Fatal(err)
	}
	if got := u.ConfigLines(); len(got) != 2 || got[0][0] != "default" || !u.DefaultOpen() || u.Authenticate("bob", "x") {
		t.Fatalf("after load: %q", got)
	}
	noFile, _ := NewUsers("", nil)
	if noFile.LoadACLFile() != ErrNoACLFile || noFile.SaveACLFile() != ErrNoACLFile {
		t.Fatal("LOAD/SAVE without an aclfile")
	}
}

func TestACLCommandsAgainstAnACLFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.acl")
	os.WriteFile(file, []byte("user default on nopass ~* &* +@all\nuser alice on >pw +@all\n"), 0o600)
	users, err := LoadUsers(UsersOptions{ACLFile: file})
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
		"cmd=sentinel|masters user=limited redir=-1 resp=2\r\n",
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
