package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestStateFileMerge pins the rule of state.go: the state file's lines
// replace the config file's for the keys it holds and only those (its
// monitor line in the config's place), masters only the config file
// declares are added, removed masters stay removed, a full dump of the
// earlier writer still loads, and a bad state file is an error at its
// own line.
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
		{"the state replaces the config's lines of the keys it holds, and only those",
			"sentinel myid " + id2 + "\nsentinel current-epoch 3\nsentinel monitor a 10.0.0.2 6379 2\nsentinel config-epoch a 3\nloglevel debug\n",
			func(t *testing.T, c *Config) {
				p := c.Sentinel
				if p.MyID != id2 || p.CurrentEpoch != 3 || p.AnnounceIP != "10.9.9.9" || c.Server.Loglevel != "debug" {
					t.Errorf("globals: %+v, loglevel %s", p, c.Server.Loglevel)
				}
				if len(p.Masters) != 2 {
					t.Fatalf("masters: %+v", p.Masters)
				}
				a, b := p.Masters[0], p.Masters[1]
				if a.Addr.Host != "10.0.0.2" || a.ConfigEpoch != 3 || a.DownAfterMs != 5000 {
					t.Errorf("a: the state's address and epoch, the config's down-after: %+v", a)
				}
				if b.Name != "b" || b.Addr.Host != "10.0.1.1" {
					t.Errorf("b, only in the config file: %+v", b)
				}
			}, ""},
		{"a config master removed at runtime stays removed; one added to the config is monitored",
			"sentinel myid " + id2 + "\nsentinel monitor c 10.0.2.1 6379 2\nsentinel removed-master a\n",
			func(t *testing.T, c *Config) {
				var names []string
				for _, m := range c.Sentinel.Masters {
					names = append(names, m.Name)
				}
				if strings.Join(names, ",") != "b,c" {
					t.Errorf("masters %v, want b (added to the config) and c (the state's); a was removed", names)
				}
				if strings.Join(c.ConfigMasters, ",") != "a,b" {
					t.Errorf("ConfigMasters %v, want the config file's a,b", c.ConfigMasters)
				}
			}, ""},
		{"the state's monitor line takes the config's place; the carried lists go with it",
			"sentinel monitor a 10.0.0.3 6379 3\nsentinel known-replica a 10.0.0.4 6379\n",
			func(t *testing.T, c *Config) {
				a := c.Sentinel.Masters[0]
				if a.Addr.Host != "10.0.0.3" || a.Quorum != 3 || a.DownAfterMs != 5000 || len(a.KnownReplicas) != 1 {
					t.Errorf("a: %+v", a)
				}
			}, ""},
		{"a state setting at its default replaces a config value",
			"sentinel down-after-milliseconds a 30000\nsentinel announce-ip \"\"\n",
			func(t *testing.T, c *Config) {
				if a := c.Sentinel.Masters[0]; a.DownAfterMs != 30000 || c.Sentinel.AnnounceIP != "" || c.Sentinel.MyID != id1 {
					t.Errorf("got %+v", c.Sentinel)
				}
			}, ""},
		{"a full dump of the earlier writer loads, and wins for every key it holds",
			"sentinel myid " + id2 + "\nsentinel current-epoch 3\nsentinel monitor a 10.0.0.2 6379 2\nsentinel config-epoch a 3\nsentinel leader-epoch a 3\n" +
				"sentinel known-replica a 10.0.0.1 6379\nsentinel monitor b 10.0.1.1 6379 2\nsentinel config-epoch b 0\nsentinel leader-epoch b 0\nloglevel notice\n",
			func(t *testing.T, c *Config) {
				p := c.Sentinel
				if p.MyID != id2 || p.CurrentEpoch != 3 || c.Server.Loglevel != "notice" || len(p.Masters) != 2 {
					t.Fatalf("got %+v, loglevel %s", p, c.Server.Loglevel)
				}
				// Keys the dump lacks (a setting it left at its default)
				// come from the config file.
				if a := p.Masters[0]; a.Addr.Host != "10.0.0.2" || len(a.KnownReplicas) != 1 || a.DownAfterMs != 5000 || p.AnnounceIP != "10.9.9.9" {
					t.Errorf("got %+v", p)
				}
			}, ""},
		{"a full dump written by Valkey's state-config-file proposal (pull request 4085) loads unchanged, in its spellings",
			"sentinel myid " + id2 + "\nsentinel deny-scripts-reconfig yes\nsentinel resolve-hostnames no\nsentinel announce-hostnames no\n" +
				"sentinel monitor a 10.0.0.2 6379 2\nsentinel down-after-milliseconds a 4000\nsentinel failover-timeout a 60000\n" +
				"sentinel auth-pass a secret\nsentinel primary-reboot-down-after-period a 1000\nsentinel config-epoch a 3\nsentinel leader-epoch a 3\n" +
				"sentinel known-replica a 10.0.0.1 6379\nsentinel known-sentinel a 10.0.0.9 26379 " + id1 + "\nsentinel rename-command a CONFIG GUESSME\n" +
				"sentinel current-epoch 3\nsentinel announce-ip 10.8.8.8\nsentinel sentinel-user sen\nsentinel sentinel-pass pw\n",
			func(t *testing.T, c *Config) {
				p := c.Sentinel
				if p.MyID != id2 || p.CurrentEpoch != 3 || p.AnnounceIP != "10.8.8.8" || len(p.Masters) != 2 {
					t.Fatalf("globals: %+v", p)
				}
				a := p.Masters[0]
				if a.Addr.Host != "10.0.0.2" || a.DownAfterMs != 4000 || a.AuthPass != "secret" || a.ConfigEpoch != 3 ||
					len(a.KnownReplicas) != 1 || len(a.KnownSentinels) != 1 || a.RebootDownAfterMs != 1000 {
					t.Errorf("a: %+v", a)
				}
			}, ""},
		{"a state file without myid (made by hand) is read over the config file's globals",
			"sentinel current-epoch 30\n",
			func(t *testing.T, c *Config) {
				p := c.Sentinel
				if p.MyID != id1 || p.AnnounceIP != "10.9.9.9" || p.CurrentEpoch != 30 || len(p.Masters) != 2 {
					t.Errorf("got %+v", p)
				}
			}, ""},
		{"an empty state file changes nothing", "", func(t *testing.T, c *Config) {
			if c.Sentinel.MyID != id1 || c.Sentinel.CurrentEpoch != 10 || !c.StateRead {
				t.Errorf("got %+v", c.Sentinel)
			}
		}, ""},
		{"removed-master without a name", "sentinel removed-master\n", nil, "state.conf', at line 1"},
		{"removed-master with two names", "sentinel removed-master a b\n", nil, "sentinel removed-master takes one master name"},
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

