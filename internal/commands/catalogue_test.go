package commands

import (
	"strings"
	"testing"
)

func TestSentinelCatalogue(t *testing.T) {
	if n := len(Sentinel.All()); n != 75 {
		t.Errorf("catalogue has %d names, want 75", n)
	}
	if n := len(Sentinel.Tops()); n != 15 {
		t.Errorf("catalogue has %d commands, want 15", n)
	}
	prev := ""
	for i, s := range Sentinel.All() {
		if s.ID != i {
			t.Errorf("%s has ID %d at index %d", s.Name, s.ID, i)
		}
		top, sub, _ := strings.Cut(s.Name, "|")
		key := top + " " + sub
		if key <= prev {
			t.Errorf("%s is out of order after %q", s.Name, prev)
		}
		prev = key
		if s.Flags&FlagSentinel == 0 {
			t.Errorf("%s lacks the SENTINEL flag", s.Name)
		}
		if s.Arity == 0 || s.Group == "" || s.Since == "" || s.Summary == "" {
			t.Errorf("%s: incomplete entry %+v", s.Name, s)
		}
		if (s.Parent != nil) != (sub != "") || (s.Parent != nil && s.Parent.Name != top) {
			t.Errorf("%s: parent %v", s.Name, s.Parent)
		}
		if s.Categories&(CatFast|CatSlow) == 0 || s.Categories&CatFast != 0 && s.Categories&CatSlow != 0 {
			t.Errorf("%s must be exactly one of fast and slow: %v", s.Name, s.Categories.Names())
		}
	}
	for _, s := range Sentinel.Tops() {
		if s.Parent != nil {
			t.Errorf("%s is a subcommand among the tops", s.Name)
		}
	}
}

func TestImplicitCategories(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string
	}{
		{"ping", "fast connection"},
		{"sentinel|masters", "admin slow dangerous"},
		{"sentinel|help", "slow"},
		{"publish", "pubsub fast"},
		{"info", "slow dangerous"},
		{"role", "admin fast dangerous"},
	} {
		s := Sentinel.LookupFull(tt.name)
		if got := strings.Join(s.Categories.Names(), " "); got != tt.want {
			t.Errorf("%s categories = %q, want %q", tt.name, got, tt.want)
		}
	}
	if CategoryByName("PubSub") != CatPubsub || CategoryByName("nope") != 0 {
		t.Error("CategoryByName")
	}
	if got := strings.Join((FlagAdmin | FlagNoAuth | FlagSentinel | FlagWrite).Names(), " "); got != "write admin no_auth" {
		t.Errorf("flag names %q", got)
	}
}

func TestLookup(t *testing.T) {
	full := []struct{ in, want string }{
		{"ping", "ping"},
		{"PING", "ping"},
		{"sentinel|MASTERS", "sentinel|masters"},
		{"sentinel", "sentinel"},
		{"ping|x", ""},
		{"sentinel|", ""},
		{"sentinel|primary", ""},
		{"sentinel|masters|x", ""},
		{"|masters", ""},
		{"", ""},
		{"get", ""},
	}
	for _, tt := range full {
		got := ""
		if s := Sentinel.LookupFull(tt.in); s != nil {
			got = s.Name
		}
		if got != tt.want {
			t.Errorf("LookupFull(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	args := []struct {
		in   []string
		want string
	}{
		{[]string{"Sentinel", "Masters"}, "sentinel|masters"},
		{[]string{"sentinel"}, "sentinel"},
		{[]string{"sentinel", "nope"}, ""},
		{[]string{"sentinel", "primaries"}, ""},
		{[]string{"ping", "a", "b"}, "ping"},
		{[]string{"sentinel|masters"}, ""},
		{nil, ""},
	}
	for _, tt := range args {
		got := ""
		if s := Sentinel.LookupArgs(tt.in); s != nil {
			got = s.Name
		}
		if got != tt.want {
			t.Errorf("LookupArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if Sentinel.Top("sentinel|masters") != nil || Sentinel.Top("Ping") == nil {
		t.Error("Top must find only top-level names")
	}
}

func TestAliases(t *testing.T) {
	sentinel := Sentinel.Top("sentinel")
	for alias, of := range valkeyAliases {
		_, sub, _ := strings.Cut(alias, "|")
		s := sentinel.Sub(strings.ToUpper(sub))
		if s == nil || s.Name != alias || s.AliasOf == nil || s.AliasOf.Name != of || s.Canonical() != s.AliasOf {
			t.Fatalf("alias %s: %+v", alias, s)
		}
		if s.ID != s.AliasOf.ID || s.Arity != s.AliasOf.Arity || s.Flags != s.AliasOf.Flags || s.Parent != sentinel {
			t.Errorf("alias %s differs from %s", alias, of)
		}
		for _, visible := range Sentinel.All() {
			if visible.Name == alias {
				t.Errorf("alias %s is visible", alias)
			}
		}
	}
	if m := sentinel.Sub("masters"); m.Canonical() != m {
		t.Error("a command is its own canonical form")
	}
}

func TestArityOK(t *testing.T) {
	for _, tt := range []struct {
		arity, n int
		ok       bool
	}{{2, 2, true}, {2, 3, false}, {2, 1, false}, {-2, 1, false}, {-2, 2, true}, {-2, 9, true}} {
		if got := (&Spec{Arity: tt.arity}).ArityOK(tt.n); got != tt.ok {
			t.Errorf("arity %d with %d args: %v", tt.arity, tt.n, got)
		}
	}
}

func TestNewRejectsBadData(t *testing.T) {
	for name, tt := range map[string]struct {
		specs   []Spec
		aliases map[string]string
	}{
		"duplicate":       {[]Spec{{Name: "a"}, {Name: "a"}}, nil},
		"upper case":      {[]Spec{{Name: "A"}}, nil},
		"orphan sub":      {[]Spec{{Name: "a|b"}}, nil},
		"alias of none":   {[]Spec{{Name: "a"}, {Name: "a|b"}}, map[string]string{"a|c": "a|x"}},
		"alias elsewhere": {[]Spec{{Name: "a"}, {Name: "a|b"}, {Name: "c"}}, map[string]string{"c|b": "a|b"}},
		"alias shadows":   {[]Spec{{Name: "a"}, {Name: "a|b"}, {Name: "a|c"}}, map[string]string{"a|c": "a|b"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New did not panic", name)
				}
			}()
			New(tt.specs, tt.aliases)
		}()
	}
}
