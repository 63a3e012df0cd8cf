package logging

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// fixedNow is 29 Nov 2026 20:22:31.475999999 UTC; Redis truncates to .475.
func fixedNow() time.Time {
	return time.Date(2026, time.November, 29, 20, 22, 31, 475_999_999, time.UTC)
}

const stamp = "12345:X 29 Nov 2026 20:22:31.475 "

func newTestLogger(t *testing.T, level Level) (*Logger, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	l, err := New(Options{Level: level, PID: 12345, Now: fixedNow, Writer: &buf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l, &buf
}

func TestLineFormatPerLevel(t *testing.T) {
	tests := []struct {
		name string
		log  func(*Logger)
		want string
	}{
		{"debug", func(l *Logger) { l.Debug("dbg msg") }, stamp + ". dbg msg\n"},
		{"verbose", func(l *Logger) { l.Verbose("+role-change slave x") }, stamp + "- +role-change slave x\n"},
		{"notice", func(l *Logger) { l.Notice("Sentinel new configuration saved on disk") }, stamp + "* Sentinel new configuration saved on disk\n"},
		{"warning", func(l *Logger) { l.Warning("+sdown master mymaster 127.0.0.1 7000") }, stamp + "# +sdown master mymaster 127.0.0.1 7000\n"},
		{"debugf", func(l *Logger) { l.Debugf("x=%d", 1) }, stamp + ". x=1\n"},
		{"verbosef", func(l *Logger) { l.Verbosef("%s", "v") }, stamp + "- v\n"},
		{"noticef", func(l *Logger) { l.Noticef("Sentinel ID is %s", "abc") }, stamp + "* Sentinel ID is abc\n"},
		{"warningf", func(l *Logger) { l.Warningf("+odown master %s #quorum %d/%d", "m", 2, 2) }, stamp + "# +odown master m #quorum 2/2\n"},
		{"log", func(l *Logger) { l.Log(LevelWarning, "+tilt #tilt mode entered") }, stamp + "# +tilt #tilt mode entered\n"},
		{"empty message", func(l *Logger) { l.Notice("") }, stamp + "* \n"},
		{"zap debug is verbose", func(l *Logger) { l.Zap().Debug("z") }, stamp + "- z\n"},
		{"zap info is notice", func(l *Logger) { l.Zap().Info("z") }, stamp + "* z\n"},
		{"zap warn is warning", func(l *Logger) { l.Zap().Warn("z") }, stamp + "# z\n"},
		{"zap error is warning", func(l *Logger) { l.Zap().Error("z") }, stamp + "# z\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, buf := newTestLogger(t, LevelDebug)
			tt.log(l)
			if got := buf.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestTimestamp(t *testing.T) {
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, time.January, 5, 3, 4, 5, 0, time.UTC), "05 Jan 2026 03:04:05.000"},
		{time.Date(2026, time.December, 31, 23, 59, 59, 999_999_999, time.UTC), "31 Dec 2026 23:59:59.999"},
		{time.Date(2026, time.March, 1, 0, 0, 0, 1_000_000, time.UTC), "01 Mar 2026 00:00:00.001"},
		{time.Date(2026, time.March, 1, 0, 0, 0, 999_999, time.UTC), "01 Mar 2026 00:00:00.000"},
		{time.Date(2026, time.March, 1, 12, 0, 0, 0, time.FixedZone("X", 3600)), "01 Mar 2026 12:00:00.000"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		l, err := New(Options{PID: 7, Now: func() time.Time { return tt.t }, Writer: &buf})
		if err != nil {
			t.Fatal(err)
		}
		l.Notice("m")
		if want := "7:X " + tt.want + " * m\n"; buf.String() != want {
			t.Errorf("got %q, want %q", buf.String(), want)
		}
	}
}

func TestDefaultPIDAndClock(t *testing.T) {
	var buf bytes.Buffer
	l, err := New(Options{Writer: &buf})
	if err != nil {
		t.Fatal(err)
	}
	l.Notice("hello")
	re := regexp.MustCompile(fmt.Sprintf(`^%d:X \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} \* hello\n$`, os.Getpid()))
	if !re.MatchString(buf.String()) {
		t.Fatalf("line %q does not match %s", buf.String(), re)
	}
}

func TestLevelFiltering(t *testing.T) {
	all := []Level{LevelDebug, LevelVerbose, LevelNotice, LevelWarning}
	tests := []struct {
		threshold Level
		written   string // level chars expected, in order of all
	}{
		{LevelDebug, ".-*#"},
		{LevelVerbose, "-*#"},
		{LevelNotice, "*#"},
		{LevelWarning, "#"},
		{LevelNothing, ""},
	}
	for _, tt := range tests {
		t.Run(tt.threshold.String(), func(t *testing.T) {
			l, buf := newTestLogger(t, tt.threshold)
			for _, lv := range all {
				l.Log(lv, "m")
				l.Logf(lv, "%s", "f")
				_ = l.Raw(lv, "")
			}
			l.Log(LevelNothing, "never")
			var got strings.Builder
			for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
				if line == "" {
					continue
				}
				if !strings.HasPrefix(line, stamp) {
					t.Fatalf("bad line %q", line)
				}
				if i%2 == 0 {
					got.WriteByte(line[len(stamp)])
				}
			}
			if got.String() != tt.written {
				t.Errorf("written levels %q, want %q (output %q)", got.String(), tt.written, buf.String())
			}
			if l.Enabled(LevelNothing) {
				t.Error("Enabled(LevelNothing) = true")
			}
		})
	}
}

func TestNothingSilencesZap(t *testing.T) {
	l, buf := newTestLogger(t, LevelNothing)
	l.Zap().Error("x")
	l.Zap().Warn("x")
	if buf.Len() != 0 {
		t.Fatalf("got output %q", buf.String())
	}
}

func TestSetLevel(t *testing.T) {
	l, buf := newTestLogger(t, LevelNotice)
	l.Verbose("a")
	if buf.Len() != 0 {
		t.Fatalf("verbose written at notice: %q", buf.String())
	}
	l.SetLevel(LevelVerbose)
	if l.Level() != LevelVerbose {
		t.Fatalf("Level() = %v", l.Level())
	}
	l.Verbose("b")
	l.SetLevel(LevelNothing)
	l.Warning("c")
	l.SetLevel(LevelWarning)
	l.Notice("d")
	l.Warning("e")
	want := stamp + "- b\n" + stamp + "# e\n"
	if buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestLogfNotFormattedWhenDisabled(t *testing.T) {
	l, _ := newTestLogger(t, LevelWarning)
	called := false
	l.Debugf("%v", stringerFunc(func() string { called = true; return "" }))
	if called {
		t.Fatal("arguments formatted for a disabled level")
	}
}

type stringerFunc func() string

func (f stringerFunc) String() string { return f() }

type point struct{ X, Y int }

func (p point) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddInt("x", p.X)
	enc.AddInt("y", p.Y)
	return nil
}

func TestStructuredFields(t *testing.T) {
	tests := []struct {
		name   string
		fields []zap.Field
		want   string
	}{
		{"string", []zap.Field{zap.String("master", "mymaster")}, " master=mymaster"},
		{"quoted", []zap.Field{zap.String("s", "a b"), zap.String("e", ""), zap.String("q", `x"y`), zap.String("eq", "a=b")}, ` s="a b" e="" q="x\"y" eq="a=b"`},
		{"ints", []zap.Field{zap.Int("port", 7000), zap.Int64("n", -3), zap.Uint8("u", 9)}, " port=7000 n=-3 u=9"},
		{"bool float", []zap.Field{zap.Bool("ok", true), zap.Float64("f", 1.5), zap.Float32("g", 0.25)}, " ok=true f=1.5 g=0.25"},
		{"duration", []zap.Field{zap.Duration("d", 1500*time.Millisecond)}, " d=1.5s"},
		{"error", []zap.Field{zap.Error(errors.New("boom now"))}, ` error="boom now"`},
		{"object", []zap.Field{zap.Object("p", point{1, 2})}, " p.x=1 p.y=2"},
		{"namespace", []zap.Field{zap.Namespace("ns"), zap.Int("a", 1)}, " ns.a=1"},
		{"array", []zap.Field{zap.Ints("a", []int{1, 2})}, ` a="[1 2]"`},
		{"reflected", []zap.Field{zap.Any("r", struct{ A int }{3})}, " r={3}"},
		{"binary", []zap.Field{zap.Binary("b", []byte{0xff, 0})}, " b=/wA="},
		{"bytestring", []zap.Field{zap.ByteString("bs", []byte("hi"))}, " bs=hi"},
		{"time", []zap.Field{zap.Time("t", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}, " t=2026-01-02T03:04:05Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, buf := newTestLogger(t, LevelNotice)
			l.Zap().Info("msg", tt.fields...)
			if want := stamp + "* msg" + tt.want + "\n"; buf.String() != want {
				t.Errorf("got  %q\nwant %q", buf.String(), want)
			}
		})
	}
}

func TestWithContextFields(t *testing.T) {
	l, buf := newTestLogger(t, LevelNotice)
	child := l.Zap().With(zap.String("master", "m1"))
	child.Info("a", zap.Int("n", 1))
	l.Zap().Info("b")
	want := stamp + "* a master=m1 n=1\n" + stamp + "* b\n"
	if buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestSignalLine(t *testing.T) {
	tests := []struct {
		pid  int
		unix int64
		msg  string
		want string
	}{
		{12345, 1795983751, "Received SIGTERM scheduling shutdown...", "12345:signal-handler (1795983751) Received SIGTERM scheduling shutdown..."},
		{1, 0, "", "1:signal-handler (0) "},
	}
	for _, tt := range tests {
		if got := SignalLine(tt.pid, tt.unix, tt.msg); got != tt.want {
			t.Errorf("SignalLine = %q, want %q", got, tt.want)
		}
	}
}

func TestLogFromHandler(t *testing.T) {
	l, buf := newTestLogger(t, LevelWarning)
	if err := l.LogFromHandler(LevelNotice, "filtered"); err != nil {
		t.Fatal(err)
	}
	if err := l.LogFromHandler(LevelWarning, "Received SIGINT scheduling shutdown..."); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("12345:signal-handler (%d) Received SIGINT scheduling shutdown...\n", fixedNow().Unix())
	if buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestRaw(t *testing.T) {
	l, buf := newTestLogger(t, LevelNotice)
	if err := l.Raw(LevelNotice, "logo\n  text"); err != nil {
		t.Fatal(err)
	}
	_ = l.Raw(LevelVerbose, "hidden")
	if buf.String() != "logo\n  text" {
		t.Fatalf("got %q", buf.String())
	}
}

// withUmask runs the test under umask 022 so file modes are predictable.
func withUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFileAppendAndMode(t *testing.T) {
	withUmask(t)
	path := filepath.Join(t.TempDir(), "sentinel.log")
	if err := os.WriteFile(path, []byte("old line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := New(Options{File: path, PID: 12345, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	l.Notice("new")
	if err := l.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if got, want := readFile(t, path), "old line\n"+stamp+"* new\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}

	fresh := filepath.Join(t.TempDir(), "fresh.log")
	l2, err := New(Options{File: fresh})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l2.Close() })
	fi, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode = %v, want 0644", fi.Mode().Perm())
	}
}

func TestNewFileError(t *testing.T) {
	_, err := New(Options{File: filepath.Join(t.TempDir(), "missing", "x.log")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Fatalf("err %v does not wrap *fs.PathError", err)
	}
}

func TestCopytruncate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	l, err := New(Options{File: path, PID: 12345, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	l.Warning("before rotation, a fairly long line")
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	l.Warning("after")
	if got, want := readFile(t, path), stamp+"# after\n"; got != want {
		t.Fatalf("got %q, want %q (O_APPEND must restart at offset 0)", got, want)
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.log")
	l, err := New(Options{File: path, PID: 12345, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	l.Notice("one")
	rotated := filepath.Join(dir, "s.log.1")
	if err := os.Rename(path, rotated); err != nil {
		t.Fatal(err)
	}
	l.Notice("two") // still goes to the renamed file
	if err := l.Reopen(); err != nil {
		t.Fatal(err)
	}
	l.Notice("three")
	if got, want := readFile(t, rotated), stamp+"* one\n"+stamp+"* two\n"; got != want {
		t.Errorf("rotated = %q, want %q", got, want)
	}
	if got, want := readFile(t, path), stamp+"* three\n"; got != want {
		t.Errorf("new = %q, want %q", got, want)
	}
}

func TestReopenFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, "s.log")
	l, err := New(Options{File: path, PID: 12345, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(sub, moved); err != nil {
		t.Fatal(err)
	}
	if err := l.Reopen(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Reopen err = %v, want ErrNotExist", err)
	}
	l.Notice("kept")
	if got, want := readFile(t, filepath.Join(moved, "s.log")), stamp+"* kept\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestReopenNoFile(t *testing.T) {
	l, _ := newTestLogger(t, LevelNotice)
	if err := l.Reopen(); err != nil {
		t.Fatalf("Reopen on writer: %v", err)
	}
}

func TestClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	l, err := New(Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := l.Raw(LevelWarning, "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Raw after Close = %v, want ErrClosed", err)
	}
	if err := l.Reopen(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Reopen after Close = %v, want ErrClosed", err)
	}
	if err := l.Sync(); err != nil {
		t.Fatalf("Sync after Close = %v", err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	l, err := New(Options{File: path, PID: 12345, Now: fixedNow, Level: LevelWarning})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	const workers, lines = 8, 200
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < lines; i++ {
				l.Warningf("worker %d line %d %s", w, i, strings.Repeat("x", 100))
				l.Debug("never written")
				_ = l.Level()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 100; i++ {
			l.SetLevel(LevelWarning)
			if i%10 == 0 {
				_ = l.Reopen()
			}
		}
	}()
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n")
	if len(got) != workers*lines {
		t.Fatalf("got %d lines, want %d", len(got), workers*lines)
	}
	re := regexp.MustCompile(`^12345:X 29 Nov 2026 20:22:31\.475 # worker \d+ line \d+ x{100}$`)
	for _, line := range got {
		if !re.MatchString(line) {
			t.Fatalf("malformed line %q", line)
		}
	}
}

func BenchmarkLogLine(b *testing.B) {
	l, err := New(Options{PID: 12345, Now: fixedNow, Writer: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.Warning("+sdown master mymaster 127.0.0.1 7000")
	}
}

func BenchmarkLogLineFiltered(b *testing.B) {
	l, err := New(Options{PID: 12345, Now: fixedNow, Writer: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.Debugf("+role-change %s", "x")
	}
}
