package process

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestDaemonCmd(t *testing.T) {
	argv := []string{"redis-sentinel", "/etc/redis/sentinel.conf", "--port", "26380"}
	env := []string{"HOME=/root", EnvDaemonChild + "=0", "PATH=/bin", EnvDaemonChild + "=1"}
	cmd := daemonCmd(argv, env)

	if cmd.Path != "/proc/self/exe" {
		t.Errorf("Path = %q", cmd.Path)
	}
	if !slices.Equal(cmd.Args, argv) {
		t.Errorf("Args = %q, want %q", cmd.Args, argv)
	}
	argv[1] = "changed"
	if cmd.Args[1] != "/etc/redis/sentinel.conf" {
		t.Error("Args aliases the caller's slice")
	}
	wantEnv := []string{"HOME=/root", "PATH=/bin", EnvDaemonChild + "=1"}
	if !slices.Equal(cmd.Env, wantEnv) {
		t.Errorf("Env = %q, want %q", cmd.Env, wantEnv)
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setsid {
		t.Error("child is not started in a new session")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		t.Error("stdio must be nil (exec connects nil to /dev/null)")
	}
	if cmd.Dir != "" {
		t.Errorf("Dir = %q, want inherited working directory", cmd.Dir)
	}
}

func TestDaemonizeEmptyArgv(t *testing.T) {
	if _, err := Daemonize([]string{}); !errors.Is(err, ErrEmptyArgv) {
		t.Fatalf("err = %v, want ErrEmptyArgv", err)
	}
}

func TestDaemonizeReexec(t *testing.T) {
	if IsDaemonChild() {
		t.Fatal("test process thinks it is the daemon child")
	}
	sock := filepath.Join(t.TempDir(), "report.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	t.Setenv(envHelper, "daemon")
	t.Setenv(envReport, sock)

	argv := []string{"redis-sentinel", "/abs/sentinel.conf", "--sentinel"}
	isParent, err := Daemonize(argv)
	if err != nil || !isParent {
		t.Fatalf("Daemonize = %v, %v; want true, nil", isParent, err)
	}
	if err := ln.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	conn, err := ln.Accept()
	if err != nil {
		t.Fatalf("child never reported: %v", err)
	}
	defer conn.Close()
	var r daemonReport
	if err := json.NewDecoder(conn).Decode(&r); err != nil {
		t.Fatalf("decode report: %v", err)
	}
	if p, err := os.FindProcess(r.Pid); err == nil {
		t.Cleanup(func() {
			_ = p.Kill()
			_, _ = p.Wait()
		})
	}

	if !r.IsChild || r.IsParent || r.DaemonErr != "" {
		t.Errorf("child: IsDaemonChild=%v Daemonize=%v,%q; want true,false,\"\"", r.IsChild, r.IsParent, r.DaemonErr)
	}
	if r.MarkerLeft {
		t.Error("child kept the daemon marker in its environment")
	}
	if r.Pid == os.Getpid() || r.Sid != r.Pid {
		t.Errorf("child pid %d sid %d: want a session leader distinct from %d", r.Pid, r.Sid, os.Getpid())
	}
	for fd, target := range r.Stdio {
		if target != os.DevNull {
			t.Errorf("child fd %d -> %q, want %s", fd, target, os.DevNull)
		}
	}
	if !slices.Equal(r.Args, argv) {
		t.Errorf("child argv = %q, want %q", r.Args, argv)
	}
	if wd, _ := os.Getwd(); r.Cwd != wd {
		t.Errorf("child cwd = %q, want %q", r.Cwd, wd)
	}
	if r.HelperValue != "daemon" {
		t.Errorf("child environment not inherited: %q", r.HelperValue)
	}
}
