package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"go.uber.org/zap"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		err  error
	}{
		{"redis", FormatRedis, nil},
		{"json", FormatJSON, nil},
		{"JSON", FormatJSON, nil},
		{"Redis", FormatRedis, nil},
		{"logfmt", FormatRedis, ErrInvalidFormat},
		{"", FormatRedis, ErrInvalidFormat},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && got.String() != map[Format]string{FormatRedis: "redis", FormatJSON: "json"}[got] {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

func newFormatLogger(t *testing.T, f Format, level Level) (*Logger, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	l, err := New(Options{Level: level, PID: 12345, Now: fixedNow, Writer: &buf, Format: f})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l, &buf
}

const jsonHead = `"ts":"2026-11-29T20:22:31.475Z"`

func TestJSONLines(t *testing.T) {
	tests := []struct {
		name string
		log  func(*Logger)
		want string
	}{
		{"debug", func(l *Logger) { l.Debug("d") }, `{"level":"debug",` + jsonHead + `,"msg":"d","pid":12345}` + "\n"},
		{"verbose", func(l *Logger) { l.Verbose("v") }, `{"level":"verbose",` + jsonHead + `,"msg":"v","pid":12345}` + "\n"},
		{"notice", func(l *Logger) { l.Notice("Sentinel ID is abc") }, `{"level":"notice",` + jsonHead + `,"msg":"Sentinel ID is abc","pid":12345}` + "\n"},
		{"warning", func(l *Logger) { l.Warningf("+odown master %s #quorum %d/%d", "m", 2, 2) },
			`{"level":"warning",` + jsonHead + `,"msg":"+odown master m #quorum 2/2","pid":12345}` + "\n"},
		{"fields", func(l *Logger) {
			l.LogFields(LevelWarning, "+sdown master m 127.0.0.1 7000", zap.String("type", "+sdown"), zap.Int("port", 7000), zap.Uint64("epoch", 3))
		}, `{"level":"warning",` + jsonHead + `,"msg":"+sdown master m 127.0.0.1 7000","pid":12345,"type":"+sdown","port":7000,"epoch":3}` + "\n"},
		{"quoting", func(l *Logger) { l.Notice("a \"b\"\n") }, `{"level":"notice",` + jsonHead + `,"msg":"a \"b\"\n","pid":12345}` + "\n"},
		{"signal handler", func(l *Logger) { _ = l.LogFromHandler(LevelWarning, "Received SIGTERM scheduling shutdown...") },
			`{"level":"warning",` + jsonHead + `,"msg":"Received SIGTERM scheduling shutdown...","pid":12345,"signal_handler":true}` + "\n"},
		{"raw", func(l *Logger) { _ = l.Raw(LevelNotice, "logo\n") }, `{"level":"notice",` + jsonHead + `,"msg":"logo","pid":12345}` + "\n"},
		{"filtered", func(l *Logger) { l.LogFields(LevelDebug, "x", zap.Int("a", 1)) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, buf := newFormatLogger(t, FormatJSON, LevelVerbose)
			if tt.name == "debug" {
				l.SetLevel(LevelDebug)
			}
			tt.log(l)
			if got := buf.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if buf.Len() > 0 && !json.Valid(buf.Bytes()) {
				t.Errorf("not JSON: %q", buf.String())
			}
		})
	}
}

// TestRedisFormatDropsFields pins that LogFields in the default format
// writes exactly what Log writes: redis-sentinel's lines have no fields.
func TestRedisFormatDropsFields(t *testing.T) {
	l, buf := newFormatLogger(t, FormatRedis, LevelNotice)
	l.LogFields(LevelWarning, "+sdown master m 127.0.0.1 7000", zap.String("type", "+sdown"), zap.Int("port", 7000))
	l.Warning("+sdown master m 127.0.0.1 7000")
	want := stamp + "# +sdown master m 127.0.0.1 7000\n"
	if buf.String() != want+want {
		t.Fatalf("got %q, want %q twice", buf.String(), want)
	}
	if l.Format() != FormatRedis {
		t.Fatalf("Format() = %v", l.Format())
	}
}
