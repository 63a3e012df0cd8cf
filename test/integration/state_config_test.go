package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// This file tests `sentinel state-config-file` on the real binary (issue
// 21): the config file is only read, the state goes to the state file and
// survives a restart, a bad state file stops the start.

// stateSentinel is one go-sentinel of TestStateConfigFile: its config
// file, its state file and how to start it.
type stateSentinel struct {
	conf, state string
	port        int
	// ro: the config file's directory is a read-only bind mount in the
	// Sentinel's own mount namespace.
	ro   bool
	p    *proc
	info os.FileInfo
	data []byte
}

// start runs the Sentinel (in its own mount namespace, with the config
// directory bound read-only, when ro) and waits until it answers.
func (s *stateSentinel) start(t *testing.T) {
	t.Helper()
	dir := filepath.Dir(s.conf)
	// On the 7.2 command surface, from the command line (so that the
	// config file, which --print-merged hands to redis-sentinel, stays
	// free of it): SENTINEL CONFIG SET loglevel, a runtime change the
	// state file must keep, is 7.2's (redis-sentinel 7.0.15 refuses it).
	if !s.ro {
		s.p = startSentinel(t, s.conf, s.port, nil, "--sentinel", "command-surface", "7.2")
		return
	}
	// unshare -m gives the shell a private mount namespace (the bind
	// mount dies with it); the touch proves the directory is read-only
	// there before go-sentinel replaces the shell.
	script := fmt.Sprintf(`mount --bind %[1]q %[1]q && mount -o remount,ro,bind %[1]q %[1]q || exit 3
if touch %[2]q 2>/dev/null; then echo "config still writable"; exit 4; fi
exec %[3]q %[2]q --sentinel command-surface 7.2`, dir, s.conf, sentinelBin)
	s.p = start(t, dir, nil, "unshare", "-m", "sh", "-c", script)
	s.p.Port = s.port
	waitFor(t, 10*time.Second, "go-sentinel (read-only config) to answer PING", func() bool {
		if done, code := s.p.exited(); done {
			t.Fatalf("go-sentinel on a read-only config exited with %d:\n%s", code, s.p.out.String())
		}
		return alive(s.port)
	})
}

// remember records the config file's bytes and stat.
func (s *stateSentinel) remember(t *testing.T) {
	t.Helper()
	var err error
	if s.data, err = os.ReadFile(s.conf); err != nil {
		t.Fatal(err)
	}
	if s.info, err = os.Stat(s.conf); err != nil {
		t.Fatal(err)
	}
}

// unchanged fails unless the config file has the bytes, inode and mtime
// remember saw.
func (s *stateSentinel) unchanged(t *testing.T, when string) {
	t.Helper()
	data, err := os.ReadFile(s.conf)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.conf)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(s.data) {
		t.Errorf("%s: config file %s changed:\n%s\nwas:\n%s", when, s.conf, data, s.data)
	}
	if !fi.ModTime().Equal(s.info.ModTime()) || fi.Sys().(*syscall.Stat_t).Ino != s.info.Sys().(*syscall.Stat_t).Ino {
		t.Errorf("%s: config file %s touched: mtime %v inode %d, was %v %d", when, s.conf,
			fi.ModTime(), fi.Sys().(*syscall.Stat_t).Ino, s.info.ModTime(), s.info.Sys().(*syscall.Stat_t).Ino)
	}
}

// fieldsOf returns one field of each entry of a SENTINEL REPLICAS or
// SENTINELS reply, sorted.
func fieldsOf(t *testing.T, port int, sub, master, field string) []string {
	t.Helper()
	l, err := client(t, port).Do(context.Background(), "SENTINEL", sub, master).Slice()
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range l {
		kv, _ := e.([]any)
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == field {
				out = append(out, fmt.Sprint(kv[i+1]))
			}
		}
	}
	slices.Sort(out)
	return out
}

// masterNames returns the names SENTINEL MASTERS lists, sorted.
func masterNames(t *testing.T, port int) []string {
	t.Helper()
	l, err := client(t, port).Do(context.Background(), "SENTINEL", "MASTERS").Slice()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range l {
		kv, _ := e.([]any)
		if len(kv) > 1 && kv[0] == "name" {
			out = append(out, fmt.Sprint(kv[1]))
		}
	}
	slices.Sort(out)
	return out
}

