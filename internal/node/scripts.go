package node

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// scriptRunner runs notification and client-reconfig scripts for the
// core: each as a direct child of this process (Redis's leaked-fd check
// inspects the parent), with only stdin/stdout/stderr inherited (Go opens
// every other descriptor close-on-exec).
type scriptRunner struct {
	deliver func(msg.Input)

	mu    sync.Mutex
	procs map[uint64]*os.Process
	wg    sync.WaitGroup
}

func newScriptRunner(deliver func(msg.Input)) *scriptRunner {
	return &scriptRunner{deliver: deliver, procs: map[uint64]*os.Process{}}
}

// KillScript sends SIGKILL to a running script; its exit is reported as
// usual.
func (r *scriptRunner) KillScript(a msg.KillScript) {
	r.mu.Lock()
	if p := r.procs[a.ID]; p != nil {
		_ = p.Kill()
	}
	r.mu.Unlock()
}

// StartScript runs a script as a direct child, like Redis's fork+execve:
// ScriptStarted then ScriptExited follow. A program that cannot be
// executed is reported as Redis's child reports a failed execve (exit
// code 2, not retried); a failure to create the process at all (fork
// failed: no memory, too many processes or files) as StartFailed, which
// the core retries. It never waits for the script.
func (r *scriptRunner) StartScript(a msg.StartScript) {
	cmd := exec.Command(a.Path, a.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		exited := msg.ScriptExited{ID: a.ID, StartFailed: true}
		if execFailed(err) {
			exited = msg.ScriptExited{ID: a.ID, ExitCode: 2}
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if !exited.StartFailed {
				r.deliver(msg.ScriptStarted{ID: a.ID, PID: 0})
			}
			r.deliver(exited)
		}()
		return
	}
	r.mu.Lock()
	r.procs[a.ID] = cmd.Process
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.deliver(msg.ScriptStarted{ID: a.ID, PID: cmd.Process.Pid})
		err := cmd.Wait()
		r.mu.Lock()
		delete(r.procs, a.ID)
		r.mu.Unlock()
		ex := msg.ScriptExited{ID: a.ID}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = int(ws.Signal())
		} else if err != nil {
			ex.ExitCode = cmd.ProcessState.ExitCode()
		}
		r.deliver(ex)
	}()
}

// execFailed reports whether a Start error is one Redis sees in its child
// as a failed execve (the program is missing, not executable, not a
// binary or script), as opposed to a failure to create the process.
func execFailed(err error) bool {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return true // not found in PATH
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EAGAIN, syscall.ENOMEM, syscall.EMFILE, syscall.ENFILE:
		return false
	}
	return true
}

// Close kills running scripts and waits for their goroutines.
func (r *scriptRunner) Close() {
	r.mu.Lock()
	for _, p := range r.procs {
		p.Kill()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
