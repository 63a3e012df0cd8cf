package acl

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// FuzzACLRules applies space-separated ACL SETUSER rules to a new user,
// then checks a command line against the user. Nothing may panic; a
// rejected rule set must leave no user behind; an accepted one must be
// persistable: the rules ACL LIST shows, written as `user` lines by the
// config rewrite and parsed again, or written and loaded as an aclfile
// (ACL SAVE, ACL LOAD), describe the same user and allow the same command.
//
// Redis 7.0.15 has one exception, which go-sentinel does not copy: a
// pattern ending in ')' inside a selector (`ACL SETUSER u "(&))"`) is
// saved as `(resetchannels &) -@all)`, which the aclfile loader splits at
// the first word ending in ')' and refuses. go-sentinel refuses such a
// rule at SETUSER (ErrSelectorParen), so every accepted user loads back.
func FuzzACLRules(f *testing.F) {
	for _, s := range [][2]string{
		{"on >pw +@all -@dangerous ~* &*", "PING"},
		{"on nopass -@all +sentinel|get-master-addr-by-name +ping &__sentinel__:*", "SENTINEL get-master-addr-by-name mymaster"},
		{"on nopass resetchannels &ch* -@all +subscribe +publish", "PUBLISH ch1 x"},
		{"(~x +ping) (+@all ~y) clearselectors (&a +psubscribe)", "PSUBSCRIBE a"},
		{"-@all +client|kill +client +acl|whoami -client|id +info|server", "CLIENT ID"},
		{"#f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a !f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a <x >x", "INFO server"},
		{"%RW~x %R~ resetkeys allkeys allchannels allcommands nocommands reset skip-sanitize-payload", "ROLE"},
		{"+ping|x +ping|X -ping +@all -@slow +@SLOW", "PING x"},
		{"( ) (~a \"+ping\") (~a", "AUTH a b"},
		{"on nopass +@all -sentinel|set -sentinel|config|set", "SENTINEL CONFIG SET announce-ip x"},
		{"(&)) (~a %R~b)) &c) ~d)", "PUBLISH c) x"},
	} {
		f.Add(s[0], s[1])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, rules, cmdline string) {
		u, err := New("", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.SetUser("fuzz", strings.Split(rules, " ")); err != nil {
			if u.Exists("fuzz") {
				t.Fatalf("rules %q failed (%v) but created the user", rules, err)
			}
			return
		}
		args := strings.Fields(cmdline)
		spec := catalogue.LookupArgs(args)
		check := func(u *Users) Result {
			if spec == nil {
				return Allowed
			}
			res, _ := u.Check("fuzz", spec, args)
			return res
		}
		want := check(u)

		// Only the fuzzed user is compared: a `user default` line resets
		// the default user, which then shows sanitize-payload, as in Redis.
		lines := userLine(u, "fuzz")
		srv := config.DefaultServer()
		srv.Users = [][]string{lines}
		text := config.RewriteBytes(nil, srv, settings.Persisted{}, config.RewriteOptions{Cwd: "/"})
		cfg, err := config.ParseWith("/fuzz/sentinel.conf", text, nil, config.Options{Cwd: "/"})
		if err != nil {
			t.Fatalf("the config rewritten with the user of %q does not parse: %v\n%s", rules, err, text)
		}
		fromConfig, err := New("", cfg.Server.Users)
		if err != nil {
			t.Fatalf("the user lines of %q do not load back: %v\n%s", rules, err, text)
		}
		if got := userLine(fromConfig, "fuzz"); !reflect.DeepEqual(got, lines) {
			t.Fatalf("user lines of %q read back differently:\n got %q\nwant %q", rules, got, lines)
		}
		if got := check(fromConfig); got != want {
			t.Fatalf("%q after reloading %q: %v, before %v", cmdline, rules, got, want)
		}

		path := filepath.Join(dir, "users.acl")
		u.file = path
		if err := u.SaveFile(); err != nil {
			t.Fatal(err)
		}
		fromFile, err := Load(Options{File: path})
		if err != nil {
			b, _ := os.ReadFile(path)
			t.Fatalf("ACL SAVE of %q does not ACL LOAD: %v\n%s", rules, err, b)
		}
		if got := userLine(fromFile, "fuzz"); !reflect.DeepEqual(got, lines) {
			t.Fatalf("aclfile of %q read back differently:\n got %q\nwant %q", rules, got, lines)
		}
	})
}

// userLine returns name's `user` line arguments from ConfigLines.
func userLine(u *Users, name string) []string {
	for _, l := range u.ConfigLines() {
		if l[0] == name {
			return l
		}
	}
	return nil
}
