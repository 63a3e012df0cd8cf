package acl

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
		// A pattern ending in ')' inside a selector: Redis takes it and
		// then cannot load its own aclfile; go-sentinel refuses it. At the
		// root it is fine.
		{"(&))", "Error in ACL SETUSER modifier '(&))': A rule inside a selector cannot end in ')': an aclfile could not hold it (write the pattern without the closing parenthesis, or with [)])"},
		{"(~x %R~y))", "Error in ACL SETUSER modifier '(~x %R~y))': A rule inside a selector cannot end in ')': an aclfile could not hold it (write the pattern without the closing parenthesis, or with [)])"},
		{"&a) ~b)", "off ~b) resetchannels &a) -@all"},
	}
	for _, tt := range tests {
		u, _ := New("", nil)
		_, err := u.SetUser("t", strings.Fields(tt.rules))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got, _ = u.Describe("t")
		}
		if got != tt.want {
			t.Errorf("SETUSER t %s:\n got %q\nwant %q", tt.rules, got, tt.want)
		}
		if err != nil && u.Exists("t") {
			t.Errorf("SETUSER t %s failed but created the user", tt.rules)
		}
	}
}

func TestACLRuleErrorKeepsUser(t *testing.T) {
	u, _ := New("", nil)
	if _, err := u.SetUser("t", []string{"on", "+ping"}); err != nil {
		t.Fatal(err)
	}
	_, err := u.SetUser("t", []string{"off", "-ping", "+nope"})
	var re *RuleError
	if !errors.As(err, &re) || !errors.Is(err, ErrUnknownCommand) || re.Rule != "+nope" {
		t.Fatalf("err = %v", err)
	}
	if got, _ := u.Describe("t"); got != "on resetchannels -@all +ping" {
		t.Fatalf("a failed SETUSER changed the user: %q", got)
	}
	if _, err := u.SetUser("a b", nil); !errors.Is(err, ErrUsernameSpaces) {
		t.Fatalf("user name with a space: %v", err)
	}
}

func TestLoadUsers(t *testing.T) {
	u, err := New("s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"default", "on", "#" + hashPassword("s3cret"), "~*", "&*", "+@all"}}
	if got := u.ConfigLines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("requirepass: %q", got)
	}
	// A `user default` line resets the default user (sanitize-payload
	// included, as Redis's reset does) and overrides requirepass.
	u, err = New("s3cret", [][]string{{"default", "on", "nopass", "+@all"}, {"bob", "on", ">pw", "(+ping", "~k)", "+sentinel|myid"}})
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
		opts Options
		want error
	}{
		{Options{Lines: [][]string{{"a", "+nope"}}}, ErrUnknownCommand},
		{Options{Lines: [][]string{{"a", "on"}, {"a", "off"}}}, ErrDuplicateUser},
		{Options{Lines: [][]string{{"a b", "on"}}}, ErrUsernameSpaces},
		{Options{Lines: [][]string{{"a", "(+ping"}}}, ErrSyntax},
		{Options{Lines: [][]string{{"a", "on"}}, File: "/nonexistent"}, ErrFileAndUsers},
	} {
		if _, err := Load(tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("Load(%v) = %v, want %v", tt.opts, err, tt.want)
		}
	}
	if _, err := Load(Options{File: filepath.Join(t.TempDir(), "missing.acl")}); err == nil || !strings.Contains(err.Error(), "No such file or directory") {
		t.Errorf("missing aclfile: %v", err)
	}
}

func TestACLFileLoadAndSave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(file, []byte("user default on nopass ~* &* +@all\nuser alice on >pw +@all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := Load(Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Authenticate("alice", "pw") || u.File() != file {
		t.Fatal("aclfile users not loaded")
	}
	if _, err := u.SetUser("bob", []string{"on", ">x", "(+ping ~k)", "-@all", "+sentinel|myid"}); err != nil {
		t.Fatal(err)
	}
	if err := u.SaveFile(); err != nil {
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
	err = u.LoadFile()
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
	if err := u.LoadFile(); err != nil {
		t.Fatal(err)
	}
	if got := u.ConfigLines(); len(got) != 2 || got[0][0] != "default" || !u.DefaultOpen() || u.Authenticate("bob", "x") {
		t.Fatalf("after load: %q", got)
	}
	noFile, _ := New("", nil)
	if noFile.LoadFile() != ErrNoFile || noFile.SaveFile() != ErrNoFile {
		t.Fatal("LOAD/SAVE without an aclfile")
	}
}
