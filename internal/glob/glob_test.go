package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		p, s   string
		nocase bool
		want   bool
	}{
		{"*", "", false, true},
		{"*", "anything", false, true},
		{"+sdown", "+sdown", false, true},
		{"+s*", "+sdown", false, true},
		{"+s*", "-sdown", false, false},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-c]llo", "hbllo", false, true},
		{"h[c-a]llo", "hbllo", false, true},
		{"h[a-c]llo", "hdllo", false, false},
		{`h\*llo`, "h*llo", false, true},
		{`h\*llo`, "hello", false, false},
		{"ANNOUNCE*", "announce-ip", true, true},
		{"ANNOUNCE*", "announce-ip", false, false},
		{"my*", "mymaster", false, true},
		{"*master", "mymaster", false, true},
		{"a*b*c", "axxbyyc", false, true},
		{"a*b*c", "axxbyy", false, false},
		{"", "", false, true},
		{"", "a", false, false},
		{"a**", "a", false, true},
		{"[", "a", false, false},
		{"[a", "a", false, true},
		{"*a*b", "xxaxxb", false, true},
		{"*a*b", "xxaxxbx", false, false},
		{"*?*?*?0", "abc0", false, true},
		{"*?*?*?0", "ab0", false, false},
		// Exponential without the cut-off (the fuzz crasher in
		// testdata/fuzz/FuzzMatch): this test then does not finish.
		{"*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?0", strings.Repeat("a", 200), false, false},
		{"*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?0", strings.Repeat("a", 200) + "0", false, true},
	}
	for _, tt := range tests {
		if got := Match(tt.p, tt.s, tt.nocase); got != tt.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", tt.p, tt.s, tt.nocase, got, tt.want)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("a*b[c-d]?\\", "abcd")
	f.Fuzz(func(t *testing.T, p, s string) {
		Match(p, s, false)
		Match(p, s, true)
	})
}
