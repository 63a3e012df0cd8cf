package msg

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
