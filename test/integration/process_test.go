package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var myidLine = regexp.MustCompile(`(?m)^sentinel myid [0-9a-f]{40}$`)

func TestStartAnswerAndStopRewritesConfig(t *testing.T) {
	port := freePort(t)
	conf := writeConf(t, fmt.Sprintf("# my sentinel\nport %d\nsentinel monitor mymaster 127.0.0.1 %d 2\n", port, freePort(t)))
	p := startSentinel(t, conf, port, nil)
	c := client(t, port)
	ctx := context.Background()
	id, err := c.Do(ctx, "SENTINEL", "MYID").Text()
	if err != nil {
		t.Fatal(err)
	}
	// myid is persisted at once on first start, before any shutdown.
	waitFor(t, 5*time.Second, "myid in the config file", func() bool {
		return strings.Contains(readFile(t, conf), "sentinel myid "+id)
	})
	p.signal(syscall.SIGTERM)
	if code := p.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	text := readFile(t, conf)
	if !strings.HasPrefix(text, fmt.Sprintf("# my sentinel\nport %d\nsentinel monitor mymaster 127.0.0.1 ", port)) {
		t.Errorf("user lines not kept in place:\n%s", text)
	}
	for _, want := range []string{"sentinel myid " + id, "sentinel current-epoch 0", "sentinel config-epoch mymaster 0"} {
		if !hasLine(text, want) {
			t.Errorf("rewritten config lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{"Received SIGTERM scheduling shutdown...", "# Sentinel is now ready to exit, bye bye...",
		"# +monitor master mymaster 127.0.0.1 ", "# Sentinel ID is " + id} {
		if !strings.Contains(p.out.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}

	// A restart keeps the same identity.
	p2 := startSentinel(t, conf, port, nil)
	id2, err := client(t, port).Do(ctx, "SENTINEL", "MYID").Text()
	if err != nil || id2 != id {
		t.Fatalf("myid after restart = %q (%v), want %q", id2, err, id)
	}
	p2.signal(syscall.SIGINT)
	if code := p2.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit code after SIGINT %d", code)
	}
}

// TestDebianStockConfig runs Debian's own sentinel.conf the way Debian's
// systemd unit does (--supervised systemd --daemonize no), with the paths
// that need root-owned directories pointed into a temp dir.
func TestDebianStockConfig(t *testing.T) {
	stock, err := os.ReadFile("../../internal/config/testdata/debian-sentinel.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, stock, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "notify.sock")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := freePort(t)
	p := startSentinel(t, conf, port, []string{"NOTIFY_SOCKET=" + sock},
		"--supervised", "systemd", "--daemonize", "no", "--port", fmt.Sprint(port),
		"--dir", dir, "--logfile", "", "--pidfile", filepath.Join(dir, "sentinel.pid"))
	ln.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 512)
	n, err := ln.Read(buf)
	if err != nil {
		t.Fatalf("no sd_notify message: %v", err)
	}
	if !strings.Contains(string(buf[:n]), "READY=1") {
		t.Fatalf("notify message %q lacks READY=1", buf[:n])
	}
	pid := strings.TrimSpace(readFile(t, filepath.Join(dir, "sentinel.pid")))
	if pid != strconv.Itoa(p.cmd.Process.Pid) {
		t.Errorf("pidfile says %q, pid is %d", pid, p.cmd.Process.Pid)
	}
	p.signal(syscall.SIGTERM)
	if code := p.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	text := readFile(t, conf)
	if !myidLine.MatchString(text) {
		t.Fatalf("no myid in rewritten config:\n%s", text)
	}
	if !strings.HasPrefix(text, string(stock[:200])) {
		t.Errorf("the stock file's opening lines were not kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "sentinel.pid")); !os.IsNotExist(err) {
		t.Errorf("pidfile not removed: %v", err)
	}
}

func TestDaemonize(t *testing.T) {
	port := freePort(t)
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "s.pid")
	logfile := filepath.Join(dir, "s.log")
	conf := filepath.Join(dir, "sentinel.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf("port %d\ndaemonize yes\npidfile %s\nlogfile %s\n", port, pidfile, logfile)), 0o644)
	// Run from another directory with a relative config path: the daemon
	// must not depend on the parent's working directory.
	parent := start(t, filepath.Dir(dir), nil, sentinelBin, filepath.Join(filepath.Base(dir), "sentinel.conf"))
	if code := parent.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("parent exit code %d: %s", code, parent.out.String())
	}
	var pid int
	waitFor(t, 10*time.Second, "the pidfile", func() bool {
		b, err := os.ReadFile(pidfile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if pid == parent.cmd.Process.Pid {
		t.Fatal("the daemon is the parent process")
	}
	c := client(t, port)
	waitFor(t, 10*time.Second, "the daemon to answer PING", func() bool { return pingOK(c) })
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the daemon to exit", func() bool { return syscall.Kill(pid, 0) != nil })
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("pidfile left behind")
	}
	log := readFile(t, logfile)
	if !strings.Contains(log, "Sentinel is now ready to exit, bye bye...") {
		t.Errorf("log file:\n%s", log)
	}
	if !myidLine.MatchString(readFile(t, conf)) {
		t.Errorf("config not rewritten by the daemon")
	}
}

func TestBadConfigExitsNamingLine(t *testing.T) {
	tests := []struct {
		name, conf string
		args       []string
		want       []string
	}{
		{"not a number", "port 1\nsentinel monitor m 127.0.0.1 6379 2\n\n# c\nx\n", nil,
			[]string{"*** FATAL CONFIG FILE ERROR", "line 5", ">>> 'x'", "Bad directive or wrong number of arguments"}},
		{"quorum", "sentinel monitor m 127.0.0.1 6379 0\n", nil,
			[]string{"line 1", ">>> 'sentinel monitor m 127.0.0.1 6379 0'", "Quorum must be 1 or greater."}},
		{"unknown master", "sentinel down-after-milliseconds nope 1000\n", nil,
			[]string{"line 1", "No such master with specified name."}},
		{"unbalanced quotes", "logfile \"abc\n", nil, []string{"line 1", "Unbalanced quotes in configuration line"}},
		{"bad port arg", "sentinel monitor m 127.0.0.1 6379 2\n", []string{"--port", "70000"},
			[]string{"FATAL CONFIG FILE ERROR", "port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conf := writeConf(t, tt.conf)
			before := readFile(t, conf)
			p := start(t, filepath.Dir(conf), nil, sentinelBin, append([]string{conf}, tt.args...)...)
			if code := p.waitExit(10 * time.Second); code != 1 {
				t.Fatalf("exit code %d, want 1", code)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, p.out.String())
				}
			}
			if readFile(t, conf) != before {
				t.Error("a bad config must not be rewritten")
			}
		})
	}
}

func TestNoConfigFile(t *testing.T) {
	p := start(t, t.TempDir(), nil, sentinelBin)
	if code := p.waitExit(10 * time.Second); code != 1 {
		t.Fatalf("exit code %d", code)
	}
	if !strings.Contains(p.out.String(), "Sentinel needs config file on disk to save state. Exiting...") {
		t.Fatalf("output: %s", p.out.String())
	}
}

func TestUnwritableConfigRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the binary as another user")
	}
	dir, err := os.MkdirTemp("", "unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	conf := filepath.Join(dir, "sentinel.conf")
	os.WriteFile(conf, []byte("sentinel monitor m 127.0.0.1 6379 2\n"), 0o644)
	cmd := exec.Command(sentinelBin, conf)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("err %v, output %s", err, out)
	}
	if !strings.Contains(string(out), "Sentinel config file "+conf+" is not writable: Permission denied. Exiting...") {
		t.Fatalf("output: %s", out)
	}
}

