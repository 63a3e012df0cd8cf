package monitor

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

func TestSetValidation(t *testing.T) {
	exe := msg.Executables{"/bin/ok": true}
	tests := []struct {
		name    string
		deny    bool
		args    []string
		wantErr string
	}{
		{"down-after", false, []string{"down-after-milliseconds", "1000"}, ""},
		{"negative down-after", false, []string{"down-after-milliseconds", "-20"}, "Invalid argument '-20' for SENTINEL SET 'down-after-milliseconds'"},
		{"not a number", false, []string{"quorum", "abc"}, "Invalid argument 'abc' for SENTINEL SET 'quorum'"},
		{"unknown option", false, []string{"fakeoption", "1"}, "Unknown option or number of arguments for SENTINEL SET 'fakeoption'"},
		{"missing value", false, []string{"quorum", "2", "parallel-syncs"}, "Unknown option or number of arguments for SENTINEL SET 'parallel-syncs'"},
		{"case-insensitive", false, []string{"QUORUM", "3", "Failover-Timeout", "5000"}, ""},
		{"reboot period 0", false, []string{"master-reboot-down-after-period", "0"}, ""},
		{"valkey spelling", false, []string{"primary-reboot-down-after-period", "10"}, ""},
		{"reboot period negative", false, []string{"master-reboot-down-after-period", "-1"}, "Invalid argument '-1' for SENTINEL SET 'master-reboot-down-after-period'"},
		{"script denied", true, []string{"notification-script", "/bin/ok"}, "Reconfiguration of scripts path is denied"},
		{"script missing", false, []string{"notification-script", "/bin/nope"}, "Notification script seems non existing or non executable"},
		{"reconfig script missing", false, []string{"client-reconfig-script", "/bin/nope"}, "Client reconfiguration script seems non existing or non executable"},
		{"script ok", false, []string{"notification-script", "/bin/ok"}, ""},
		{"script cleared", false, []string{"client-reconfig-script", ""}, ""},
		{"rename empty", false, []string{"rename-command", "PING", ""}, "Invalid argument '' for SENTINEL SET 'rename-command'"},
		{"rename", false, []string{"rename-command", "PING", "PONG"}, ""},
		{"auth", false, []string{"auth-pass", "secret", "auth-user", "u"}, ""},
		{"voters and forget-sentinel-after", false, []string{"voters", "3", "forget-sentinel-after", "5000"}, ""},
		{"voters negative", false, []string{"voters", "-1"}, "Invalid argument '-1' for SENTINEL SET 'voters'"},
		{"forget-sentinel-after not a number", false, []string{"forget-sentinel-after", "soon"}, "Invalid argument 'soon' for SENTINEL SET 'forget-sentinel-after'"},
		// Numbers the config file cannot read back (Redis's atoi keeps
		// 32 bits) are refused: Redis takes them, and its next start
		// fails or reads another value.
		{"down-after beyond the file", false, []string{"down-after-milliseconds", "9223372036854775807"}, "Invalid argument '9223372036854775807' for SENTINEL SET 'down-after-milliseconds'"},
		{"failover-timeout beyond the file", false, []string{"failover-timeout", "4294967297"}, "Invalid argument '4294967297' for SENTINEL SET 'failover-timeout'"},
		{"largest the file reads", false, []string{"down-after-milliseconds", "2147483647", "quorum", "2147483647"}, ""},
		{"voters beyond the file", false, []string{"voters", "2147483648"}, "Invalid argument '2147483648' for SENTINEL SET 'voters'"},
		{"parallel-syncs 0", false, []string{"parallel-syncs", "0"}, "Invalid argument '0' for SENTINEL SET 'parallel-syncs'"},
		{"proxy-fencing", false, []string{"proxy-fencing", "NO", "proxy-protected-mode", "yes"}, ""},
		{"proxy-fencing not yes or no", false, []string{"proxy-fencing", "maybe"}, "Invalid argument 'maybe' for SENTINEL SET 'proxy-fencing'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := masterCore(t, 2)
			s.global.DenyScriptsReconfig = tt.deny
			before := s.Snapshot()
			err := command(s, msg.Set{Name: "m", Args: tt.args, Executables: exe})
			out := s.Ready()
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if got := s.Snapshot(); got.Masters[0].Quorum != before.Masters[0].Quorum ||
					got.Masters[0].DownAfterMs != before.Masters[0].DownAfterMs || len(out.Actions) != 0 {
					t.Fatal("a rejected SET changed state or persisted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			persisted := false
			for _, a := range out.Actions {
				_, ok := a.(msg.PersistConfig)
				persisted = persisted || ok
			}
			if !persisted {
				t.Fatal("SET must persist before the reply")
			}
			for _, e := range out.Events() {
				if e.Type != "+set" {
					continue
				}
				if strings.Contains(e.Msg, "secret") {
					t.Fatalf("auth-pass shown in %q", e.Msg)
				}
			}
		})
	}
	if err := command(masterCore(t, 2), msg.Set{Name: "nope", Args: []string{"quorum", "1"}, Executables: exe}); !errors.Is(err, view.ErrNoSuchMaster) {
		t.Fatalf("unknown master: %v", err)
	}
}

func TestSetRenameCommand(t *testing.T) {
	s := masterCore(t, 2)
	if err := command(s, msg.Set{Name: "m", Args: []string{"rename-command", "ping", "PONG"}}); err != nil {
		t.Fatal(err)
	}
	if got := s.masters["m"].rename("PING"); got != "PONG" {
		t.Fatalf("rename = %s", got)
	}
	if err := command(s, msg.Set{Name: "m", Args: []string{"rename-command", "PING", "ping"}}); err != nil {
		t.Fatal(err)
	}
	if got := s.masters["m"].rename("PING"); got != "PING" || len(s.Snapshot().Masters[0].RenameCommands) != 0 {
		t.Fatal("renaming to itself must remove the mapping")
	}
}

func TestMonitorValidation(t *testing.T) {
	tests := []struct {
		name, host string
		port, q    int
		want       error
	}{
		{"ok", "127.0.0.1", 6380, 2, nil},
		{"quorum 0", "127.0.0.1", 6380, 0, ErrQuorumTooSmall},
		{"hostname without resolve-hostnames", "localhost", 6380, 2, ErrInvalidAddress},
		{"bad port", "127.0.0.1", 70000, 2, ErrInvalidPortNumber},
		{"duplicate", "127.0.0.1", 6380, 2, ErrDuplicateMaster},
		{"ipv6", "::1", 6381, 1, nil},
	}
	s := masterCore(t, 2)
	for _, tt := range tests {
		name := "n"
		if tt.name == "duplicate" {
			name = "m"
		} else if tt.name == "ipv6" {
			name = "v6"
		}
		err := command(s, msg.Monitor{Name: name, Host: tt.host, Port: tt.port, Quorum: tt.q})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	if a, ok := s.View().MasterAddr("v6"); !ok || a.Host != "::1" {
		t.Errorf("ipv6 master addr %v", a)
	}
	if err := command(s, msg.Remove{Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.View().MasterAddr("n"); ok {
		t.Fatal("REMOVE left the master")
	}
}

func TestConfigSetGetAndDebug(t *testing.T) {
	s := masterCore(t, 2)
	if err := command(s, msg.ConfigSet{Args: []string{"announce-port", "70000"}}); err == nil || err.Error() != "Invalid value '70000' to SENTINEL CONFIG SET 'announce-port'" {
		t.Fatalf("bad port: %v", err)
	}
	if err := command(s, msg.ConfigSet{Args: []string{"resolve-hostnames", "yes", "bogus", "1"}}); err == nil || err.Error() != "Invalid argument 'bogus' to SENTINEL CONFIG SET" {
		t.Fatalf("unknown: %v", err)
	}
	if s.global.ResolveHostnames {
		t.Fatal("a rejected CONFIG SET applied a pair")
	}
	if err := command(s, msg.ConfigSet{Args: []string{"announce-ip", "1.2.3.4", "announce-ip", "5.6.7.8"}}); err == nil || !strings.HasPrefix(err.Error(), "Duplicate argument") {
		t.Fatalf("duplicate: %v", err)
	}
	if err := command(s, msg.ConfigSet{Args: []string{"announce-hostnames", "YES", "sentinel-user", "u"}}); err != nil {
		t.Fatal(err)
	}
	got := s.ConfigGet([]string{"announce*", "SENTINEL-USER"})
	want := []view.KV{{Key: "announce-hostnames", Value: "yes"}, {Key: "announce-ip", Value: ""}, {Key: "announce-port", Value: "0"}, {Key: "sentinel-user", Value: "u"}}
	if len(got) != len(want) {
		t.Fatalf("ConfigGet = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ConfigGet[%d] = %v want %v", i, got[i], want[i])
		}
	}
	if err := command(s, msg.Debug{Args: []string{"info-period", "100", "ping-period", "0"}}); err == nil || err.Error() != "Invalid argument '0' for SENTINEL DEBUG 'ping-period'" {
		t.Fatalf("debug: %v", err)
	}
	if s.Timing().InfoPeriodMs != 100 {
		t.Fatal("debug pairs before the bad one stay applied, as in Redis")
	}
	if err := command(s, msg.Debug{Args: []string{"nope", "1"}}); err == nil || err.Error() != "Unknown option or number of arguments for SENTINEL DEBUG 'nope'" {
		t.Fatalf("debug unknown: %v", err)
	}
	vals := s.DebugValues()
	if len(vals) != 13 || vals[0].Key != "INFO-PERIOD" || vals[0].Value != "100" {
		t.Fatalf("DebugValues = %v", vals)
	}
}

// command steps s with a command input at t0 and returns its error.
func command(s *Sentinel, in msg.Input) error {
	_, err := s.Step(t0, in)
	return err
}
