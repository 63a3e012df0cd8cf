package logging

import (
	"errors"
	"strings"

	"go.uber.org/zap/zapcore"
)

// Format is how lines are written: Redis's line format (the default, byte
// for byte redis-sentinel's) or one JSON object per line (`log-format
// json`, a go-sentinel extension).
type Format int

// The formats.
const (
	FormatRedis Format = iota
	FormatJSON
)

// ErrInvalidFormat is returned by ParseFormat for an unknown name; its
// text is the config parser's message for a bad `log-format`.
var ErrInvalidFormat = errors.New("argument(s) must be one of the following: redis, json")

// ParseFormat parses a `log-format` argument ("redis" or "json"), ignoring
// case.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "redis":
		return FormatRedis, nil
	case "json":
		return FormatJSON, nil
	}
	return FormatRedis, ErrInvalidFormat
}

// String returns the directive's name of f.
func (f Format) String() string {
	if f == FormatJSON {
		return "json"
	}
	return "redis"
}

// jsonTimeLayout is the "ts" of a JSON line: RFC 3339 with milliseconds,
// in the location of the entry's time (local, as Redis's lines).
const jsonTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// newJSONEncoder returns the encoder of FormatJSON lines:
//
//	{"level":"warning","ts":"2026-11-29T20:22:31.475Z","msg":"...","pid":12345,...}
//
// level is Redis's name of the level (debug, verbose, notice, warning);
// the fields given with a line follow pid.
func newJSONEncoder() zapcore.Encoder {
	return zapcore.NewJSONEncoder(zapcore.EncoderConfig{
		LevelKey:       "level",
		TimeKey:        "ts",
		MessageKey:     "msg",
		LineEnding:     "\n",
		EncodeLevel:    encodeRedisLevel,
		EncodeTime:     zapcore.TimeEncoderOfLayout(jsonTimeLayout),
		EncodeDuration: zapcore.MillisDurationEncoder,
	})
}

// encodeRedisLevel writes the Redis name of the level a zap entry is
// written at (see levelChar).
func encodeRedisLevel(z zapcore.Level, enc zapcore.PrimitiveArrayEncoder) {
	switch levelChar(z) {
	case '.':
		enc.AppendString("debug")
	case '-':
		enc.AppendString("verbose")
	case '*':
		enc.AppendString("notice")
	default:
		enc.AppendString("warning")
	}
}