var stateEpochLine = regexp.MustCompile(`(?m)^sentinel current-epoch (\d+)$`)

// stateEpoch returns the current-epoch line of a state file, "" without.
func stateEpoch(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if m := stateEpochLine.FindStringSubmatch(string(b)); m != nil {
		return m[1]
	}
	return ""
}

// lineDiff returns how many lines of b are not in a and of a not in b
// (as multisets).
func lineDiff(a, b string) (added, removed int) {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		if count[l] > 0 {
			count[l]--
		} else {
			added++
		}
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

// TestStateConfigFile: three go-sentinels with state-config-file (one
// of them with its config on a read-only bind mount, when root), a master
// and a replica, and redis-sentinel on a copy of the same config beside
// them. Through discovery, SENTINEL SET, SENTINEL CONFIG SET, SENTINEL
// MONITOR and REMOVE, a failover, FLUSHCONFIG, SENTINEL RESET, SIGTERM and
// a restart (about 10 s: it runs in make test), no go-sentinel config file changes by a byte (nor its inode
// or mtime); after the restart each Sentinel has its myid, its epochs, the
// new master, the replica, the other Sentinels and what it was told at
// runtime, and a master SENTINEL REMOVE removed stays removed although
// the config file declares it. redis-sentinel refuses the directive, and
// without it rewrites its config file (the diff is logged).
func TestStateConfigFile(t *testing.T) {
	redisSentinel := needBinary(t, "redis-sentinel")
	began := time.Now()
	ctx := context.Background()
	top := startData(t, 1)
	otherPort := freePort(t) // a master only the config files declare; removed at runtime
	root := os.Getuid() == 0
	if root {
		if err := exec.Command("unshare", "-m", "true").Run(); err != nil {
			t.Logf("unshare -m does not work here (%v): no read-only bind mount", err)
			root = false
		}
	} else {
		t.Log("not root: the read-only bind mount sub-part is skipped")
	}
	extra := func(state string) string {
		return fmt.Sprintf("sentinel state-config-file %s\nsentinel monitor other 127.0.0.1 %d 2\nsentinel down-after-milliseconds other 600000\n", state, otherPort)
	}
	var ss []*stateSentinel
	for i := 0; i < 3; i++ {
		port := freePort(t)
		confDir, stateDir := t.TempDir(), t.TempDir()
		state := filepath.Join(stateDir, "sentinel-state.conf")
		s := &stateSentinel{conf: filepath.Join(confDir, "sentinel.conf"), state: state, port: port, ro: root && i == 2}
		if err := os.WriteFile(s.conf, []byte(top.sentinelConf(port, 2, extra(state))), 0o444); err != nil {
			t.Fatal(err)
		}
		s.remember(t)
		s.start(t)
		ss = append(ss, s)
		top.sentinels = append(top.sentinels, s.p)
	}

	// redis-sentinel refuses the directive; on a copy of the config
	// without it, it joins the fleet and rewrites its file.
	refused := writeConf(t, top.sentinelConf(freePort(t), 2, extra(filepath.Join(t.TempDir(), "s.conf"))))
	out, err := exec.Command(redisSentinel, refused).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "Unrecognized sentinel configuration statement") {
		t.Errorf("redis-sentinel on state-config-file: %v\n%s", err, out)
	}
	t.Logf("redis-sentinel 7.0.15 on the directive: exit 1,%s", strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", " | "))
	redisPort := freePort(t)
	redisText := top.sentinelConf(redisPort, 2, fmt.Sprintf("sentinel monitor other 127.0.0.1 %d 2\nsentinel down-after-milliseconds other 600000\n", otherPort))
	redisConf := writeConf(t, redisText)
	rs := start(t, filepath.Dir(redisConf), nil, redisSentinel, redisConf)
	rs.Port = redisPort
	waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(redisPort) })
	top.sentinels = append(top.sentinels, rs)

	waitDiscovery(t, top)
	for _, s := range ss {
		s := s
		waitFor(t, 10*time.Second, "the state file to list the other Sentinels", func() bool {
			b, _ := os.ReadFile(s.state)
			return strings.Count(string(b), "\nsentinel known-sentinel mymaster ") == 3
		})
		s.unchanged(t, "after discovery")
		if fi, err := os.Stat(s.state); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm() != 0o600 {
			t.Errorf("state file %s: mode %v, want 0600 (it holds passwords)", s.state, fi.Mode())
		}
	}

	// Runtime changes: SENTINEL SET on all, the rest on the first.
	for _, s := range ss {
		if err := client(t, s.port).Do(ctx, "SENTINEL", "SET", "mymaster", "failover-timeout", "12000").Err(); err != nil {
			t.Fatal(err)
		}
	}
	c0 := client(t, ss[0].port)
	extraMaster := startRedis(t)
	for _, cmd := range [][]any{
		{"SENTINEL", "CONFIG", "SET", "resolve-hostnames", "yes"},
		{"SENTINEL", "CONFIG", "SET", "loglevel", "warning"},
		{"SENTINEL", "CONFIG", "SET", "announce-ip", "127.0.0.1"},
		{"SENTINEL", "CONFIG", "SET", "announce-port", fmt.Sprint(ss[0].port)},
		{"SENTINEL", "MONITOR", "extra", "127.0.0.1", fmt.Sprint(extraMaster.Port), "1"},
		{"SENTINEL", "REMOVE", "other"},
		{"SENTINEL", "RESET", "extra"},
		{"SENTINEL", "FLUSHCONFIG"},
	} {
		if err := c0.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	for _, s := range ss {
		s.unchanged(t, "after SENTINEL SET, CONFIG SET, MONITOR, REMOVE, RESET, FLUSHCONFIG")
	}

	logs := watchAll(t, top)
	oldMaster := top.master.Port
	newMaster := waitFailover(t, top, logs)
	t.Logf("failover: +switch-master 127.0.0.1:%d -> 127.0.0.1:%d on every Sentinel", oldMaster, newMaster.Port)

	// What each go-sentinel knows before the restart.
	type known struct {
		id, configEpoch, epoch string
		replicas, sentinels    []string
	}
	before := make([]known, len(ss))
	for i, s := range ss {
		s := s
		waitFor(t, 10*time.Second, "the state file to hold the new master and the old one as a replica", func() bool {
			b, _ := os.ReadFile(s.state)
			return strings.Contains(string(b), fmt.Sprintf("\nsentinel monitor mymaster 127.0.0.1 %d 2\n", newMaster.Port)) &&
				strings.Contains(string(b), fmt.Sprintf("\nsentinel known-replica mymaster 127.0.0.1 %d\n", oldMaster))
		})
		c := client(t, s.port)
		if err := c.Do(ctx, "SENTINEL", "FLUSHCONFIG").Err(); err != nil {
			t.Fatal(err)
		}
		id, _ := c.Do(ctx, "SENTINEL", "MYID").Text()
		before[i] = known{id: id, configEpoch: sentinelField(t, s.port, "config-epoch"), epoch: stateEpoch(t, s.state),
			replicas: fieldsOf(t, s.port, "REPLICAS", "mymaster", "name"), sentinels: fieldsOf(t, s.port, "SENTINELS", "mymaster", "runid")}
		if before[i].configEpoch == "0" || before[i].epoch == "" || before[i].epoch == "0" || len(before[i].sentinels) != 3 || len(before[i].replicas) != 1 {
			t.Fatalf("sentinel %d before the restart: %+v", i, before[i])
		}
		s.unchanged(t, "after the failover")
	}

	// SIGTERM (which persists) and a restart.
	for _, s := range ss {
		s.p.signal(syscall.SIGTERM)
		if code := s.p.waitExit(10 * time.Second); code != 0 {
			t.Fatalf("exit code %d at SIGTERM:\n%s", code, s.p.out.String())
		}
		s.unchanged(t, "after SIGTERM")
	}
	for i, s := range ss {
		s.start(t)
		top.sentinels[i] = s.p
	}
	for i, s := range ss {
		c := client(t, s.port)
		// Read at once, before the first hellos (every 2 s) could teach
		// anything: what is there now came from the state file.
		if err := c.Do(ctx, "SENTINEL", "FLUSHCONFIG").Err(); err != nil {
			t.Fatal(err)
		}
		id, _ := c.Do(ctx, "SENTINEL", "MYID").Text()
		got := known{id: id, configEpoch: sentinelField(t, s.port, "config-epoch"), epoch: stateEpoch(t, s.state),
			replicas: fieldsOf(t, s.port, "REPLICAS", "mymaster", "name"), sentinels: fieldsOf(t, s.port, "SENTINELS", "mymaster", "runid")}
		if got.id != before[i].id || got.configEpoch != before[i].configEpoch || got.epoch != before[i].epoch ||
			!slices.Equal(got.replicas, before[i].replicas) || !slices.Equal(got.sentinels, before[i].sentinels) {
			t.Errorf("sentinel %d after the restart:\n got %+v\nwant %+v", i, got, before[i])
		}
		if a := masterAddr(t, s.port); a != fmt.Sprintf("127.0.0.1:%d", newMaster.Port) {
			t.Errorf("sentinel %d after the restart: master at %s, want the promoted 127.0.0.1:%d", i, a, newMaster.Port)
		}
		if v := sentinelField(t, s.port, "failover-timeout"); v != "12000" {
			t.Errorf("sentinel %d after the restart: failover-timeout %s, want 12000 (SENTINEL SET)", i, v)
		}
		want := []string{"mymaster", "other"}
		if i == 0 {
			want = []string{"extra", "mymaster"}
		}
		if got := masterNames(t, s.port); !slices.Equal(got, want) {
			t.Errorf("sentinel %d after the restart monitors %v, want %v", i, got, want)
		}
		s.unchanged(t, "after the restart")
	}
	cfg := doSlice(t, client(t, ss[0].port), "SENTINEL", "CONFIG", "GET", "*")
	got := map[string]string{}
	for i := 0; i+1 < len(cfg); i += 2 {
		got[fmt.Sprint(cfg[i])] = fmt.Sprint(cfg[i+1])
	}
	if got["resolve-hostnames"] != "yes" || got["loglevel"] != "warning" || got["announce-ip"] != "127.0.0.1" || got["announce-port"] != fmt.Sprint(ss[0].port) {
		t.Errorf("SENTINEL CONFIG after the restart: %v, want resolve-hostnames yes, loglevel warning, announce-ip 127.0.0.1, announce-port %d", got, ss[0].port)
	}
	if state := readFile(t, ss[0].state); !hasLine(state, "sentinel removed-master other") {
		t.Errorf("the state file does not list the removed master:\n%s", state)
	}
	for _, s := range ss {
		if strings.Contains(s.p.out.String(), "write the state-config-file") {
			t.Errorf("a go-sentinel failed to write its state:\n%s", s.p.out.String())
		}
	}

	// Rollback: the first Sentinel stops, its state is folded into a
	// config file (check --print-merged) and redis-sentinel starts on it,
	// on the same port: same identity, the new master, the Sentinels,
	// the removed master still gone.
	s0 := ss[0]
	s0.p.signal(syscall.SIGTERM)
	if code := s0.p.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit code %d at SIGTERM", code)
	}
	merged, err := exec.Command(sentinelBin, "check", "--print-merged", s0.conf).Output()
	if err != nil {
		t.Fatalf("check --print-merged: %v", err)
	}
	rollback := writeConf(t, string(merged))
	rb := start(t, filepath.Dir(rollback), nil, redisSentinel, rollback)
	rb.Port = s0.port
	waitFor(t, 10*time.Second, "redis-sentinel on the merged config to answer", func() bool {
		if done, _ := rb.exited(); done {
			t.Fatalf("redis-sentinel refused the merged config:\n%s\n%s", rb.out.String(), merged)
		}
		return alive(s0.port)
	})
	if id, _ := client(t, s0.port).Do(ctx, "SENTINEL", "MYID").Text(); id != before[0].id {
		t.Errorf("redis-sentinel on the merged config: myid %q, want %q", id, before[0].id)
	}
	if a := masterAddr(t, s0.port); a != fmt.Sprintf("127.0.0.1:%d", newMaster.Port) {
		t.Errorf("redis-sentinel on the merged config: master at %s, want 127.0.0.1:%d", a, newMaster.Port)
	}
	if got := fieldsOf(t, s0.port, "SENTINELS", "mymaster", "runid"); !slices.Equal(got, before[0].sentinels) {
		t.Errorf("redis-sentinel on the merged config: Sentinels %v, want %v", got, before[0].sentinels)
	}
	if got := masterNames(t, s0.port); !slices.Equal(got, []string{"extra", "mymaster"}) {
		t.Errorf("redis-sentinel on the merged config monitors %v, want extra and mymaster", got)
	}
	t.Logf("rollback: redis-sentinel started on check --print-merged (%d bytes) with the same myid, master and Sentinels", len(merged))

	after := readFile(t, redisConf)
	added, removed := lineDiff(redisText, after)
	roCount := 0
	if root {
		roCount = 1
	}
	t.Logf("redis-sentinel rewrote its config file: %d -> %d bytes, %d lines added, %d removed; each go-sentinel config file: 0 bytes changed, same inode and mtime (%d of them on a read-only bind mount)",
		len(redisText), len(after), added, removed, roCount)
	if added == 0 {
		t.Errorf("redis-sentinel did not rewrite its config file?\n%s", after)
	}
	t.Logf("TestStateConfigFile took %v", time.Since(began).Round(time.Second))
}

