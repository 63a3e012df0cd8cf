package acl

import (
	"errors"
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// TestRulesOnSurface: a rule may name the commands the command surface
// lists, as the Redis release it stands for takes them. On Surface70
// `+client|setinfo` is refused (Redis 7.0.15: "Unknown command or
// category name in ACL"), on Surface72 it is taken (Redis 7.2), in a
// `user` line, in a selector and at ACL SETUSER; a category that holds
// the command reaches it on both, and the describing lines name it only
// where it is listed.
func TestRulesOnSurface(t *testing.T) {
	lines := [][]string{{"app", "on", "nopass", "+ping", "+client|setinfo", "(+client|setinfo ~k)"}}
	if _, err := Load(Options{Lines: lines}); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("Surface70: %v, want %v", err, ErrUnknownCommand)
	}
	u, err := Load(Options{Lines: lines, Surface: commands.Surface72})
	if err != nil {
		t.Fatalf("Surface72: %v", err)
	}
	want := [][]string{
		{"app", "on", "nopass", "resetchannels", "-@all", "+client|setinfo", "+ping", "(~k resetchannels -@all +client|setinfo)"},
		{"default", "on", "nopass", "~*", "&*", "+@all"},
	}
	if got := u.ConfigLines(); !reflect.DeepEqual(got, want) {
		t.Errorf("Surface72 lines:\n got %q\nwant %q", got, want)
	}
	setinfo := commands.Sentinel.LookupFull("client|setinfo")
	if r, _ := u.Check("app", setinfo, []string{"client", "setinfo", "lib-name", "x"}); r != Allowed {
		t.Errorf("Surface72: app may not run CLIENT SETINFO: %v", r)
	}
	for _, sf := range []commands.Surface{commands.Surface70, commands.Surface72} {
		u, err := Load(Options{Surface: sf})
		if err != nil {
			t.Fatal(err)
		}
		_, err = u.SetUser("bob", []string{"on", "nopass", "+client|setinfo"})
		if ok := err == nil; ok != (sf == commands.Surface72) {
			t.Errorf("%v: SETUSER +client|setinfo: %v", sf, err)
		}
		if _, err := u.SetUser("carol", []string{"on", "nopass", "+@connection", "-client|info"}); err != nil {
			t.Fatalf("%v: %v", sf, err)
		}
		if r, _ := u.Check("carol", setinfo, []string{"client", "setinfo", "lib-name", "x"}); r != Allowed {
			t.Errorf("%v: +@connection does not reach CLIENT SETINFO: %v", sf, r)
		}
	}
}
