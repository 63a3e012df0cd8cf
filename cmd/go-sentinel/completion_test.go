package main

import (
	"strings"
	"testing"
)

// TestCompletionOffersSubcommandsAndFiles runs cobra's __complete, which
// the generated bash, zsh and fish completions call: the first argument
// completes to the subcommands, or to a file name (directive 0, the
// shell's default completion) for the config path; the hidden gendocs is
// never offered.
func TestCompletionOffersSubcommandsAndFiles(t *testing.T) {
	tests := []struct {
		args []string
		want []string // the completions, without their descriptions, then the directive
	}{
		{[]string{"__complete", ""}, []string{"check", "explain", "help", "version", ":0"}},
		{[]string{"__complete", "ve"}, []string{"version", ":0"}},
		{[]string{"__complete", "gen"}, []string{":0"}},
		{[]string{"__complete", "/etc/redis/sent"}, []string{":0"}},
		{[]string{"__complete", "check", "/etc/redis/sent"}, []string{":0"}},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		if code := run(tt.args, &out, &errOut); code != 0 {
			t.Errorf("%q: exit %d: %s", tt.args, code, errOut.String())
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			name, _, _ := strings.Cut(l, "\t")
			got = append(got, name)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}
