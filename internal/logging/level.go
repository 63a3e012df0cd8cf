package logging

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Level is a Redis log level. Its numeric value is the zap level it is
// written at, so a Level converts to zapcore.Level without a table:
//
//	LevelDebug   = zapcore.DebugLevel-1 (-2)   '.'
//	LevelVerbose = zapcore.DebugLevel   (-1)   '-'
//	LevelNotice  = zapcore.InfoLevel    ( 0)   '*'
//	LevelWarning = zapcore.WarnLevel    ( 1)   '#'
//	LevelNothing = math.MaxInt8         (127)  threshold only
//
// Redis's debug sits one step below zap's debug so that verbose can map onto
// zap's debug and stay strictly between debug and notice. Entries written
// through Logger.Zap at zap's Error level or above are printed with '#'.
// The zero Level is LevelNotice, Redis's default loglevel.
type Level int8

// The Redis log levels, from least to most important, plus LevelNothing,
// which as a threshold disables every line and is never a line's level.
const (
	LevelDebug   = Level(zapcore.DebugLevel) - 1
	LevelVerbose = Level(zapcore.DebugLevel)
	LevelNotice  = Level(zapcore.InfoLevel)
	LevelWarning = Level(zapcore.WarnLevel)
	LevelNothing = Level(math.MaxInt8)
)

// ErrInvalidLevel is returned by ParseLevel for an unknown name. Its text is
// the error redis-server 7.0.15 prints for a bad `loglevel` argument.
var ErrInvalidLevel = errors.New("argument(s) must be one of the following: debug, verbose, notice, warning")

// ParseLevel parses a `loglevel` argument ("debug", "verbose", "notice",
// "warning" or "nothing"), ignoring case as Redis does. On failure it returns
// ErrInvalidLevel unwrapped, so its Error text is exactly Redis's message.
// "nothing" is a Redis 7.2 addition accepted here as well.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return LevelDebug, nil
	case "verbose":
		return LevelVerbose, nil
	case "notice":
		return LevelNotice, nil
	case "warning":
		return LevelWarning, nil
	case "nothing":
		return LevelNothing, nil
	}
	return LevelNotice, ErrInvalidLevel
}

// String returns the Redis name of l ("debug", ..., "nothing"), as CONFIG GET
// and config rewrite print it, or "Level(<n>)" for a value without a name.
func (l Level) String() string {
	switch l {
	case LevelDebug:
		return "debug"
	case LevelVerbose:
		return "verbose"
	case LevelNotice:
		return "notice"
	case LevelWarning:
		return "warning"
	case LevelNothing:
		return "nothing"
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}

// ZapLevel returns the zap level l is written at.
func (l Level) ZapLevel() zapcore.Level { return zapcore.Level(l) }

// levelChar returns the character Redis prints for a line at zap level z:
// anything below verbose is debug, anything above notice is warning.
func levelChar(z zapcore.Level) byte {
	switch {
	case z <= zapcore.Level(LevelDebug):
		return '.'
	case z == zapcore.Level(LevelVerbose):
		return '-'
	case z == zapcore.Level(LevelNotice):
		return '*'
	default:
		return '#'
	}
}

// LevelVar is a minimum log level that any goroutine may read and change.
// It is the one owner of the process's log level: the logger filters with
// it (see Logger.LevelVar), and SENTINEL CONFIG GET/SET loglevel and the
// config rewrite read and change it there rather than keeping copies.
type LevelVar struct{ atom zap.AtomicLevel }

// NewLevelVar returns a LevelVar holding l.
func NewLevelVar(l Level) *LevelVar {
	return &LevelVar{atom: zap.NewAtomicLevelAt(l.ZapLevel())}
}

// Level returns the level held.
func (v *LevelVar) Level() Level { return Level(v.atom.Level()) }

// SetLevel changes the level held; a logger filtering with v applies it
// from its next line.
func (v *LevelVar) SetLevel(l Level) { v.atom.SetLevel(l.ZapLevel()) }

// String returns the name of the level held, as CONFIG GET and the
// config rewrite print it.
func (v *LevelVar) String() string { return v.Level().String() }
