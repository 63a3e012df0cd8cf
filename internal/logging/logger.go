package logging

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Options configures New. The zero value logs notice and above to stdout
// with the real pid and clock.
type Options struct {
	// Level is the minimum level written; the zero value is LevelNotice.
	Level Level
	// File is the log file path, opened O_APPEND|O_CREATE with mode 0644;
	// "" means standard output (Redis's `logfile ""`).
	File string
	// PID is printed at the start of every line; 0 means os.Getpid().
	PID int
	// Now is the clock lines are stamped with; nil means time.Now. The
	// timestamp is printed in the location of the returned time.
	Now func() time.Time
	// Writer, if non-nil, receives the lines instead of File or stdout
	// (for tests). The logger serialises writes to it and never closes it.
	Writer io.Writer
	// Format is the line format; the zero value is Redis's.
	Format Format
}

// Logger writes Redis-format log lines through a zap.Logger. All methods are
// safe for concurrent use; each line is one write to the destination.
type Logger struct {
	z      *zap.Logger
	level  *LevelVar
	sink   *sink
	pid    int
	now    func() time.Time
	format Format
}

// clock adapts a func() time.Time to zapcore.Clock.
type clock func() time.Time

func (c clock) Now() time.Time                         { return c() }
func (c clock) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// New returns a Logger configured by opts. It fails only when the log file
// cannot be opened; the error wraps the *os.PathError.
func New(opts Options) (*Logger, error) {
	s, err := newSink(opts.File, opts.Writer)
	if err != nil {
		return nil, err
	}
	pid := opts.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	level := NewLevelVar(opts.Level)
	var core zapcore.Core
	if opts.Format == FormatJSON {
		core = zapcore.NewCore(newJSONEncoder(), s, level.atom).With([]zapcore.Field{zap.Int("pid", pid)})
	} else {
		core = zapcore.NewCore(newLineEncoder(pid), s, level.atom)
	}
	return &Logger{
		z:      zap.New(core, zap.WithClock(clock(now))),
		level:  level,
		sink:   s,
		pid:    pid,
		now:    now,
		format: opts.Format,
	}, nil
}

// Format returns the line format.
func (l *Logger) Format() Format { return l.format }

// Zap returns the underlying zap.Logger. Its Debug is Redis's verbose, Info
// is notice, Warn and above are warning; Redis's debug is zap level -2.
func (l *Logger) Zap() *zap.Logger { return l.z }

// Level returns the current minimum level.
func (l *Logger) Level() Level { return l.level.Level() }

// SetLevel changes the minimum level; it takes effect for the next line.
func (l *Logger) SetLevel(level Level) { l.level.SetLevel(level) }

// LevelVar returns the variable holding the logger's minimum level, for
// the parts of the process that read or change it (SENTINEL CONFIG
// GET/SET loglevel, the config rewrite).
func (l *Logger) LevelVar() *LevelVar { return l.level }

// Enabled reports whether a line at level would be written. LevelNothing is
// never a line's level, so Enabled(LevelNothing) is false.
func (l *Logger) Enabled(level Level) bool {
	return level != LevelNothing && l.level.atom.Enabled(level.ZapLevel())
}

// Log writes msg at level if level is enabled.
func (l *Logger) Log(level Level, msg string) {
	if !l.Enabled(level) {
		return
	}
	if ce := l.z.Check(level.ZapLevel(), msg); ce != nil {
		ce.Write()
	}
}

// LogFields writes msg at level with structured fields if level is
// enabled. The fields are written in FormatJSON only: a FormatRedis line
// is msg alone, byte for byte what Log writes, as redis-sentinel's lines
// have no fields. (Fields given through Zap are always written.)
func (l *Logger) LogFields(level Level, msg string, fields ...zap.Field) {
	if !l.Enabled(level) {
		return
	}
	if l.format != FormatJSON {
		fields = nil
	}
	if ce := l.z.Check(level.ZapLevel(), msg); ce != nil {
		ce.Write(fields...)
	}
}

// Logf formats with fmt.Sprintf and writes the result at level; nothing is
// formatted when level is disabled.
func (l *Logger) Logf(level Level, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	l.Log(level, fmt.Sprintf(format, args...))
}

// Debug writes msg at LevelDebug ('.').
func (l *Logger) Debug(msg string) { l.Log(LevelDebug, msg) }

// Verbose writes msg at LevelVerbose ('-').
func (l *Logger) Verbose(msg string) { l.Log(LevelVerbose, msg) }

// Notice writes msg at LevelNotice ('*').
func (l *Logger) Notice(msg string) { l.Log(LevelNotice, msg) }

// Warning writes msg at LevelWarning ('#').
func (l *Logger) Warning(msg string) { l.Log(LevelWarning, msg) }

// Debugf is Logf at LevelDebug.
func (l *Logger) Debugf(format string, args ...any) { l.Logf(LevelDebug, format, args...) }

// Verbosef is Logf at LevelVerbose.
func (l *Logger) Verbosef(format string, args ...any) { l.Logf(LevelVerbose, format, args...) }

// Noticef is Logf at LevelNotice.
func (l *Logger) Noticef(format string, args ...any) { l.Logf(LevelNotice, format, args...) }

// Warningf is Logf at LevelWarning.
func (l *Logger) Warningf(format string, args ...any) { l.Logf(LevelWarning, format, args...) }

// Raw writes text unchanged (no prefix, no newline added) if level is
// enabled, like Redis's LL_RAW lines (the ASCII logo). In FormatJSON the
// text is a line's msg instead, without its trailing newline.
func (l *Logger) Raw(level Level, text string) error {
	if !l.Enabled(level) {
		return nil
	}
	if l.format == FormatJSON {
		l.Log(level, strings.TrimSuffix(text, "\n"))
		return nil
	}
	_, err := l.sink.Write([]byte(text))
	return err
}

// Reopen re-opens the log file by path, so lines go to a new file after the
// old one was renamed away (call it on SIGHUP). It does nothing when logging
// to stdout or to Options.Writer.
func (l *Logger) Reopen() error { return l.sink.Reopen() }

// Sync flushes the log file to disk (fsync); for stdout it does nothing.
func (l *Logger) Sync() error { return l.z.Sync() }

// Close closes the log file; lines logged afterwards are lost and zap
// reports the write error on stderr. It is idempotent.
func (l *Logger) Close() error { return l.sink.Close() }
