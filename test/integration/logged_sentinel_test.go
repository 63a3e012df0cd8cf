package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// daemonKind names which Sentinel daemon a loggedSentinel runs.
type daemonKind string

const (
	goSentinel    daemonKind = "go-sentinel"
	redisSentinel daemonKind = "redis-sentinel"
)

// loggedSentinel is a Sentinel of either kind that logs to a file of its
// own, with a subscription to every event it publishes.
type loggedSentinel struct {
	kind   daemonKind
	p      *proc
	Port   int
	conf   string
	log    string
	events *eventLog
}

func (s *loggedSentinel) String() string { return fmt.Sprintf("%s :%d", s.kind, s.Port) }

// startLoggedSentinel starts a Sentinel of the given kind on a free port
// with conf (the port and logfile lines are added), waits until it answers
// and subscribes to its events.
func startLoggedSentinel(t *testing.T, kind daemonKind, conf string) *loggedSentinel {
	t.Helper()
	port := freePort(t)
	logDir := t.TempDir()
	s := &loggedSentinel{kind: kind, Port: port, log: filepath.Join(logDir, "sentinel.log")}
	s.conf = writeConf(t, fmt.Sprintf("port %d\nlogfile %s\n%s", port, s.log, conf))
	switch kind {
	case goSentinel:
		s.p = startSentinel(t, s.conf, port, nil)
	case redisSentinel:
		s.p = start(t, filepath.Dir(s.conf), nil, needBinary(t, "redis-sentinel"), s.conf)
		s.p.Port = port
		waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool {
			if done, _ := s.p.exited(); done {
				t.Fatalf("redis-sentinel exited early:\n%s\n%s", s.p.out.String(), s.logText())
			}
			return alive(port)
		})
	default:
		t.Fatalf("unknown daemon kind %q", kind)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log of %s:\n%s", s, s.logText())
		}
	})
	s.events = watchEvents(t, port)
	return s
}

func (s *loggedSentinel) logText() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// logLine is one line of a Sentinel log file.
type logLine struct {
	at    time.Time
	level byte // '.' debug, '-' verbose, '*' notice, '#' warning
	text  string
}

// logLineRE matches Redis's log format, which go-sentinel keeps:
// "<pid>:X 30 Nov 2026 13:53:28.571 # +sdown master ...".
var logLineRE = regexp.MustCompile(`^\d+:[XCSM] (\d\d \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3}) ([.\-*#]) (.*)$`)

// logLines parses the Sentinel's log file; lines in another format are
// skipped.
func (s *loggedSentinel) logLines(t *testing.T) []logLine {
	t.Helper()
	var out []logLine
	for _, l := range strings.Split(s.logText(), "\n") {
		m := logLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		at, err := time.ParseInLocation("02 Jan 2006 15:04:05.000", m[1], time.Local)
		if err != nil {
			t.Fatalf("log time %q: %v", m[1], err)
		}
		out = append(out, logLine{at: at, level: m[2][0], text: m[3]})
	}
	return out
}

// logged returns the log lines whose text starts with prefix.
func (s *loggedSentinel) logged(t *testing.T, prefix string) []logLine {
	t.Helper()
	var out []logLine
	for _, l := range s.logLines(t) {
		if strings.HasPrefix(l.text, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// published returns the published events ("<type> <description>") that
// start with prefix, in the order they arrived.
func (s *loggedSentinel) published(prefix string) []string {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	var out []string
	for _, e := range s.events.events {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// do runs a command on the Sentinel and fails the test on error.
func (s *loggedSentinel) do(t *testing.T, args ...any) any {
	t.Helper()
	v, err := client(t, s.Port).Do(context.Background(), args...).Result()
	if err != nil {
		t.Fatalf("%s: %v: %v", s, args, err)
	}
	return v
}

// pendingScript is one entry of SENTINEL PENDING-SCRIPTS.
type pendingScript struct {
	argv     []string
	flags    string
	pid      int64
	retryNum int64
}

// pendingScripts reads SENTINEL PENDING-SCRIPTS.
func (s *loggedSentinel) pendingScripts(t *testing.T) []pendingScript {
	t.Helper()
	var out []pendingScript
	for _, e := range s.do(t, "SENTINEL", "PENDING-SCRIPTS").([]any) {
		kv := e.([]any)
		var ps pendingScript
		for i := 0; i+1 < len(kv); i += 2 {
			switch kv[i] {
			case "argv":
				for _, a := range kv[i+1].([]any) {
					ps.argv = append(ps.argv, a.(string))
				}
			case "flags":
				ps.flags = kv[i+1].(string)
			case "pid": // Redis replies with bulk strings here
				ps.pid, _ = strconv.ParseInt(fmt.Sprint(kv[i+1]), 10, 64)
			case "retry-num":
				ps.retryNum, _ = strconv.ParseInt(fmt.Sprint(kv[i+1]), 10, 64)
			}
		}
		out = append(out, ps)
	}
	return out
}

// masterEvent is the description prefix of events about the master at
// host:port ("master mymaster 127.0.0.1 6379").
func masterEvent(host string, port int) string {
	return fmt.Sprintf("master mymaster %s %d", host, port)
}