func TestSymlinkNamedRedisSentinel(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "redis-sentinel")
	if err := os.Symlink(sentinelBin, link); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	conf := writeConf(t, "sentinel monitor m 127.0.0.1 6379 2\n")
	p := start(t, dir, nil, link, conf, "--port", fmt.Sprint(port), "--sentinel")
	c := client(t, port)
	waitFor(t, 10*time.Second, "PING through the symlink", func() bool { return pingOK(c) })
	p.signal(syscall.SIGTERM)
	if code := p.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestVersionAndCheck(t *testing.T) {
	out, err := exec.Command(sentinelBin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "7.0.15") {
		t.Fatalf("--version: %v %s", err, out)
	}
	out, err = exec.Command(sentinelBin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "go-sentinel ") {
		t.Fatalf("version: %v %s", err, out)
	}
	// Three Sentinels known, so the topology lint has no warning: exit 0.
	conf := writeConf(t, "sentinel monitor m 127.0.0.1 6379 2\nsentinel auth-pass m secret\n"+
		"sentinel known-sentinel m 127.0.0.1 26380 "+strings.Repeat("a", 40)+"\n"+
		"sentinel known-sentinel m 127.0.0.1 26381 "+strings.Repeat("b", 40)+"\n")
	out, err = exec.Command(sentinelBin, "check", conf).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") || strings.Contains(string(out), "secret") {
		t.Fatalf("check: %v %s", err, out)
	}
	bad := writeConf(t, "sentinel monitor m 127.0.0.1 6379 -1\n")
	out, err = exec.Command(sentinelBin, "check", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Quorum must be 1 or greater.") {
		t.Fatalf("check bad: %v %s", err, out)
	}
	out, _ = exec.Command(sentinelBin, "--help").CombinedOutput()
	if !strings.Contains(string(out), "sentinel.conf") {
		t.Fatalf("--help: %s", out)
	}
}

