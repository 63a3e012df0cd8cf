package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// TestStateDiff pins the state file's writer: over the config file (the
// base), it holds exactly the keys whose lines differ — untouched keys are
// absent, a key the runtime set is present even back at its default,
// learned facts are present — and config file plus state file load back
// to the runtime's state.
func TestStateDiff(t *testing.T) {
	const id = "3333333333333333333333333333333333333333"
	dir := t.TempDir()
	state := filepath.Join(dir, "state.conf")
	text := "loglevel notice\n" +
		"sentinel announce-ip 10.9.9.9\n" +
		"sentinel monitor m 10.0.0.1 6379 2\n" +
		"sentinel down-after-milliseconds m 5000\n" +
		"sentinel auth-pass m secret\n" +
		"sentinel known-replica m 10.0.0.5 6379\n" +
		"sentinel rename-command m CONFIG C2\n" +
		"sentinel notification-script m /bin/sh\n" +
		"sentinel monitor b 10.0.1.1 6379 2\n" +
		"sentinel state-config-file " + state + "\n"
	conf := filepath.Join(dir, "s.conf")
	c, err := ParseWith(conf, []byte(text), nil, Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	master := func(p *settings.Persisted, name string) *settings.MasterSpec {
		for i := range p.Masters {
			if p.Masters[i].Name == name {
				return &p.Masters[i]
			}
		}
		t.Fatalf("no master %s", name)
		return nil
	}
	tests := []struct {
		name     string
		change   func(p *settings.Persisted)
		loglevel string
		present  []string
		absent   []string
	}{
		{"untouched: nothing but the header", func(*settings.Persisted) {}, "notice",
			nil, []string{"sentinel ", "loglevel"}},
		{"learned facts: myid, epoch, a Sentinel", func(p *settings.Persisted) {
			p.MyID, p.CurrentEpoch = id, 4
			master(p, "m").KnownSentinels = []settings.SentinelSpec{{Addr: settings.Addr{Host: "10.0.0.9", Port: 26379}, RunID: id}}
		}, "notice",
			[]string{"sentinel myid " + id, "sentinel current-epoch 4", "sentinel known-sentinel m 10.0.0.9 26379 " + id},
			[]string{"monitor", "down-after", "auth-pass", "known-replica", "announce-ip", "loglevel"}},
		{"set back to the default: written in its forced form", func(p *settings.Persisted) {
			m := master(p, "m")
			m.DownAfterMs, m.AuthPass = settings.DefaultDownAfterMs, ""
			p.AnnounceIP = ""
		}, "debug",
			[]string{"sentinel down-after-milliseconds m 30000", `sentinel auth-pass m ""`, `sentinel announce-ip ""`, "loglevel debug"},
			[]string{"monitor", "known-replica", "rename-command", "myid"}},
		{"a setting the runtime set on the other master", func(p *settings.Persisted) {
			master(p, "b").ForgetReplicaAfterMs = 60000
		}, "notice",
			[]string{"sentinel forget-replica-after b 60000"}, []string{"sentinel monitor", " m "}},
		{"a failover: the monitor line with the carried lists", func(p *settings.Persisted) {
			m := master(p, "m")
			m.Addr, m.ConfigEpoch = settings.Addr{Host: "10.0.0.5", Port: 6379}, 1
			p.CurrentEpoch = 1
			m.KnownReplicas = []settings.Addr{{Host: "10.0.0.1", Port: 6379}}
		}, "notice",
			[]string{"sentinel current-epoch 1", "sentinel monitor m 10.0.0.5 6379 2", "sentinel config-epoch m 1", "sentinel known-replica m 10.0.0.1 6379"},
			[]string{"down-after", "auth-pass", "rename-command", " b "}},
		{"a list emptied (SENTINEL RESET): the monitor line says so", func(p *settings.Persisted) {
			master(p, "m").KnownReplicas = nil
		}, "notice",
			[]string{"sentinel monitor m 10.0.0.1 6379 2"}, []string{"known-replica", "down-after"}},
		{"a rename undone: a rename to itself", func(p *settings.Persisted) {
			master(p, "m").RenameCommands = nil
		}, "notice",
			[]string{"sentinel rename-command m CONFIG CONFIG"}, []string{"monitor", "C2"}},
		{"a script cleared: the empty path SENTINEL SET takes", func(p *settings.Persisted) {
			master(p, "m").NotificationScript = ""
		}, "notice",
			[]string{`sentinel notification-script m ""`}, []string{"monitor", "/bin/sh"}},
		{"a master added at runtime: all its lines", func(p *settings.Persisted) {
			p.Masters = append(p.Masters, settings.NewMasterSpec("n", settings.Addr{Host: "10.0.2.1", Port: 6379}, 1))
		}, "notice",
			[]string{"sentinel monitor n 10.0.2.1 6379 1", "sentinel down-after-milliseconds n 30000", `sentinel auth-pass n ""`, "sentinel config-epoch n 0"},
			[]string{" m ", " b "}},
		{"a config master removed: removed-master only", func(p *settings.Persisted) {
			p.Masters = p.Masters[1:]
		}, "notice",
			[]string{"sentinel removed-master b"}, []string{"monitor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := c.Sentinel
			p.Masters = append([]settings.MasterSpec(nil), c.Sentinel.Masters...)
			tt.change(&p)
			out := string(StateBytes(tt.loglevel, p, c.StateBase(), RewriteOptions{Cwd: dir}))
			body := strings.TrimPrefix(out, stateHeader)
			for _, w := range tt.present {
				if !strings.Contains(body, w+"\n") {
					t.Errorf("state lacks %q:\n%s", w, body)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(body, w) {
					t.Errorf("state has %q:\n%s", w, body)
				}
			}
			if err := os.WriteFile(state, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			back, err := ParseWith(conf, []byte(text), nil, Options{Cwd: dir})
			if err != nil {
				t.Fatalf("config and state do not load: %v\n%s", err, body)
			}
			if !reflect.DeepEqual(withoutIdentityRenames(back.Sentinel), withoutIdentityRenames(p)) || back.Server.Loglevel != tt.loglevel {
				t.Errorf("config and state load to\n %+v\nwant\n %+v\n%s", back.Sentinel, p, body)
			}
		})
	}
}

// TestStateFormsOnlyInState: the empty script path and the rename to
// itself the state file writes are read so only from a state file; in a
// config file the empty path is refused as Redis refuses it.
func TestStateFormsOnlyInState(t *testing.T) {
	_, err := ParseWith("/x/s.conf", []byte("sentinel monitor m 10.0.0.1 6379 2\nsentinel notification-script m \"\"\n"), nil, Options{Cwd: "/"})
	if err == nil || !strings.Contains(err.Error(), msgNotificationScript) {
		t.Errorf("an empty script path in a config file: %v, want %q", err, msgNotificationScript)
	}
	c, err := ParseWith("/x/s.conf", []byte("sentinel monitor m 10.0.0.1 6379 2\nsentinel rename-command m CONFIG CONFIG\n"), nil, Options{Cwd: "/"})
	if err != nil || len(c.Sentinel.Masters[0].RenameCommands) != 1 {
		t.Errorf("a rename to itself in a config file is kept as Redis keeps it: %v %+v", err, c)
	}
}

// TestMergeState pins the merge of the config file's sentinel lines with
// the state file's: per-key replacement, the state's monitor line in the
// config's place (its carried lists with it), removed masters dropped.
func TestMergeState(t *testing.T) {
	queue := func(file string, lines ...string) []queuedLine {
		var q []queuedLine
		for i, l := range lines {
			argv, err := splitargs.Split(l)
			if err != nil {
				t.Fatal(err)
			}
			q = append(q, queuedLine{file: file, num: i + 1, text: "sentinel " + l, argv: argv})
		}
		return q
	}
	tests := []struct {
		name        string
		main, state []string
		want        []string
	}{
		{"per-key replacement, the others kept",
			[]string{"monitor m h 1 2", "down-after-milliseconds m 5000", "auth-pass m x"},
			[]string{"down-after-milliseconds m 1000"},
			[]string{"monitor m h 1 2", "auth-pass m x", "down-after-milliseconds m 1000"}},
		{"a list is one key",
			[]string{"monitor m h 1 2", "known-replica m r 1", "known-replica m s 1", "rename-command m A B"},
			[]string{"known-replica m t 1"},
			[]string{"monitor m h 1 2", "rename-command m A B", "known-replica m t 1"}},
		{"the state's monitor line in place; the carried lists go with it",
			[]string{"monitor m h 1 2", "down-after-milliseconds m 5000", "known-replica m r 1", "known-sentinel m s 1 id", "proxy m 0.0.0.0 1", "rename-command m A B"},
			[]string{"monitor m k 1 3"},
			[]string{"monitor m k 1 3", "down-after-milliseconds m 5000", "rename-command m A B"}},
		{"globals per key; an alias is its directive's key",
			[]string{"myid X", "announce-ip y", "monitor m h 1 2", "known-slave m r 1"},
			[]string{`announce-ip ""`, "known-replica m t 1"},
			[]string{"myid X", "monitor m h 1 2", `announce-ip ""`, "known-replica m t 1"}},
		{"a removed master loses all its lines; a new one is added",
			[]string{"monitor g h 1 2", "down-after-milliseconds g 5000", "monitor m h 1 2"},
			[]string{"removed-master g", "monitor n h 2 1"},
			[]string{"monitor m h 1 2", "monitor n h 2 1"}},
		{"a master taken out of the config file goes, its learned lines with it",
			[]string{"monitor m h 1 2"},
			[]string{"known-sentinel g s 1 id", "config-epoch g 3", "config-epoch m 2"},
			[]string{"monitor m h 1 2", "config-epoch m 2"}},
		{"unless the state file holds its monitor line",
			[]string{"monitor m h 1 2"},
			[]string{"monitor g k 1 2", "config-epoch g 3"},
			[]string{"monitor m h 1 2", "monitor g k 1 2", "config-epoch g 3"}},
		{"unknown lines and state-config-file stay",
			[]string{"bogus 1", "state-config-file /s"},
			[]string{"myid Y"},
			[]string{"bogus 1", "state-config-file /s", "myid Y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := mergeState(queue("c", tt.main...), queue("s", tt.state...))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range out {
				got = append(got, strings.TrimPrefix(q.text, "sentinel "))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("merged\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}