// TestStateFileIsTheConfigFile: a state-config-file naming the config
// file itself (by name or through a link) stops the start at its line.
func TestStateFileIsTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "s.conf")
	if err := os.Symlink(conf, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s.conf", conf, "link"} {
		text := "port 1\nsentinel state-config-file " + name + "\n"
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ParseWith(conf, []byte(text), nil, Options{Cwd: dir})
		if err == nil || !strings.Contains(err.Error(), "must differ from the main config file") || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s: error %v, want %q at line 2", name, err, msgStateIsConfig)
		}
		var ce *Error
		if !errors.As(err, &ce) || ce.Logfile != "" {
			t.Errorf("%s: no logfile configured, but the error names %q", name, ce.Logfile)
		}
	}
	// With a log file (relative to dir, as the daemon opens it), the error
	// names it, so the daemon writes the message there as well.
	text := "port 1\ndir " + dir + "\nlogfile sentinel.log\nsentinel state-config-file s.conf\n"
	_, err := ParseWith(conf, []byte(text), nil, Options{Cwd: "/"})
	var ce *Error
	if !errors.As(err, &ce) || ce.Logfile != filepath.Join(dir, "sentinel.log") {
		t.Errorf("error %v, want one naming the log file %s", err, filepath.Join(dir, "sentinel.log"))
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
	out := string(StateBytes(c.Server.Loglevel, c.Sentinel, StateBase{}, RewriteOptions{Cwd: "/"}))
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "sentinel ") && l != "loglevel notice" {
			t.Errorf("line %q in the state file:\n%s", l, out)
		}
	}
	if !strings.Contains(out, "sentinel monitor m 10.0.0.1 6379 2") || strings.Contains(out, "\nsentinel state-config-file") {
		t.Errorf("state file:\n%s", out)
	}
}

