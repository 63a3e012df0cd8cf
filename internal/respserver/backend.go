package respserver

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// Backend is how the RESP server reaches the Sentinel core. The core is
// owned by one goroutine; Exec hands fn to it and waits. A handler sees
// the core only as a monitor.Handle: it changes it by Step alone.
type Backend interface {
	// Exec runs fn on the goroutine that owns the core, with the core's
	// Handle, then carries out what the core asked for (persisting the
	// config among others) before it returns. The error is
	// monitor.ErrStopped once the loop has stopped.
	Exec(fn func(core monitor.Handle, now time.Time)) (monitor.Outcome, error)
	// View returns the core's latest published View without waiting for
	// the goroutine that owns the core; the read-only queries answer from
	// it. It is never older than anything the owner has announced (a
	// pub/sub event, a log line, a reply to a command that changed the
	// core), and nil once the owner has stopped.
	View() *view.View
	// Shutdown asks the process to stop gracefully (SHUTDOWN command).
	Shutdown()
	// LogLevel returns the current loglevel; SetLogLevel changes it (the
	// level is valid) and is called on the core's loop, inside Exec, so
	// that the config rewrite that follows includes it.
	LogLevel() string
	SetLogLevel(level string)
}

// Logger is the logging the RESP server needs; the process logger
// implements it.
type Logger interface {
	Debugf(format string, args ...any)
	Verbosef(format string, args ...any)
	Noticef(format string, args ...any)
	Warningf(format string, args ...any)
}

type nopLogger struct{}

func (nopLogger) Debugf(string, ...any)   {}
func (nopLogger) Verbosef(string, ...any) {}
func (nopLogger) Noticef(string, ...any)  {}
func (nopLogger) Warningf(string, ...any) {}
