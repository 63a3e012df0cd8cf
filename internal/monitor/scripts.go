package monitor

import (
	"strconv"
	"time"
)

// Script limits of Redis 7.0 (§14.2).
const (
	scriptMaxQueue   = 256
	scriptMaxRunning = 16
	scriptMaxRetry   = 10
)

// StartScript asks the script adapter to run Path with Args (argv[0] is
// Path), as a direct child with no inherited descriptors beyond 0-2, and to
// report ScriptStarted then ScriptExited (or ScriptExited alone if it
// could not start).
type StartScript struct {
	ID   uint64
	Path string
	Args []string
}

// KillScript asks the adapter to SIGKILL a running script.
type KillScript struct{ ID uint64 }

func (StartScript) isAction() {}
func (KillScript) isAction()  {}

// ScriptStarted reports the pid of a started script.
type ScriptStarted struct {
	ID  uint64
	PID int
}

// ScriptExited reports how a script ended: its exit code, or the number of
// the signal that killed it. StartFailed means no process could be created
// (Redis's failed fork, reported as -script-error with 99); a program that
// could not be executed is a process that exited with 2, as in Redis.
type ScriptExited struct {
	ID          uint64
	ExitCode    int
	Signal      int // 0 unless killed by a signal
	StartFailed bool
}

func (ScriptStarted) isInput() {}
func (ScriptExited) isInput()  {}

// scriptJob is one queued script run.
type scriptJob struct {
	id        uint64
	argv      []string // path first
	running   bool
	pid       int
	startTime int64 // when it started running, or when it may run (0 = now)
	retryNum  int
}

// scheduleScript queues a script run; when the queue is full the oldest
// job that is not running is dropped.
func (s *Sentinel) scheduleScript(path string, args ...string) {
	s.nextScriptID++
	s.scripts = append(s.scripts, &scriptJob{id: s.nextScriptID, argv: append([]string{path}, args...)})
	if len(s.scripts) > scriptMaxQueue {
		for k, j := range s.scripts {
			if !j.running {
				s.scripts = append(s.scripts[:k], s.scripts[k+1:]...)
				break
			}
		}
	}
}

// runScripts starts eligible jobs, oldest first, up to the running limit,
// and kills jobs that ran too long (§14.2). Called once per tick.
func (s *Sentinel) runScripts(now int64) {
	running := 0
	for _, j := range s.scripts {
		if j.running {
			running++
		}
	}
	for _, j := range s.scripts {
		if running >= scriptMaxRunning {
			break
		}
		if j.running || (j.startTime != 0 && j.startTime > now) {
			continue
		}
		j.running = true
		j.startTime = now
		j.retryNum++
		running++
		s.act(StartScript{ID: j.id, Path: j.argv[0], Args: append([]string(nil), j.argv[1:]...)})
	}
	for _, j := range s.scripts {
		if j.running && j.pid != 0 && now-j.startTime > s.timing.ScriptMaxRuntime.Milliseconds() {
			s.event(LevelWarning, EventScriptTimeout, nil, j.argv[0]+" "+strconv.Itoa(j.pid))
			s.act(KillScript{ID: j.id})
		}
	}
}

func (s *Sentinel) findScript(id uint64) (int, *scriptJob) {
	for k, j := range s.scripts {
		if j.id == id {
			return k, j
		}
	}
	return -1, nil
}

func (s *Sentinel) scriptStarted(in ScriptStarted) {
	if _, j := s.findScript(in.ID); j != nil {
		j.pid = in.PID
		s.event(LevelDebug, EventScriptChild, nil, strconv.Itoa(in.PID))
	}
}

// scriptExited applies how a script ended, as Redis's
// sentinelCollectTerminatedScripts does: a script killed by a signal or
// exiting with 1 is retried after a doubling delay until the retry limit;
// otherwise it leaves the queue, with -script-error unless it exited 0.
// A script that could not be started at all (Redis's failed fork) emits
// -script-error with 99 and stays queued, to be started again.
func (s *Sentinel) scriptExited(in ScriptExited, now int64) {
	k, j := s.findScript(in.ID)
	if j == nil {
		return
	}
	if in.StartFailed {
		s.event(LevelWarning, EventScriptError, nil, j.argv[0]+" 99 0")
		j.running = false
		j.pid = 0
		return
	}
	sig := strconv.Itoa(in.Signal)
	s.event(LevelDebug, EventScriptChildEnd, nil, strconv.Itoa(j.pid)+" "+strconv.Itoa(in.ExitCode)+" "+sig)
	if (in.ExitCode == 1 || in.Signal != 0) && j.retryNum != scriptMaxRetry {
		j.running = false
		j.pid = 0
		j.startTime = now + s.scriptRetryDelay(j.retryNum)
		return
	}
	if in.Signal != 0 || in.ExitCode != 0 {
		s.event(LevelWarning, EventScriptError, nil, j.argv[0]+" "+sig+" "+strconv.Itoa(in.ExitCode))
	}
	s.scripts = append(s.scripts[:k], s.scripts[k+1:]...)
}

// scriptRetryDelay is SCRIPT-RETRY-DELAY doubled for every run after the
// first.
func (s *Sentinel) scriptRetryDelay(retryNum int) int64 {
	d := s.timing.ScriptRetryDelay.Milliseconds()
	for ; retryNum > 1; retryNum-- {
		d *= 2
	}
	return d
}

// PendingScript is one entry of SENTINEL PENDING-SCRIPTS.
type PendingScript struct {
	Argv     []string
	Running  bool
	PID      int
	RunTime  time.Duration // running: how long it has run
	RunDelay time.Duration // scheduled: how long until it may run (≥ 0)
	RetryNum int
}

// PendingScripts lists the script queue.
func (s *Sentinel) PendingScripts(at time.Time) []PendingScript {
	now := ms(at)
	out := make([]PendingScript, 0, len(s.scripts))
	for _, j := range s.scripts {
		p := PendingScript{Argv: append([]string(nil), j.argv...), Running: j.running, PID: j.pid, RetryNum: j.retryNum}
		if j.running {
			p.RunTime = msDuration(now - j.startTime)
		} else if j.startTime > now {
			p.RunDelay = msDuration(j.startTime - now)
		}
		out = append(out, p)
	}
	return out
}

// ScriptCounts returns the running scripts and the queue length, for INFO.
func (s *Sentinel) ScriptCounts() (running, queued int) {
	for _, j := range s.scripts {
		if j.running {
			running++
		}
	}
	return running, len(s.scripts)
}
