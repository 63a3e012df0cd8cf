package packaging

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// syscallGroup expands a systemd syscall group (@system-service, ...)
// into syscall names, following nested groups.
func syscallGroup(t *testing.T, sa, group string, into map[string]bool) {
	t.Helper()
	out, err := exec.Command(sa, "syscall-filter", group).Output()
	if err != nil {
		t.Fatalf("systemd-analyze syscall-filter %s: %v", group, err)
	}
	for _, l := range strings.Split(string(out), "\n")[1:] {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if strings.HasPrefix(f[0], "@") {
			syscallGroup(t, sa, f[0], into)
			continue
		}
		into[f[0]] = true
	}
}

// TestUnitSyscallFilterAllowsGoSentinel runs go-sentinel under strace
// through a monitored master, a forced failover and a shutdown, and checks
// that every system call it made passes the units' filter
// (SystemCallFilter=@system-service, then ~@privileged @resources: the
// first call outside it would kill the daemon with SIGSYS) and every socket
// it opened is of a family RestrictAddressFamilies allows.
func TestUnitSyscallFilterAllowsGoSentinel(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed (apt-get install strace)")
	}
	redis, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed; .ci/run installs it")
	}
	allowed := map[string]bool{}
	syscallGroup(t, sa, "@system-service", allowed)
	denied := map[string]bool{}
	syscallGroup(t, sa, "@privileged", denied)
	syscallGroup(t, sa, "@resources", denied)

	dir := t.TempDir()
	bin := filepath.Join(dir, "go-sentinel")
	// Built as make deb and make image build it (and sharing their cache).
	build := exec.Command(goTool(t), "build", "-trimpath", "-o", bin, "./cmd/go-sentinel")
	build.Dir = repoRoot(t)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	master, replica := freePort(t), freePort(t)
	for _, args := range [][]string{
		{"--port", strconv.Itoa(master)},
		{"--port", strconv.Itoa(replica), "--replicaof", "127.0.0.1", strconv.Itoa(master)},
	} {
		args = append(args, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no")
		port, _ := strconv.Atoi(args[1])
		startDaemon(t, exec.Command(redis, args...), port)
	}
	port := freePort(t)
	conf := filepath.Join(dir, "sentinel.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 %d 1\n"+
		"sentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 5000\n", port, master)), 0o644)
	trace := filepath.Join(dir, "strace.out")
	pidfile := filepath.Join(dir, "go-sentinel.pid")
	d := startDaemon(t, exec.Command(strace, "-f", "-qq", "-e", "signal=none", "-o", trace, bin, conf,
		"--supervised", "systemd", "--daemonize", "no", "--pidfile", pidfile), port)
	waitReply(t, port, "SENTINEL REPLICAS mymaster", fmt.Sprintf("%d", replica), 15*time.Second)
	waitReply(t, port, "SENTINEL FAILOVER mymaster", "+OK", 15*time.Second)
	waitReply(t, port, "SENTINEL GET-MASTER-ADDR-BY-NAME mymaster", strconv.Itoa(replica), 30*time.Second)
	command(port, "INFO")
	// SIGTERM goes to go-sentinel itself; strace exits with it.
	pid, err := strconv.Atoi(strings.TrimSpace(readText(t, pidfile)))
	if err != nil {
		t.Fatalf("pidfile: %v", err)
	}
	if code := d.stop(t, pid); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	call := regexp.MustCompile(`^\d+\s+([a-z0-9_]+)\((.*)`)
	used := map[string]int{}
	families := map[string]bool{}
	for _, l := range strings.Split(readText(t, trace), "\n") {
		m := call.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		used[m[1]]++
		if m[1] == "socket" {
			families[strings.SplitN(m[2], ",", 2)[0]] = true
		}
	}
	// The strace process's own execve of the binary comes first; the
	// daemon's calls follow.
	var bad []string
	for name := range used {
		if !allowed[name] || denied[name] {
			bad = append(bad, name)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("go-sentinel made system calls the units' SystemCallFilter forbids: %v", bad)
	}
	for f := range families {
		if f != "AF_INET" && f != "AF_INET6" && f != "AF_UNIX" {
			t.Errorf("go-sentinel opened a %s socket; RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", f)
		}
	}
	t.Logf("%d distinct system calls, all allowed; socket families %v", len(used), families)
}

// waitReply sends line to port until the reply contains want.
func waitReply(t *testing.T, port int, line, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := command(port, line)
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %q after %v, want it to contain %q", line, got, timeout, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
