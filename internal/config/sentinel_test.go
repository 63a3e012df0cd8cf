package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

const (
	id1 = "0123456789abcdef0123456789abcdef01234567"
	id2 = "fedcba9876543210fedcba9876543210fedcba98"
)

func addr(h string, p int) settings.Addr { return settings.Addr{Host: h, Port: p} }

func TestParseSentinelDirectives(t *testing.T) {
	const mon = "sentinel monitor m 10.0.0.1 6379 2\n"
	master := func(mod func(m *settings.MasterSpec)) settings.Persisted {
		m := settings.NewMasterSpec("m", addr("10.0.0.1", 6379), 2)
		mod(&m)
		return settings.Persisted{DenyScriptsReconfig: true, Masters: []settings.MasterSpec{m}}
	}
	global := func(mod func(p *settings.Persisted)) settings.Persisted {
		p := master(func(*settings.MasterSpec) {})
		mod(&p)
		return p
	}
	tests := []struct {
		name string
		text string
		want settings.Persisted
	}{
		{"monitor", "", master(func(*settings.MasterSpec) {})},
		{"down-after", "sentinel down-after-milliseconds m 5000", master(func(m *settings.MasterSpec) { m.DownAfterMs = 5000 })},
		{"failover-timeout", "sentinel failover-timeout m 60000", master(func(m *settings.MasterSpec) { m.FailoverTimeoutMs = 60000 })},
		{"parallel-syncs", "sentinel parallel-syncs m 5", master(func(m *settings.MasterSpec) { m.ParallelSyncs = 5 })},
		{"parallel-syncs lenient", "sentinel parallel-syncs m x", master(func(m *settings.MasterSpec) { m.ParallelSyncs = 0 })},
		{"auth-pass", `sentinel auth-pass m "p w"`, master(func(m *settings.MasterSpec) { m.AuthPass = "p w" })},
		{"auth-user", "sentinel auth-user m admin", master(func(m *settings.MasterSpec) { m.AuthUser = "admin" })},
		{"master-reboot", "sentinel master-reboot-down-after-period m 1000", master(func(m *settings.MasterSpec) { m.RebootDownAfterMs = 1000 })},
		{"primary-reboot", "sentinel primary-reboot-down-after-period m 2000", master(func(m *settings.MasterSpec) { m.RebootDownAfterMs = 2000 })},
		{"reboot zero", "sentinel master-reboot-down-after-period m 0", master(func(*settings.MasterSpec) {})},
		{"config-epoch raises current", "sentinel config-epoch m 7\nsentinel current-epoch 3", global(func(p *settings.Persisted) {
			p.Masters[0].ConfigEpoch = 7
			p.CurrentEpoch = 7
		})},
		{"leader-epoch", "sentinel leader-epoch m 4", master(func(m *settings.MasterSpec) { m.LeaderEpoch = 4 })},
		{"known-replica", "sentinel known-replica m 10.0.0.2 6380\nsentinel known-slave m 10.0.0.3 6381\nsentinel known-replica m ::1 6382", master(func(m *settings.MasterSpec) {
			m.KnownReplicas = []settings.Addr{addr("10.0.0.2", 6380), addr("10.0.0.3", 6381), addr("::1", 6382)}
		})},
		{"known-replica canonical", "sentinel known-replica m 10.1 6380", master(func(m *settings.MasterSpec) {
			m.KnownReplicas = []settings.Addr{addr("10.0.0.1", 6380)}
		})},
		{"known-sentinel", "sentinel known-sentinel m 10.0.0.5 26379 " + id2, master(func(m *settings.MasterSpec) {
			m.KnownSentinels = []settings.SentinelSpec{{Addr: addr("10.0.0.5", 26379), RunID: id2}}
		})},
		{"known-sentinel without runid", "sentinel known-sentinel m 10.0.0.5 26379\nsentinel known-sentinel nosuch 10.0.0.5 26379", master(func(*settings.MasterSpec) {})},
		{"rename-command", "sentinel rename-command m CONFIG my-config\nsentinel rename-command m slaveof ''", master(func(m *settings.MasterSpec) {
			m.RenameCommands = []settings.Rename{{Command: "CONFIG", Renamed: "my-config"}, {Command: "slaveof", Renamed: ""}}
		})},
		{"current-epoch only raises", "sentinel current-epoch 9\nsentinel current-epoch 5", global(func(p *settings.Persisted) { p.CurrentEpoch = 9 })},
		{"current-epoch lenient", "sentinel current-epoch 12abc", global(func(p *settings.Persisted) { p.CurrentEpoch = 12 })},
		{"myid", "sentinel myid " + id1, global(func(p *settings.Persisted) { p.MyID = id1 })},
		{"myid any 40 chars", "sentinel myid " + "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", global(func(p *settings.Persisted) { p.MyID = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" })},
		{"announce-ip", "sentinel announce-ip 1.2.3.4", global(func(p *settings.Persisted) { p.AnnounceIP = "1.2.3.4" })},
		{"announce-ip empty ignored", "sentinel announce-ip 1.2.3.4\nsentinel announce-ip \"\"", global(func(p *settings.Persisted) { p.AnnounceIP = "1.2.3.4" })},
		{"announce-port", "sentinel announce-port 26000", global(func(p *settings.Persisted) { p.AnnouncePort = 26000 })},
		{"announce-port lenient", "sentinel announce-port abc", global(func(p *settings.Persisted) { p.AnnouncePort = 0 })},
		{"deny-scripts-reconfig", "sentinel deny-scripts-reconfig no", global(func(p *settings.Persisted) { p.DenyScriptsReconfig = false })},
		{"resolve-hostnames", "sentinel resolve-hostnames YES", global(func(p *settings.Persisted) { p.ResolveHostnames = true })},
		{"announce-hostnames", "sentinel announce-hostnames yes", global(func(p *settings.Persisted) { p.AnnounceHostnames = true })},
		{"sentinel-user", "sentinel sentinel-user su", global(func(p *settings.Persisted) { p.SentinelUser = "su" })},
		{"sentinel-pass", "sentinel sentinel-pass sp", global(func(p *settings.Persisted) { p.SentinelPass = "sp" })},
		{"sentinel-pass empty ignored", `sentinel sentinel-pass ""`, global(func(*settings.Persisted) {})},
		{"bare sentinel", "sentinel\nSENTINEL", global(func(*settings.Persisted) {})},
		{"upper case", "SENTINEL DOWN-AFTER-MILLISECONDS m 100\nSentinel Parallel-Syncs m 3", master(func(m *settings.MasterSpec) {
			m.DownAfterMs = 100
			m.ParallelSyncs = 3
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The directive comes before its monitor line: load order.
			c := mustParse(t, tt.text+"\n"+mon)
			if !reflect.DeepEqual(c.Sentinel, tt.want) {
				t.Fatalf("Sentinel =\n%+v\nwant\n%+v", c.Sentinel, tt.want)
			}
		})
	}
}

func TestParseSentinelLoadOrder(t *testing.T) {
	text := `sentinel down-after-milliseconds b 2000
sentinel known-replica b 10.0.0.9 1
sentinel monitor b 10.0.0.2 6379 1
sentinel config-epoch a 5
sentinel monitor a srv.example 6379 2
sentinel resolve-hostnames yes
sentinel myid ` + id1 + `
`
	c := mustParse(t, text)
	p := c.Sentinel
	if p.MyID != id1 || !p.ResolveHostnames || p.CurrentEpoch != 5 {
		t.Errorf("globals: %+v", p)
	}
	if len(p.Masters) != 2 || p.Masters[0].Name != "a" || p.Masters[1].Name != "b" {
		t.Fatalf("masters not sorted: %+v", p.Masters)
	}
	if p.Masters[0].Addr != addr("srv.example", 6379) || p.Masters[0].ConfigEpoch != 5 {
		t.Errorf("master a: %+v", p.Masters[0])
	}
	if p.Masters[1].DownAfterMs != 2000 || len(p.Masters[1].KnownReplicas) != 1 {
		t.Errorf("master b: %+v", p.Masters[1])
	}
}

func TestParseSentinelScripts(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"work/notify.sh": 0o755, "work/plain.sh": 0o644, "abs.sh": 0o700} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	abs := filepath.Join(dir, "abs.sh")
	// Scripts are resolved against the directory the `dir` lines lead to,
	// wherever the script line is.
	text := "sentinel monitor m 10.0.0.1 6379 2\nsentinel notification-script m notify.sh\nsentinel client-reconfig-script m " + abs + "\ndir work\n"
	c, err := ParseWith(testFile, []byte(text), nil, Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Sentinel.Masters[0]
	if m.NotificationScript != "notify.sh" || m.ClientReconfigScript != abs {
		t.Errorf("scripts: %+v", m)
	}

	tests := []struct {
		text string
		line int
		msg  string
	}{
		{"sentinel notification-script m plain.sh", 2, msgNotificationScript},
		{"sentinel notification-script m missing.sh", 2, msgNotificationScript},
		{"sentinel client-reconfig-script m plain.sh", 2, msgReconfigScript},
		{"sentinel client-reconfig-script m ''", 2, msgReconfigScript},
	}
	for _, tt := range tests {
		e := parseError(t, dir, "sentinel monitor m 10.0.0.1 6379 2\n"+tt.text+"\ndir work\n")
		if e.Line != tt.line || e.Msg != tt.msg || e.Text != tt.text {
			t.Errorf("%q: got line %d %q %q", tt.text, e.Line, e.Text, e.Msg)
		}
	}
}

func TestParseSentinelErrors(t *testing.T) {
	const mon = "sentinel monitor m 10.0.0.1 6379 2"
	tests := []struct {
		name string
		text string
		line int
		msg  string
	}{
		{"quorum zero", "sentinel monitor m 10.0.0.1 6379 0", 1, msgQuorum},
		{"quorum text", "sentinel monitor m 10.0.0.1 6379 two", 1, msgQuorum},
		{"quorum negative", "sentinel monitor m 10.0.0.1 6379 -1", 1, msgQuorum},
		{"port range", "sentinel monitor m 10.0.0.1 65536 2", 1, msgInvalidPort},
		{"port negative", "sentinel monitor m 10.0.0.1 -5 2", 1, msgInvalidPort},
		{"hostname without resolve", "sentinel monitor m localhost 6379 2", 1, msgCantResolve},
		{"duplicate master", mon + "\n" + mon, 2, msgDuplicateMaster},
		{"monitor arity", "sentinel monitor m 10.0.0.1 6379", 1, msgUnrecognized},
		{"unknown", "sentinel foo", 1, msgUnrecognized},
		{"unknown with args", "sentinel foo bar baz", 1, msgUnrecognized},
		{"down-after arity", mon + "\nsentinel down-after-milliseconds m", 2, msgUnrecognized},
		{"down-after zero", mon + "\nsentinel down-after-milliseconds m 0", 2, msgZeroTime},
		{"down-after text", mon + "\nsentinel down-after-milliseconds m abc", 2, msgZeroTime},
		{"down-after overflow", mon + "\nsentinel down-after-milliseconds m 3000000000", 2, msgZeroTime},
		{"failover-timeout negative", mon + "\nsentinel failover-timeout m -1", 2, msgZeroTime},
		{"reboot negative", mon + "\nsentinel master-reboot-down-after-period m -1", 2, msgNegativeTime},
		{"primary reboot negative", mon + "\nsentinel primary-reboot-down-after-period m -1", 2, msgNegativeTime},
		{"no such master", "sentinel down-after-milliseconds x 5", 1, msgNoSuchMaster},
		{"no such master before monitor", "sentinel auth-pass x p\n" + mon, 1, msgNoSuchMaster},
		{"no such master replica", mon + "\nsentinel known-replica x 1.2.3.4 1", 2, msgNoSuchMaster},
		{"no such master sentinel", mon + "\nsentinel known-sentinel x 1.2.3.4 1 " + id1, 2, msgNoSuchMaster},
		{"no such master rename", mon + "\nsentinel rename-command x a b", 2, msgNoSuchMaster},
		{"no such master epoch", mon + "\nsentinel config-epoch x 1", 2, msgNoSuchMaster},
		{"no such master leader", mon + "\nsentinel leader-epoch x 1", 2, msgNoSuchMaster},
		{"no such master parallel", mon + "\nsentinel parallel-syncs x 1", 2, msgNoSuchMaster},
		{"no such master failover", mon + "\nsentinel failover-timeout x 1", 2, msgNoSuchMaster},
		{"no such master auth-user", mon + "\nsentinel auth-user x u", 2, msgNoSuchMaster},
		{"no such master reboot", mon + "\nsentinel master-reboot-down-after-period x 1", 2, msgNoSuchMaster},
		{"no such master script", mon + "\nsentinel notification-script x /bin/sh", 2, msgNoSuchMaster},
		{"duplicate replica", mon + "\nsentinel known-replica m 1.2.3.4 1\nsentinel known-slave m 1.2.3.4 1", 3, msgDuplicateReplica},
		{"duplicate replica canonical", mon + "\nsentinel known-replica m 127.0.0.1 1\nsentinel known-replica m 127.1 1", 3, msgDuplicateReplica},
		{"replica hostname", mon + "\nsentinel known-replica m host 1", 2, msgCantResolve},
		{"replica port", mon + "\nsentinel known-replica m 1.2.3.4 70000", 2, msgInvalidPort},
		{"duplicate sentinel", mon + "\nsentinel known-sentinel m 1.2.3.4 1 " + id1 + "\nsentinel known-sentinel m 1.2.3.5 2 " + id1, 3, msgDuplicateSentinel},
		{"sentinel hostname", mon + "\nsentinel known-sentinel m host 1 " + id1, 2, msgCantResolve},
		{"same rename", mon + "\nsentinel rename-command m config a\nsentinel rename-command m CONFIG b", 3, msgSameRename},
		{"proxy hostname", mon + "\nsentinel proxy m localhost 6380", 2, `invalid proxy address: "localhost" is not an IP address`},
		{"proxy port", mon + "\nsentinel proxy m 127.0.0.1 0", 2, `invalid proxy address: bad port "0"`},
		{"proxy port text", mon + "\nsentinel proxy m 127.0.0.1 x", 2, `invalid proxy address: bad port "x"`},
		{"proxy arity", mon + "\nsentinel proxy m 127.0.0.1", 2, msgUnrecognized},
		{"duplicate proxy", mon + "\nsentinel proxy m 127.0.0.1 6380\nsentinel proxy m 127.0.0.1 6380", 3, msgSameProxy},
		{"no such master proxy", mon + "\nsentinel proxy x 127.0.0.1 6380", 2, msgNoSuchMaster},
		{"proxy-fence-after zero", mon + "\nsentinel proxy-fence-after m 0", 2, msgZeroTime},
		{"proxy-fence-after above the longest lease", mon + "\nsentinel proxy-fence-after m 5001", 2, "proxy-fence-after must be at most 5000."},
		{"proxy-hold negative", mon + "\nsentinel proxy-hold m -1", 2, msgNegativeTime},
		{"forget-replica-after negative", mon + "\nsentinel forget-replica-after m -1", 2, msgNegativeTime},
		{"forget-replica-after overflow", mon + "\nsentinel forget-replica-after m 3000000000", 2, msgNegativeTime},
		{"forget-replica-after arity", mon + "\nsentinel forget-replica-after m", 2, msgUnrecognized},
		{"no such master forget-replica-after", mon + "\nsentinel forget-replica-after x 1", 2, msgNoSuchMaster},
		{"voters negative", mon + "\nsentinel voters m -1", 2, msgVoters},
		{"voters arity", mon + "\nsentinel voters m", 2, msgUnrecognized},
		{"no such master voters", mon + "\nsentinel voters x 3", 2, msgNoSuchMaster},
		{"forget-sentinel-after negative", mon + "\nsentinel forget-sentinel-after m -1", 2, msgNegativeTime},
		{"forget-sentinel-after overflow", mon + "\nsentinel forget-sentinel-after m 3000000000", 2, msgNegativeTime},
		{"no such master forget-sentinel-after", mon + "\nsentinel forget-sentinel-after x 1", 2, msgNoSuchMaster},
		{"proxy-fencing", mon + "\nsentinel proxy-fencing m off", 2, msgYesNo},
		{"proxy-protected-mode", mon + "\nsentinel proxy-protected-mode m 0", 2, msgYesNo},
		{"proxy-replicas hostname", mon + "\nsentinel proxy-replicas m localhost 6381", 2, `invalid proxy address: "localhost" is not an IP address`},
		{"proxy-replicas arity", mon + "\nsentinel proxy-replicas m 127.0.0.1", 2, msgUnrecognized},
		{"duplicate proxy-replicas", mon + "\nsentinel proxy-replicas m 127.0.0.1 6381\nsentinel proxy-replicas m 127.0.0.1 6381", 3, msgSameProxy},
		{"proxy-replicas on the proxy's address", mon + "\nsentinel proxy m 127.0.0.1 6380\nsentinel proxy-replicas m 127.0.0.1 6380", 3, msgSameProxy},
		{"proxy on the read port's address", mon + "\nsentinel proxy-replicas m 127.0.0.1 6380\nsentinel proxy m 127.0.0.1 6380", 3, msgSameProxy},
		{"no such master proxy-replicas", mon + "\nsentinel proxy-replicas x 127.0.0.1 6381", 2, msgNoSuchMaster},
		{"proxy-replica-max-lag negative", mon + "\nsentinel proxy-replica-max-lag m -1", 2, msgNegativeTime},
		{"proxy-replicas-fallback", mon + "\nsentinel proxy-replicas-fallback m maybe", 2, msgYesNo},
		{"proxy-replicas-priority-zero", mon + "\nsentinel proxy-replicas-priority-zero m 1", 2, msgYesNo},
		{"myid short", "sentinel myid abc", 1, msgMalformedID},
		{"myid long", "sentinel myid " + id1 + "0", 1, msgMalformedID},
		{"myid arity", "sentinel myid", 1, msgUnrecognized},
		{"deny-scripts", "sentinel deny-scripts-reconfig maybe", 1, "Please specify yes or no for the deny-scripts-reconfig options."},
		{"resolve-hostnames", "sentinel resolve-hostnames 1", 1, "Please specify yes or no for the resolve-hostnames option."},
		{"announce-hostnames", "sentinel announce-hostnames on", 1, "Please specify yes or no for the announce-hostnames option."},
		{"first pass error wins", mon + "\nsentinel down-after-milliseconds m 0\nsentinel myid x", 3, msgMalformedID},
		{"monitor pass before others", "sentinel down-after-milliseconds m 0\nsentinel monitor m 1.2.3.4 1 0", 2, msgQuorum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseError(t, "", tt.text+"\n")
			lines := splitLines(tt.text)
			if e.Line != tt.line || e.Msg != tt.msg || e.Text != lines[tt.line-1] {
				t.Fatalf("got line %d %q %q, want line %d %q %q", e.Line, e.Text, e.Msg, tt.line, lines[tt.line-1], tt.msg)
			}
		})
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestParseUpstreamHarnessConfig parses the config the upstream test
// harness writes: the shared include file (per-master lines before their
// monitor line) followed by the per-instance lines.
func TestParseUpstreamHarnessConfig(t *testing.T) {
	base, err := os.ReadFile("testdata/upstream-sentinel.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sentinel_0"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := string(base) + "port 20000\nrepl-diskless-sync-delay 0\ndir ./sentinel_0\nlogfile log.txt\n" +
		"sentinel deny-scripts-reconfig no\nenable-protected-configs yes\nenable-debug-command yes\n"
	c, err := ParseWith(filepath.Join(dir, "sentinel_0", "sentinel.conf"), []byte(text), nil, Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	m := settings.NewMasterSpec("setmaster", addr("10.0.0.1", 30000), 2)
	m.DownAfterMs = 20000
	m.ParallelSyncs = 2
	m.FailoverTimeoutMs = 240000
	want := settings.Persisted{Masters: []settings.MasterSpec{m}}
	if !reflect.DeepEqual(c.Sentinel, want) {
		t.Errorf("Sentinel = %+v, want %+v", c.Sentinel, want)
	}
	if c.Server.Port != 20000 || c.Server.Logfile != "log.txt" || c.Server.Dir != "./sentinel_0" || len(c.Ignored) != 3 {
		t.Errorf("Server = %+v, Ignored = %v", c.Server, c.Ignored)
	}
}
