package acl

import (
	"reflect"
	"testing"
	"time"
)

// TestCatalogueFitsTheCommandBitmap guards cmdBits: one bit per command.
func TestCatalogueFitsTheCommandBitmap(t *testing.T) {
	if n, max := len(catalogue.All()), 64*len(cmdBits{}); n > max {
		t.Fatalf("%d commands, the bitmap holds %d", n, max)
	}
}

func TestCheck(t *testing.T) {
	u, _ := New("", [][]string{
		{"limited", "on", "nopass", "+@all", "-sentinel|masters", "resetchannels", "&news.*"},
		{"firstarg", "on", "nopass", "-@all", "+client|id", "+info|server"},
	})
	sentinel := catalogue.Top("sentinel")
	for _, tt := range []struct {
		user string
		args []string
		res  Result
		pos  int
	}{
		{"limited", []string{"sentinel", "masters"}, DeniedCommand, 0},
		{"limited", []string{"sentinel", "primaries"}, DeniedCommand, 0},
		{"limited", []string{"sentinel", "myid"}, Allowed, 0},
		{"limited", []string{"publish", "news.1", "x"}, Allowed, 0},
		{"limited", []string{"subscribe", "news.1", "other"}, DeniedChannel, 2},
		{"limited", []string{"psubscribe", "news.*"}, Allowed, 0},
		{"limited", []string{"psubscribe", "news.1*"}, DeniedChannel, 1},
		{"firstarg", []string{"info", "server"}, Allowed, 0},
		{"firstarg", []string{"info", "clients"}, DeniedCommand, 0},
		{"firstarg", []string{"auth", "x"}, Allowed, 0}, // no-auth commands always run
		{"nobody", []string{"ping"}, DeniedCommand, 0},
	} {
		spec := catalogue.Top(tt.args[0])
		if spec == sentinel {
			spec = sentinel.Sub(tt.args[1])
		}
		res, pos := u.Check(tt.user, spec, tt.args)
		if res != tt.res || pos != tt.pos {
			t.Errorf("%s %v = %v %d, want %v %d", tt.user, tt.args, res, pos, tt.res, tt.pos)
		}
	}
}

func TestInfo(t *testing.T) {
	u, _ := New("", [][]string{{"bob", "on", "#" + hashPassword("pw"), "~k", "&c", "+ping", "(~x %R~y +info)"}})
	got, ok := u.Info("bob")
	want := UserInfo{
		Flags:     []string{"on"},
		Passwords: []string{hashPassword("pw")},
		Selectors: []SelectorInfo{
			{Commands: "-@all +ping", Keys: "~k", Channels: "&c"},
			{Commands: "-@all +info", Keys: "~x %R~y", Channels: ""},
		},
	}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("Info(bob) = %+v, want %+v", got, want)
	}
	if _, ok := u.Info("nobody"); ok {
		t.Fatal("Info of an unknown user")
	}
}

func TestChannelLoss(t *testing.T) {
	u, _ := New("", [][]string{{"u", "on", "nopass", "+@all", "&foo*", "&bar"}})
	if loss, err := u.SetUser("u", []string{"&baz"}); err != nil || loss != nil {
		t.Fatalf("adding a channel revoked something: %v %v", loss, err)
	}
	loss, err := u.SetUser("u", []string{"resetchannels", "&foo*"})
	if err != nil || loss == nil {
		t.Fatalf("resetchannels revoked nothing: %v", err)
	}
	if !loss.Allows("foo1", false) || loss.Allows("bar", false) || !loss.Allows("foo*", true) || loss.Allows("f*", true) {
		t.Fatal("ChannelLoss.Allows")
	}
	if loss, _ := u.SetUser("new", []string{"resetchannels"}); loss != nil {
		t.Fatal("a new user lost channels")
	}
}

func TestLogDenial(t *testing.T) {
	u, _ := Load(Options{LogMaxLen: 2})
	t0 := time.Unix(1700000000, 0)
	u.LogDenial(DeniedCommand, "ping", "a", "id=1", t0)
	u.LogDenial(DeniedChannel, "ch", "a", "id=1", t0)
	u.LogDenial(DeniedCommand, "ping", "a", "id=2", t0.Add(time.Second))
	got := u.LogEntries(10)
	if len(got) != 2 || got[0].Object != "ping" || got[0].Count != 2 || got[0].ClientInfo != "id=2" || got[1].Reason.String() != "channel" {
		t.Fatalf("log after a repeat: %+v", got)
	}
	u.LogDenial(DeniedAuth, "AUTH", "b", "", t0.Add(2*time.Minute))
	u.LogDenial(DeniedCommand, "ping", "a", "", t0.Add(3*time.Minute))
	if got := u.LogEntries(10); len(got) != 2 || got[0].Count != 1 || got[1].Reason != DeniedAuth {
		t.Fatalf("log is capped and a minute apart is a new entry: %+v", got)
	}
	u.ResetLog()
	if len(u.LogEntries(10)) != 0 {
		t.Fatal("ResetLog")
	}
}
