package monitor

import (
	"strconv"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/scriptq"
)

// runScripts starts the runs that are due and kills those that ran too
// long (§14.2). Called once per tick.
func (s *Sentinel) runScripts(now int64) {
	for _, st := range s.scripts.StartDue(now) {
		s.out.act(msg.StartScript{ID: st.ID, Path: st.Argv[0], Args: st.Argv[1:]})
	}
	for _, o := range s.scripts.Overdue(now, s.timing.ScriptMaxRuntimeMs) {
		s.event(event.LevelWarning, event.ScriptTimeout, nil, o.Path+" "+strconv.Itoa(o.PID))
		s.out.act(msg.KillScript{ID: o.ID})
	}
}

// scriptExited applies how a script ended (scriptq.Queue.Exited) and
// emits Redis's events: -script-child-end for a process that ran, and
// -script-error with 99 for one that could not start, or with the signal
// and code of one that failed for good.
func (s *Sentinel) scriptExited(in msg.ScriptExited, now int64) {
	o := s.scripts.Exited(in.ID, scriptq.Exit{Code: in.ExitCode, Signal: in.Signal, StartFailed: in.StartFailed},
		now, s.timing.ScriptRetryDelayMs)
	switch {
	case !o.Known:
		return
	case in.StartFailed:
		s.event(event.LevelWarning, event.ScriptError, nil, o.Path+" 99 0")
		return
	}
	sig := strconv.Itoa(in.Signal)
	s.event(event.LevelDebug, event.ScriptChildEnd, nil, strconv.Itoa(o.PID)+" "+strconv.Itoa(in.ExitCode)+" "+sig)
	if o.Failed {
		s.event(event.LevelWarning, event.ScriptError, nil, o.Path+" "+sig+" "+strconv.Itoa(in.ExitCode))
	}
}

// scriptStarted records a started script's pid and emits -script-child.
func (s *Sentinel) scriptStarted(in msg.ScriptStarted) {
	if s.scripts.Started(in.ID, in.PID) {
		s.event(event.LevelDebug, event.ScriptChild, nil, strconv.Itoa(in.PID))
	}
}

// PendingScripts lists the script queue (SENTINEL PENDING-SCRIPTS).
func (s *Sentinel) PendingScripts(at time.Time) []scriptq.Pending { return s.scripts.Pending(ms(at)) }
