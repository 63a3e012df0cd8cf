package config

import (
	"errors"
	"testing"
)

func TestArgsToLines(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		err  error
	}{
		{"none", nil, "", nil},
		{"port", []string{"--port", "26380"}, "port \"26380\"\n", nil},
		{"name and value in one argument", []string{"--port 26380"}, "port 26380\n", nil},
		{"two options", []string{"--supervised", "systemd", "--daemonize", "no"}, "supervised \"systemd\"\ndaemonize \"no\"\n", nil},
		{"sentinel alone", []string{"--sentinel"}, "sentinel\n", nil},
		{"sentinel then option", []string{"--sentinel", "--port", "1"}, "sentinel\nport \"1\"\n", nil},
		{"option then sentinel", []string{"--port", "1", "--sentinel"}, "port \"1\"\nsentinel\n", nil},
		{"value with spaces", []string{"--logfile", "my log.txt"}, "logfile \"my log.txt\"\n", nil},
		{"value with quotes and newline", []string{"--requirepass", "a\"b\nc"}, "requirepass \"a\\\"b\\nc\"\n", nil},
		{"several values", []string{"--bind", "127.0.0.1", "::1"}, "bind \"127.0.0.1\" \"::1\"\n", nil},
		{"value that looks like an option", []string{"--requirepass", "--x"}, "requirepass \"--x\"\n", nil},
		{"empty save before option", []string{"--save", "--port", "1"}, "save \"\"\nport \"1\"\n", nil},
		{"empty save last", []string{"--save"}, "save \"\"\n", nil},
		{"option without value last", []string{"--port"}, "port\n", nil},
		{"sentinel directive", []string{"--sentinel", "monitor", "m", "127.0.0.1", "6379", "2"}, "sentinel \"monitor\" \"m\" \"127.0.0.1\" \"6379\" \"2\"\n", nil},
		{"stray value first", []string{"foo"}, "\"foo\"\n", nil},
		{"stdin", []string{"--port", "1", "-"}, "", ErrStdinConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ArgsToLines(tt.args)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Fatalf("ArgsToLines(%q) = %q, %v; want %q, %v", tt.args, got, err, tt.want, tt.err)
			}
		})
	}
}

// TestArgsToLinesParse checks that the lines parse back to the arguments.
func TestArgsToLinesParse(t *testing.T) {
	c := mustParse(t, "", "--port", "26380", "--logfile", "my log.txt", "--sentinel", "--requirepass", "p \"w\"\n")
	if c.Server.Port != 26380 || c.Server.Logfile != "my log.txt" || c.Server.Requirepass != "p \"w\"\n" {
		t.Fatalf("got port %d logfile %q requirepass %q", c.Server.Port, c.Server.Logfile, c.Server.Requirepass)
	}
}