// TestStateConfigFileBadStart: a state file with a garbage line, a state
// path in a directory that does not exist, and a state path that is a
// directory each stop the start with exit code 1 and a message naming the
// file; the corrupt state file is left byte for byte as it was.
func TestStateConfigFileBadStart(t *testing.T) {
	valid := "sentinel myid 1111111111111111111111111111111111111111\nsentinel current-epoch 4\n" +
		"sentinel monitor mymaster 127.0.0.1 6399 2\nsentinel config-epoch mymaster 4\n"
	tests := []struct {
		name  string
		setup func(dir string) string // returns the state path
		want  []string
	}{
		{"garbage line", func(dir string) string {
			p := filepath.Join(dir, "state.conf")
			os.WriteFile(p, []byte(valid+"this is not a sentinel line\n"), 0o644)
			return p
		}, []string{"*** FATAL CONFIG FILE ERROR", "Reading the state-config-file '", "state.conf', at line 5", ">>> 'this is not a sentinel line'"}},
		{"bad sentinel line", func(dir string) string {
			p := filepath.Join(dir, "state.conf")
			os.WriteFile(p, []byte(valid+"sentinel known-replica mymaster 127.0.0.1\n"), 0o644)
			return p
		}, []string{"Reading the state-config-file '", "at line 5", "Unrecognized sentinel configuration statement."}},
		{"missing directory", func(dir string) string {
			return filepath.Join(dir, "no-such-dir", "state.conf")
		}, []string{"state-config-file", "no-such-dir/state.conf is not writable: No such file or directory. Exiting..."}},
		{"a directory", func(dir string) string {
			p := filepath.Join(dir, "statedir")
			os.Mkdir(p, 0o755)
			return p
		}, []string{"can't read the state-config-file '", "statedir': Is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			state := tt.setup(dir)
			before, _ := os.ReadFile(state)
			conf := writeConf(t, fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 6399 2\nsentinel state-config-file %s\n", freePort(t), state))
			confBefore := readFile(t, conf)
			p := start(t, filepath.Dir(conf), nil, sentinelBin, conf)
			if code := p.waitExit(10 * time.Second); code != 1 {
				t.Fatalf("exit code %d, want 1:\n%s", code, p.out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(p.out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, p.out.String())
				}
			}
			if after, _ := os.ReadFile(state); string(after) != string(before) {
				t.Errorf("the state file changed:\n%s\nwas:\n%s", after, before)
			}
			if readFile(t, conf) != confBefore {
				t.Error("the config file changed")
			}
			t.Logf("%s: %s", tt.name, strings.ReplaceAll(strings.TrimSpace(p.out.String()), "\n", " | "))
		})
	}
}

// TestStateConfigFileIsTheConfigFile: a state-config-file that names the
// config file itself stops the start with exit code 1 and an error
// containing Valkey pull request 4085's words "must differ from the main
// config file", on stderr and, since a logfile is configured, in the log
// file too; the config file is left byte for byte as it was.
func TestStateConfigFileIsTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %d\nlogfile sentinel.log\nsentinel monitor mymaster 127.0.0.1 6399 2\nsentinel state-config-file sentinel.conf\n", freePort(t))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, dir, nil, sentinelBin, conf)
	if code := p.waitExit(10 * time.Second); code != 1 {
		t.Fatalf("exit code %d, want 1:\n%s", code, p.out.String())
	}
	const want = "must differ from the main config file"
	for _, w := range []string{"*** FATAL CONFIG FILE ERROR", "at line 4", ">>> 'sentinel state-config-file sentinel.conf'", want} {
		if !strings.Contains(p.out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, p.out.String())
		}
	}
	if log := readFile(t, filepath.Join(dir, "sentinel.log")); !strings.Contains(log, want) || !strings.Contains(log, "at line 4") {
		t.Errorf("the log file lacks the error:\n%s", log)
	}
	if readFile(t, conf) != text {
		t.Error("the config file changed")
	}
}

