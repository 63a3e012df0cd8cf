package process

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// EnvDaemonChild is the environment variable, set to "1", that marks a
// process as the re-executed daemon child. The child removes it from its own
// environment on first use, so programs it runs (notification scripts) do
// not inherit it.
const EnvDaemonChild = "GO_SENTINEL_DAEMON_CHILD"

// selfExe is the path the daemon child is executed from: the running binary
// itself, even if it was replaced or deleted on disk since it started.
const selfExe = "/proc/self/exe"

var (
	childOnce sync.Once
	isChild   bool
)

// daemonChild reports whether EnvDaemonChild was "1" when first called, and
// removes the variable from the environment.
func daemonChild() bool {
	childOnce.Do(func() {
		if v, ok := os.LookupEnv(EnvDaemonChild); ok {
			isChild = v == "1"
			_ = os.Unsetenv(EnvDaemonChild)
		}
	})
	return isChild
}

// IsDaemonChild reports whether this process is the background child started
// by Daemonize in its parent.
func IsDaemonChild() bool { return daemonChild() }

// Daemonize is Redis's `daemonize yes` for Go. In the foreground process it
// starts a copy of the running binary with argument vector argv (argv[0]
// included, so base-name checks such as "redis-sentinel" still see it; nil
// means os.Args), in a new session (setsid), with stdin, stdout and stderr on
// /dev/null, the same working directory and environment plus EnvDaemonChild,
// and returns isParent=true once the child has been executed; the caller
// then exits 0. In the child it returns false and does nothing else.
//
// The child re-parses argv from scratch, so the caller should pass argv with
// the config file path already made absolute: Redis resolves it before
// daemonizing, and the child must not depend on the parent's relative paths.
func Daemonize(argv []string) (isParent bool, err error) {
	if daemonChild() {
		return false, nil
	}
	if argv == nil {
		argv = os.Args
	}
	if len(argv) == 0 {
		return false, fmt.Errorf("process: daemonize: %w", ErrEmptyArgv)
	}
	cmd := daemonCmd(argv, os.Environ())
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("process: daemonize: %w", err)
	}
	if err := cmd.Process.Release(); err != nil {
		return true, fmt.Errorf("process: daemonize: release child: %w", err)
	}
	return true, nil
}

// daemonCmd returns the command Daemonize starts: selfExe with Args argv,
// environment env without any previous EnvDaemonChild plus EnvDaemonChild=1,
// a new session, and nil stdio, which exec.Cmd connects to /dev/null.
func daemonCmd(argv, env []string) *exec.Cmd {
	childEnv := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvDaemonChild+"=") {
			childEnv = append(childEnv, kv)
		}
	}
	childEnv = append(childEnv, EnvDaemonChild+"=1")
	return &exec.Cmd{
		Path:        selfExe,
		Args:        append([]string(nil), argv...),
		Env:         childEnv,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
}
