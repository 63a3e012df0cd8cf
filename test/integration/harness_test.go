// Package integration runs the go-sentinel binary against real redis-server
// (and redis-sentinel) processes on loopback ports. Every process a test
// starts is ended in t.Cleanup; waits poll with a deadline.
package integration

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// sentinelBin is the go-sentinel binary built once for the whole run
// (with the race detector), or the one GS_SENTINEL_BIN names: the
// measurements (make rejoin, make proxy-stall) time the binary as it
// ships, `make build`'s.
var sentinelBin string

func TestMain(m *testing.M) {
	if bin := os.Getenv("GS_SENTINEL_BIN"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "GS_SENTINEL_BIN:", err)
			os.Exit(1)
		}
		sentinelBin = abs
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "go-sentinel-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Chmod(dir, 0o755) // tests also run the binary as an unprivileged user
	sentinelBin = filepath.Join(dir, "go-sentinel")
	build := exec.Command("go", "build", "-race", "-o", sentinelBin, "../../cmd/go-sentinel")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building go-sentinel:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	portMu   sync.Mutex
	usedPort = map[int]bool{}
)

// freePort returns a loopback TCP port nobody listens on, never the same
// one twice in this process.
func freePort(t *testing.T) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for i := 0; i < 100; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !usedPort[p] {
			usedPort[p] = true
			return p
		}
	}
	t.Fatal("no free port")
	return 0
}

// proc is a child process with its combined output captured.
type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
	Port int
	Dir  string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs name with args and ends it (SIGKILL if still running) in
// t.Cleanup.
func start(t *testing.T, dir string, env []string, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return run(t, cmd, func() { cmd.Process.Kill() })
}

// run starts cmd with its output captured, and in t.Cleanup ends it with
// kill unless it has exited, then waits for it.
func run(t *testing.T, cmd *exec.Cmd, kill func()) *proc {
	t.Helper()
	p := &proc{t: t, cmd: cmd, out: &syncBuffer{}, done: make(chan struct{}), Dir: cmd.Dir}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("output of %s %v:\n%s", cmd.Path, cmd.Args[1:], p.out.String())
		}
	})
	return p
}

// exited reports whether the process ended, and its exit code.
func (p *proc) exited() (bool, int) {
	select {
	case <-p.done:
		return true, p.cmd.ProcessState.ExitCode()
	default:
		return false, 0
	}
}

// waitExit waits for the process to end and returns its exit code.
func (p *proc) waitExit(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		p.t.Fatalf("process %v still running after %v; output:\n%s", p.cmd.Args, timeout, p.out.String())
		return -1
	}
}

func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal: %v", err)
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// client returns a go-redis client to a loopback port, closed in cleanup.
func client(t *testing.T, port int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:            fmt.Sprintf("127.0.0.1:%d", port),
		Protocol:        2,
		DisableIdentity: true,
		MaxRetries:      -1,
		DialTimeout:     time.Second,
		ReadTimeout:     2 * time.Second,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

func pingOK(c *redis.Client) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Ping(ctx).Err() == nil
}

// needBinary skips the test when a Debian binary it needs is missing.
func needBinary(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (apt-get install redis-server redis-sentinel); .ci/run installs it", name)
	}
	return p
}

// startRedis starts a throwaway redis-server on a free port.
func startRedis(t *testing.T, extra ...string) *proc {
	t.Helper()
	bin := needBinary(t, "redis-server")
	dir := t.TempDir()
	port := freePort(t)
	args := append([]string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--logfile", ""}, extra...)
	p := start(t, dir, nil, bin, args...)
	p.Port = port
	c := client(t, port)
	waitFor(t, 10*time.Second, "redis-server to answer PING", func() bool { return pingOK(c) })
	return p
}

// writeConf writes a sentinel.conf into a fresh directory and returns its
// path.
func writeConf(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// alive probes a port the way the upstream harness does: an inline PING
// answered by anything starting with '+' or '-' (so NOAUTH counts).
func alive(port int) bool {
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(time.Second))
	if _, err := nc.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	b := make([]byte, 1)
	if _, err := nc.Read(b); err != nil {
		return false
	}
	return b[0] == '+' || b[0] == '-'
}

// startSentinel runs go-sentinel on conf with extra args and waits until
// it answers on port.
func startSentinel(t *testing.T, conf string, port int, env []string, args ...string) *proc {
	t.Helper()
	p := start(t, filepath.Dir(conf), env, sentinelBin, append([]string{conf}, args...)...)
	p.Port = port
	waitFor(t, 10*time.Second, "go-sentinel to answer PING", func() bool {
		if done, _ := p.exited(); done {
			t.Fatalf("go-sentinel exited early:\n%s", p.out.String())
		}
		return alive(port)
	})
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
