package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateFileMerge pins the rule of state.go: the config file seeds,
// the state file wins for every global setting and for the masters it
// holds, masters only the config file declares are added, and a bad
// state file is an error at its own line.
func TestStateFileMerge(t *testing.T) {
	const id1 = "1111111111111111111111111111111111111111"
	const id2 = "2222222222222222222222222222222222222222"
	mainText := "loglevel warning\n" +
		"sentinel myid " + id1 + "\n" +
		"sentinel announce-ip 10.9.9.9\n" +
		"sentinel current-epoch 10\n" +
		"sentinel monitor a 10.0.0.1 6379 2\n" +
		"sentinel down-after-milliseconds a 5000\n" +
		"sentinel monitor b 10.0.1.1 6379 2\n"
	tests := []struct {
		name  string
		state string // "-": no state file
		check func(t *testing.T, c *Config)
		err   string
	}{
		{"no state file yet: the config file alone", "-", func(t *testing.T, c *Config) {
			if c.Sentinel.MyID != id1 || c.Sentinel.AnnounceIP != "10.9.9.9" || len(c.Sentinel.Masters) != 2 || c.Server.Loglevel != "warning" {
				t.Errorf("got %+v, loglevel %s", c.Sentinel, c.Server.Loglevel)
			}
		}, ""},
		{"the state wins for its masters and every global; others are added",
			"sentinel myid " + id2 + "\nsentinel current-epoch 3\nsentinel monitor a 10.0.0.2 6379 2\nsentinel config-epoch a 3\nloglevel debug\n",
			func(t *testing.T, c *Config) {
				p := c.Sentinel
				if p.MyID != id2 || p.CurrentEpoch != 3 || p.AnnounceIP != "" || c.Server.Loglevel != "debug" {
					t.Errorf("globals: %+v, loglevel %s", p, c.Server.Loglevel)
				}
				if len(p.Masters) != 2 {
					t.Fatalf("masters: %+v", p.Masters)
				}
				a, b := p.Masters[0], p.Masters[1]
				if a.Addr.Host != "10.0.0.2" || a.ConfigEpoch != 3 || a.DownAfter == 5000*1e6 {
					t.Errorf("a comes from the state whole: %+v", a)
				}
				if b.Name != "b" || b.Addr.Host != "10.0.1.1" {
					t.Errorf("b, only in the config file: %+v", b)
				}
			}, ""},
		{"a line that is not a sentinel line", "sentinel myid " + id2 + "\nport 1\n", nil,
			"state.conf', at line 2"},
		{"the state file names a state file", "sentinel state-config-file /x\n", nil,
			"Only sentinel lines and loglevel"},
		{"a bad sentinel line", "sentinel monitor a 10.0.0.2 6379\n", nil, "state.conf', at line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state.conf")
			if tt.state != "-" {
				if err := os.WriteFile(state, []byte(tt.state), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			text := mainText + "sentinel state-config-file state.conf\n"
			c, err := ParseWith(filepath.Join(dir, "sentinel.conf"), []byte(text), nil, Options{Cwd: dir})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %q, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.StateFile != state {
				t.Errorf("StateFile %q, want %q", c.StateFile, state)
			}
			tt.check(t, c)
		})
	}
}

// TestStateFileUnreadable: a state file that exists but cannot be read
// (here a directory) stops the start with its path.
func TestStateFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	_, err := ParseWith(filepath.Join(dir, "s.conf"), []byte("sentinel state-config-file "+dir+"\n"), nil, Options{Cwd: dir})
	var se *StateFileError
	if !errors.As(err, &se) || se.Path != dir {
		t.Fatalf("error %v (%T), want a StateFileError for %s", err, err, dir)
	}
}

// TestStateBytesHoldsOnlyState: the state file has the header, the
// sentinel lines and loglevel, and no server directive of the config.
func TestStateBytesHoldsOnlyState(t *testing.T) {
	c, err := ParseWith("/x/sentinel.conf", []byte("port 26000\nloglevel notice\nsentinel monitor m 10.0.0.1 6379 2\nsentinel state-config-file /x/s\n"), nil, Options{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(StateBytes(c.Server.Loglevel, c.Sentinel, RewriteOptions{Cwd: "/"}))
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "sentinel ") && l != "loglevel notice" {
			t.Errorf("line %q in the state file:\n%s", l, out)
		}
	}
	if !strings.Contains(out, "sentinel monitor m 10.0.0.1 6379 2") || strings.Contains(out, "\nsentinel state-config-file") {
		t.Errorf("state file:\n%s", out)
	}
}
