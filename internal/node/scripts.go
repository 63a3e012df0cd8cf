package node

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// scriptRunner runs notification and client-reconfig scripts for the
// core: each as a direct child of this process (Redis's leaked-fd check
// inspects the parent), with only stdin/stdout/stderr inherited (Go opens
// every other descriptor close-on-exec).
type scriptRunner struct {
	deliver func(monitor.Input)

	mu    sync.Mutex
	procs map[uint64]*os.Process
	wg    sync.WaitGroup
}

func newScriptRunner(deliver func(monitor.Input)) *scriptRunner {
	return &scriptRunner{deliver: deliver, procs: map[uint64]*os.Process{}}
}

// Apply carries out StartScript and KillScript; it never blocks.
func (r *scriptRunner) Apply(a monitor.Action) bool {
	switch a := a.(type) {
	case monitor.StartScript:
		r.start(a)
	case monitor.KillScript:
		r.mu.Lock()
		if p := r.procs[a.ID]; p != nil {
			p.Kill()
		}
		r.mu.Unlock()
	default:
		return false
	}
	return true
}

func (r *scriptRunner) start(a monitor.StartScript) {
	cmd := exec.Command(a.Path, a.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		// A path that cannot be executed is, in Redis, a forked child
		// whose exec failed: exit code 2.
		var ee *exec.Error
		var pe *os.PathError
		code := 2
		if !errors.As(err, &ee) && !errors.As(err, &pe) {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.deliver(monitor.ScriptExited{ID: a.ID, StartFailed: true})
			}()
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.deliver(monitor.ScriptStarted{ID: a.ID, PID: 0})
			r.deliver(monitor.ScriptExited{ID: a.ID, ExitCode: code})
		}()
		return
	}
	r.mu.Lock()
	r.procs[a.ID] = cmd.Process
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.deliver(monitor.ScriptStarted{ID: a.ID, PID: cmd.Process.Pid})
		err := cmd.Wait()
		r.mu.Lock()
		delete(r.procs, a.ID)
		r.mu.Unlock()
		ex := monitor.ScriptExited{ID: a.ID}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = int(ws.Signal())
		} else if err != nil {
			ex.ExitCode = cmd.ProcessState.ExitCode()
		}
		r.deliver(ex)
	}()
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