func TestProtectedModeRefusesNonLocalPeers(t *testing.T) {
	port := freePort(t)
	conf := writeConf(t, fmt.Sprintf("port %d\nprotected-mode yes\n", port))
	startSentinel(t, conf, port, nil)
	// 127.0.0.2 is loopback but, as in Redis, not "local" for protected
	// mode, which only lets 127.0.0.1 and ::1 in.
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 2 * time.Second}
	nc, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	n, _ := nc.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "-DENIED Redis is running in protected mode") {
		t.Fatalf("got %q", buf[:n])
	}
	if !pingOK(client(t, port)) {
		t.Fatal("127.0.0.1 must still be served")
	}
}

func TestRequirePassAndMalformedFrames(t *testing.T) {
	port := freePort(t)
	conf := writeConf(t, fmt.Sprintf("port %d\nrequirepass s3cret\n", port))
	startSentinel(t, conf, port, nil, "--protected-mode", "yes")
	ctx := context.Background()
	c := client(t, port)
	if err := c.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("PING without auth: %v", err)
	}
	if err := c.Do(ctx, "AUTH", "s3cret").Err(); err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte("*2\r\n$4\r\nAUTH\r\n$6\r\ns3cret\r\n"))
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 256)
	n, _ := nc.Read(buf)
	if string(buf[:n]) != "+OK\r\n" {
		t.Fatalf("AUTH: %q", buf[:n])
	}
	nc.Write([]byte("*1\r\n$-5\r\n"))
	n, _ = nc.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "-ERR Protocol error") {
		t.Fatalf("malformed frame: %q", buf[:n])
	}
	if _, err := nc.Read(buf); err == nil {
		t.Fatal("connection left open after a protocol error")
	}
	// The daemon and the other connection live on.
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestShutdownCommand(t *testing.T) {
	port := freePort(t)
	conf := writeConf(t, fmt.Sprintf("port %d\n", port))
	p := startSentinel(t, conf, port, nil)
	client(t, port).Do(context.Background(), "SHUTDOWN")
	if code := p.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