// TestStateConfigFileUnwritableDirRefused: a state file its user may write
// in a directory it may not (each write renames a new file into the
// directory) stops the start, run as nobody.
func TestStateConfigFileUnwritableDirRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the binary as another user")
	}
	dir, err := os.MkdirTemp("", "state-unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	state := filepath.Join(dir, "state.conf")
	os.WriteFile(state, []byte("sentinel myid 1111111111111111111111111111111111111111\n"), 0o644)
	if err := os.Chown(state, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "sentinel.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf("port %d\nsentinel monitor m 127.0.0.1 6399 2\nsentinel state-config-file %s\n", freePort(t), state)), 0o444)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sentinelBin, conf) // killed if it starts
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("err %v, output %s", err, out)
	}
	if !strings.Contains(string(out), "Sentinel state-config-file "+state+" is not writable: Permission denied. Exiting...") {
		t.Fatalf("output: %s", out)
	}
}

// masterFieldOf returns one field of SENTINEL MASTER name, "" when absent.
func masterFieldOf(t *testing.T, port int, name, field string) string {
	t.Helper()
	m := doSlice(t, client(t, port), "SENTINEL", "MASTER", name)
	for i := 0; i+1 < len(m); i += 2 {
		if m[i] == field {
			return fmt.Sprint(m[i+1])
		}
	}
	return ""
}

