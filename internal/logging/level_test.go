package logging

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    Level
		wantErr bool
	}{
		{"debug", LevelDebug, false},
		{"verbose", LevelVerbose, false},
		{"notice", LevelNotice, false},
		{"warning", LevelWarning, false},
		{"nothing", LevelNothing, false},
		{"WARNING", LevelWarning, false},
		{"Notice", LevelNotice, false},
		{"", 0, true},
		{"warn", 0, true},
		{"info", 0, true},
		{"error", 0, true},
		{" notice", 0, true},
		{"notice ", 0, true},
		{"debug1", 0, true},
		{"2", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalidLevel) {
				t.Errorf("ParseLevel(%q) error = %v, want ErrInvalidLevel", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestErrInvalidLevelText(t *testing.T) {
	_, err := ParseLevel("loud")
	const want = "argument(s) must be one of the following: debug, verbose, notice, warning"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestLevelStringRoundTrip(t *testing.T) {
	for _, l := range []Level{LevelDebug, LevelVerbose, LevelNotice, LevelWarning, LevelNothing} {
		got, err := ParseLevel(l.String())
		if err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", l.String(), got, err, l)
		}
	}
	if s := Level(3).String(); s != "Level(3)" {
		t.Errorf("Level(3).String() = %q", s)
	}
}

func TestLevelOrder(t *testing.T) {
	if !(LevelDebug < LevelVerbose && LevelVerbose < LevelNotice && LevelNotice < LevelWarning && LevelWarning < LevelNothing) {
		t.Fatal("levels are not strictly increasing")
	}
	if LevelVerbose.ZapLevel() != zapcore.DebugLevel || LevelNotice.ZapLevel() != zapcore.InfoLevel ||
		LevelWarning.ZapLevel() != zapcore.WarnLevel {
		t.Fatal("unexpected zap mapping")
	}
	var zero Level
	if zero != LevelNotice {
		t.Fatal("zero Level is not notice")
	}
}

// TestLevelVarIsTheLoggersLevel checks that the logger filters with its
// LevelVar: a change made through the variable is the logger's level.
func TestLevelVarIsTheLoggersLevel(t *testing.T) {
	l, buf := newTestLogger(t, LevelNotice)
	v := l.LevelVar()
	if v.Level() != LevelNotice || v.String() != "notice" {
		t.Fatalf("LevelVar = %v", v)
	}
	l.Debug("hidden")
	v.SetLevel(LevelDebug)
	if l.Level() != LevelDebug || v.String() != "debug" {
		t.Fatalf("Level() = %v after SetLevel through the variable", l.Level())
	}
	l.Debug("shown")
	l.SetLevel(LevelNothing)
	if v.Level() != LevelNothing {
		t.Fatalf("variable = %v after Logger.SetLevel", v.Level())
	}
	l.Warning("hidden")
	if got := buf.String(); strings.Contains(got, "hidden") || !strings.Contains(got, ". shown") {
		t.Fatalf("output %q", got)
	}
	if NewLevelVar(LevelWarning).String() != "warning" {
		t.Fatal("NewLevelVar does not hold its level")
	}
}
