package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// TestCommandSurfaceDirective pins `sentinel command-surface`: the
// default, each value from the file and from the command line (the last
// line wins, as for every global), and the error of a bad value at its
// line.
func TestCommandSurfaceDirective(t *testing.T) {
	const mon = "sentinel monitor m 127.0.0.1 6379 2\n"
	for _, tt := range []struct {
		name string
		text string
		args []string
		want commands.Surface
		// bad is the line number of the error, 0 for none.
		bad int
	}{
		{name: "default", text: mon, want: commands.Surface70},
		{name: "7.0", text: mon + "sentinel command-surface 7.0\n", want: commands.Surface70},
		{name: "7.2", text: mon + "sentinel command-surface 7.2\n", want: commands.Surface72},
		{name: "before the monitor line", text: "sentinel command-surface 7.2\n" + mon, want: commands.Surface72},
		{name: "upper-case name", text: mon + "SENTINEL Command-Surface 7.2\n", want: commands.Surface72},
		{name: "quoted", text: mon + "sentinel command-surface \"7.2\"\n", want: commands.Surface72},
		{name: "last wins", text: mon + "sentinel command-surface 7.2\nsentinel command-surface 7.0\n", want: commands.Surface70},
		{name: "command line", text: mon, args: []string{"--sentinel", "command-surface", "7.2"}, want: commands.Surface72},
		{name: "command line as one word", text: mon, args: []string{"--sentinel command-surface 7.2"}, want: commands.Surface72},
		{name: "command line over the file", text: mon + "sentinel command-surface 7.2\n", args: []string{"--sentinel", "command-surface", "7.0"}, want: commands.Surface70},
		{name: "7.4 is no surface", text: mon + "sentinel command-surface 7.4\n", bad: 2},
		{name: "7", text: mon + "sentinel command-surface 7\n", bad: 2},
		{name: "empty", text: mon + "sentinel command-surface \"\"\n", bad: 2},
		{name: "no value", text: mon + "sentinel command-surface\n", bad: 2},
		{name: "two values", text: mon + "sentinel command-surface 7.0 7.2\n", bad: 2},
		{name: "bad on the command line", text: mon, args: []string{"--sentinel", "command-surface", "8.0"}, bad: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseWith(testFile, []byte(tt.text), tt.args, Options{Cwd: t.TempDir()})
			if tt.bad == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if c.CommandSurface != tt.want {
					t.Errorf("surface %v, want %v", c.CommandSurface, tt.want)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want a config error", err)
			}
			wantMsg := msgCommandSurface
			if strings.HasSuffix(e.Text, "command-surface") || strings.Count(e.Text, " ") > 2 {
				wantMsg = msgUnrecognized
			}
			if e.Line != tt.bad || e.Msg != wantMsg {
				t.Errorf("error at line %d %q, want line %d %q", e.Line, e.Msg, tt.bad, wantMsg)
			}
		})
	}
	if msgCommandSurface != "Please specify 7.0 or 7.2 for the command-surface option." {
		t.Errorf("message %q", msgCommandSurface)
	}
}

// TestCommandSurfaceRewrite checks that the rewrite keeps the directive
// where it stands, as written (it is read at start only, like
// state-config-file), and writes none into a file that has none.
func TestCommandSurfaceRewrite(t *testing.T) {
	cwd := t.TempDir()
	text := "dir " + splitargs.Repr(cwd) + "\nsentinel monitor m 127.0.0.1 6379 2\n# the fleet's clients want 7.2\nsentinel command-surface 7.2\nport 26379\n"
	c, _, out := roundTripLines(t, cwd, text)
	if c.CommandSurface != commands.Surface72 {
		t.Fatalf("surface %v", c.CommandSurface)
	}
	if !strings.Contains(out, "# the fleet's clients want 7.2\nsentinel command-surface 7.2\n") {
		t.Errorf("the line moved or changed:\n%s", out)
	}
	fresh := string(RewriteBytes(nil, c.Server, c.Sentinel, RewriteOptions{Cwd: cwd}))
	if strings.Contains(fresh, "command-surface") {
		t.Errorf("written into an empty file:\n%s", fresh)
	}
}

// TestDirectiveOfALaterSurface checks Valkey 8's enable-debug-assert:
// refused with Redis 7.0.15's message on the 7.0 surface, accepted and
// ignored on 7.2, whichever comes first and also when the surface comes
// from the command line.
func TestDirectiveOfALaterSurface(t *testing.T) {
	const line = "enable-debug-assert yes"
	_, err := ParseWith(testFile, []byte("port 26379\n"+line+"\n"), nil, Options{Cwd: t.TempDir()})
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || e.Text != line || e.Msg != msgBadDirective {
		t.Fatalf("on 7.0: %v", err)
	}
	for _, tt := range []struct {
		text string
		args []string
	}{
		{line + "\nsentinel command-surface 7.2\n", nil},
		{"sentinel command-surface 7.2\n" + line + "\n", nil},
		{line + "\n", []string{"--sentinel", "command-surface", "7.2"}},
	} {
		c, err := ParseWith(testFile, []byte(tt.text), tt.args, Options{Cwd: t.TempDir()})
		if err != nil {
			t.Fatalf("%q %v: %v", tt.text, tt.args, err)
		}
		if got := ignoredTexts(c); len(got) != 1 || got[0] != line {
			t.Errorf("%q: ignored %v", tt.text, got)
		}
	}
}

// TestFormatShowsTheSurface checks the line `go-sentinel check` prints.
func TestFormatShowsTheSurface(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"", "command-surface            7.0 (Redis 7.0's Sentinel)\n"},
		{"sentinel command-surface 7.2\n", "command-surface            7.2 (the Sentinel of Redis 7.2 through 8.x and Valkey 8 and 9)\n"},
	} {
		if got := Format(mustParse(t, tt.text)); !strings.Contains(got, tt.want) {
			t.Errorf("%q: Format lacks %q:\n%s", tt.text, tt.want, got)
		}
	}
}