// TestStateConfigFileConfigEdits: the state file is a delta over the
// config file, so configuration management keeps owning the config file.
// A go-sentinel runs, is told SENTINEL SET and CONFIG SET, and stops;
// the config file is then replaced as Ansible or a ConfigMap would (a
// master's down-after-milliseconds the runtime never set changed,
// forget-replica-after added, deny-scripts-reconfig turned off, and the
// keys the runtime set edited too, a master taken out); after the restart
// SENTINEL MASTER and SENTINEL CONFIG show the edited values, the keys set
// at runtime keep their runtime values, the master taken out is gone
// (although the state file held a runtime setting of it), and go-sentinel
// never writes the config file.
func TestStateConfigFileConfigEdits(t *testing.T) {
	ctx := context.Background()
	m1, m2 := startRedis(t), startRedis(t)
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "state.conf")
	conf := filepath.Join(dir, "sentinel.conf")
	script := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	write := func(text string) {
		t.Helper()
		os.Remove(conf) // as configuration management replaces the file
		if err := os.WriteFile(conf, []byte(text), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	first := fmt.Sprintf("port %d\nsentinel deny-scripts-reconfig yes\n"+
		"sentinel monitor m1 127.0.0.1 %d 1\nsentinel down-after-milliseconds m1 10000\n"+
		"sentinel monitor m2 127.0.0.1 %d 1\nsentinel down-after-milliseconds m2 20000\n"+
		"sentinel monitor m3 127.0.0.1 %d 1\n"+
		"sentinel state-config-file %s\n", port, m1.Port, m2.Port, m2.Port, state)
	write(first)
	p := startSentinel(t, conf, port, nil)
	c := client(t, port)
	for _, cmd := range [][]any{
		{"SENTINEL", "SET", "m2", "down-after-milliseconds", "7000"},
		{"SENTINEL", "SET", "m3", "down-after-milliseconds", "9000"},
		{"SENTINEL", "CONFIG", "SET", "announce-ip", "127.0.0.1"},
		{"SENTINEL", "FLUSHCONFIG"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	if err := c.Do(ctx, "SENTINEL", "SET", "m1", "notification-script", script).Err(); err == nil || !strings.Contains(err.Error(), "deny-scripts-reconfig") {
		t.Fatalf("SENTINEL SET notification-script under deny-scripts-reconfig yes: %v", err)
	}
	firstState := readFile(t, state)
	for _, l := range []string{"sentinel down-after-milliseconds m1 10000", "sentinel monitor m1", "sentinel deny-scripts-reconfig"} {
		if strings.Contains(firstState, l) {
			t.Errorf("the state file holds %q, which the runtime never changed:\n%s", l, firstState)
		}
	}
	if !hasLine(firstState, "sentinel down-after-milliseconds m2 7000") || !hasLine(firstState, "sentinel down-after-milliseconds m3 9000") || !hasLine(firstState, `sentinel announce-ip "127.0.0.1"`) {
		t.Errorf("the state file lacks what the runtime was told:\n%s", firstState)
	}
	p.signal(syscall.SIGTERM)
	if code := p.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit code %d at SIGTERM:\n%s", code, p.out.String())
	}
	if readFile(t, conf) != first {
		t.Fatal("go-sentinel wrote its config file")
	}

	edited := fmt.Sprintf("port %d\nsentinel deny-scripts-reconfig no\nsentinel announce-ip 127.0.0.2\n"+
		"sentinel monitor m1 127.0.0.1 %d 1\nsentinel down-after-milliseconds m1 15000\nsentinel forget-replica-after m1 60000\n"+
		"sentinel monitor m2 127.0.0.1 %d 1\nsentinel down-after-milliseconds m2 25000\n"+
		"sentinel state-config-file %s\n", port, m1.Port, m2.Port, state)
	write(edited)
	p = startSentinel(t, conf, port, nil)
	c = client(t, port)
	for _, f := range []struct{ master, field, want, why string }{
		{"m1", "down-after-milliseconds", "15000", "the config file's edit (never set at runtime)"},
		{"m1", "forget-replica-after", "60000", "added to the config file"},
		{"m2", "down-after-milliseconds", "7000", "SENTINEL SET at runtime wins over the later config edit (25000)"},
	} {
		if got := masterFieldOf(t, port, f.master, f.field); got != f.want {
			t.Errorf("SENTINEL MASTER %s %s = %q, want %s: %s", f.master, f.field, got, f.want, f.why)
		}
	}
	if got := masterNames(t, port); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Errorf("monitors %v after m3 was taken out of the config file, want m1 m2 (its runtime setting goes with it)", got)
	}
	cfg := doSlice(t, c, "SENTINEL", "CONFIG", "GET", "announce-ip")
	if len(cfg) != 2 || fmt.Sprint(cfg[1]) != "127.0.0.1" {
		t.Errorf("announce-ip %v, want 127.0.0.1 (CONFIG SET at runtime wins over the config edit 127.0.0.2)", cfg)
	}
	if err := c.Do(ctx, "SENTINEL", "SET", "m1", "notification-script", script).Err(); err != nil {
		t.Errorf("SENTINEL SET notification-script after the config file turned deny-scripts-reconfig off: %v", err)
	}
	if err := c.Do(ctx, "SENTINEL", "FLUSHCONFIG").Err(); err != nil {
		t.Fatal(err)
	}
	second := readFile(t, state)
	if strings.Contains(second, "down-after-milliseconds m1") || strings.Contains(second, "forget-replica-after") || !hasLine(second, "sentinel down-after-milliseconds m2 7000") {
		t.Errorf("the state file after the restart:\n%s", second)
	}
	if readFile(t, conf) != edited {
		t.Error("go-sentinel wrote its config file")
	}
	t.Logf("state file after the first run (%d bytes):\n%s", len(firstState), firstState)
}