// TestStateBytesRemovedMasters: the state lists, once each, the config
// file's masters that are not monitored, and reading it back under the
// same config file gives the monitored set; a removed-master line in the
// config file itself is an unknown sentinel statement.
func TestStateBytesRemovedMasters(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.conf")
	text := "sentinel monitor a 10.0.0.1 6379 2\nsentinel monitor b 10.0.1.1 6379 2\nsentinel state-config-file " + state + "\n"
	c, err := ParseWith(filepath.Join(dir, "s.conf"), []byte(text), nil, Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Sentinel
	p.Masters = p.Masters[1:] // SENTINEL REMOVE a
	out := StateBytes("notice", p, StateBase{Loglevel: "notice", Sentinel: c.Base, Masters: append(c.ConfigMasters, "a")}, RewriteOptions{Cwd: dir})
	if n := strings.Count(string(out), "sentinel removed-master"); n != 1 || !strings.Contains(string(out), "\nsentinel removed-master a\n") {
		t.Fatalf("%d removed-master lines, want one for a:\n%s", n, out)
	}
	if err := os.WriteFile(state, out, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := ParseWith(filepath.Join(dir, "s.conf"), []byte(text), nil, Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Sentinel.Masters) != 1 || again.Sentinel.Masters[0].Name != "b" {
		t.Errorf("masters after the restart %+v, want b alone", again.Sentinel.Masters)
	}
	// SENTINEL MONITOR a again: the line goes.
	if out := StateBytes("notice", c.Sentinel, c.StateBase(), RewriteOptions{Cwd: dir}); strings.Contains(string(out), "removed-master") {
		t.Errorf("a monitored master listed as removed:\n%s", out)
	}
	_, err = ParseWith(filepath.Join(dir, "s.conf"), []byte("sentinel removed-master a\n"), nil, Options{Cwd: dir})
	if err == nil || !strings.Contains(err.Error(), msgUnrecognized) {
		t.Errorf("removed-master in the config file: %v, want %q", err, msgUnrecognized)
	}
}

// TestStateShownAndMerged: Format (go-sentinel check) names the state
// file and the removed masters, and MergedBytes folds the state into the
// config file without the directive, into a file that loads to the same
// state on its own.
func TestStateShownAndMerged(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "s.conf")
	text := "port 26999\n# mine\nsentinel monitor m 10.0.0.1 6379 2\nsentinel monitor gone 10.0.0.9 6379 2\nsentinel state-config-file state.conf\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() *Config {
		t.Helper()
		c, err := ParseWith(conf, []byte(text), nil, Options{Cwd: dir})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if out := Format(load()); !strings.Contains(out, "state-config-file          "+filepath.Join(dir, "state.conf")+" (not written yet") {
		t.Errorf("Format before the first state:\n%s", out)
	}
	state := "sentinel myid 1111111111111111111111111111111111111111\nsentinel current-epoch 3\n" +
		"sentinel monitor m 10.0.0.2 6379 2\nsentinel config-epoch m 3\nsentinel removed-master gone\nloglevel warning\n"
	if err := os.WriteFile(filepath.Join(dir, "state.conf"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	c := load()
	out := Format(c)
	for _, want := range []string{"(read over the config file", "removed-master             gone (SENTINEL REMOVE"} {
		if !strings.Contains(out, want) {
			t.Errorf("Format lacks %q:\n%s", want, out)
		}
	}
	merged, err := MergedBytes(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(merged), "state-config-file") || strings.Contains(string(merged), "removed-master") || !strings.HasPrefix(string(merged), "port 26999\n# mine\n") {
		t.Errorf("merged:\n%s", merged)
	}
	back, err := ParseWith(conf, merged, nil, Options{Cwd: dir})
	if err != nil {
		t.Fatalf("the merged config does not load: %v\n%s", err, merged)
	}
	if !reflect.DeepEqual(back.Sentinel, c.Sentinel) || back.Server.Loglevel != "warning" || back.StateFile != "" {
		t.Errorf("the merged config loads differently:\n got %+v\nwant %+v\n%s", back.Sentinel, c.Sentinel, merged)
	}
}
