package commands

import (
	"errors"
	"testing"
)

func TestParseSurface(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Surface
		ok   bool
	}{
		{"7.0", Surface70, true},
		{"7.2", Surface72, true},
		{"7.4", Surface70, false},
		{"7", Surface70, false},
		{"", Surface70, false},
		{" 7.2", Surface70, false},
	} {
		got, err := ParseSurface(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSurface(%q) = %v, %v", tt.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrBadSurface) {
			t.Errorf("ParseSurface(%q): %v does not wrap ErrBadSurface", tt.in, err)
		}
		if tt.ok && got.String() != tt.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

// TestCatalogueOnEachSurface pins what each surface lists: Redis 7.0.15's
// 72 names, and those and CLIENT SETINFO (73) on 7.2; SENTINEL EXPLAIN on
// neither. SENTINEL CONFIG's arity is -3, then -4.
func TestCatalogueOnEachSurface(t *testing.T) {
	for _, tt := range []struct {
		sf          Surface
		names       int
		setinfo     bool
		configArity int
	}{
		{Surface70, 72, false, -3},
		{Surface72, 73, true, -4},
	} {
		if n := len(Sentinel.ListedOn(tt.sf)); n != tt.names {
			t.Errorf("%v lists %d names, want %d", tt.sf, n, tt.names)
		}
		if got := Sentinel.LookupListedOn("client|setinfo", tt.sf) != nil; got != tt.setinfo {
			t.Errorf("%v lists client|setinfo: %v", tt.sf, got)
		}
		if n := len(Sentinel.LookupFull("client").ListedSubsOn(tt.sf)); n != 16+boolInt(tt.setinfo) {
			t.Errorf("%v: CLIENT has %d listed subcommands", tt.sf, n)
		}
		if Sentinel.LookupListedOn("sentinel|explain", tt.sf) != nil {
			t.Errorf("%v lists sentinel|explain", tt.sf)
		}
		cfg := Sentinel.LookupFull("sentinel|config")
		if a := cfg.ArityOn(tt.sf); a != tt.configArity {
			t.Errorf("%v: sentinel|config arity %d", tt.sf, a)
		}
		if ok := cfg.ArityOKOn(3, tt.sf); ok != (tt.configArity == -3) {
			t.Errorf("%v: 3 arguments fit sentinel|config: %v", tt.sf, ok)
		}
	}
	// The Surface70 views the ACL rules use are unchanged.
	if len(Sentinel.Listed()) != 72 || Sentinel.LookupListed("client|setinfo") != nil {
		t.Error("Listed/LookupListed must be Surface70's")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
