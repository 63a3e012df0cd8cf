package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitCheckArgs(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		own, rest []string
		help      bool
	}{
		{[]string{"s.conf"}, nil, []string{"s.conf"}, false},
		{[]string{"s.conf", "--port", "26380", "--json"}, []string{"--json"}, []string{"s.conf", "--port", "26380"}, false},
		{[]string{"--sla", "10s", "s.conf", "--sentinels=a:1,b:2"}, []string{"--sla", "10s", "--sentinels=a:1,b:2"}, []string{"s.conf"}, false},
		{[]string{"s.conf", "--sentinels", "a:1", "--sentinel"}, []string{"--sentinels", "a:1"}, []string{"s.conf", "--sentinel"}, false},
		{[]string{"s.conf", "--help"}, nil, []string{"s.conf"}, true},
	} {
		own, rest, help := splitCheckArgs(tc.args)
		if !reflect.DeepEqual(own, tc.own) || !reflect.DeepEqual(rest, tc.rest) || help != tc.help {
			t.Errorf("%q: got %q %q %v", tc.args, own, rest, help)
		}
	}
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sentinel.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckExitCodes runs `check` on configs whose worst finding is
// nothing, a warning and an error, and on one that does not load.
func TestCheckExitCodes(t *testing.T) {
	three := "sentinel monitor m 127.0.0.1 6379 2\n" +
		"sentinel known-sentinel m 127.0.0.1 26380 " + strings.Repeat("a", 40) + "\n" +
		"sentinel known-sentinel m 127.0.0.1 26381 " + strings.Repeat("b", 40) + "\n"
	for _, tc := range []struct {
		name, conf string
		args       []string
		want       int
		stdout     string
	}{
		{"clean", three, nil, 0, "OK (1 info); static checks only"},
		{"directive applied", three, []string{"--port", "26390"}, 0, "port                       26390"},
		{"warning", three + "sentinel down-after-milliseconds m 100\n", nil, 1, "WARNING [down-after-small] m"},
		{"warning vs SLA", three + "sentinel down-after-milliseconds m 5000\n", []string{"--sla", "30s"}, 1, "WARNING [sla-worst] m"},
		{"go-sentinels by default", three, nil, 0, "by its 3 Sentinels (taken to run go-sentinel"},
		{"mixed fleet", three, []string{"--redis-sentinels", "1"}, 0, "by its 2 go-sentinels and 1 redis-sentinel leaves"},
		{"redis-sentinels vs SLA", three, []string{"--redis-sentinels=3", "--sla", "31s"}, 2, "ERROR [sla-expected] m"},
		{"error", "sentinel monitor m 127.0.0.1 6379 2\n", nil, 2, "ERROR [sentinel-count] m"},
		{"does not load", "sentinel monitor m 127.0.0.1 6379 0\n", nil, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"check", writeTemp(t, tc.conf)}, tc.args...), &out, &errb)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if tc.stdout == "" && !strings.Contains(errb.String(), "*** FATAL CONFIG FILE ERROR") {
				t.Errorf("stderr: %s", errb.String())
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"check", "--json", writeTemp(t, "sentinel monitor m 127.0.0.1 6379 2\n"), "--sla", "10s"}, &out, &errb)
	var r struct {
		Live     bool  `json:"live"`
		SLAms    int64 `json:"sla_ms"`
		ExitCode int   `json:"exit_code"`
		Findings []struct {
			Severity, Rule, Master string
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if code != 2 || r.ExitCode != 2 || r.Live || r.SLAms != 10000 || len(r.Findings) == 0 || r.Findings[0].Severity != "error" {
		t.Fatalf("code %d, report %+v", code, r)
	}
	out.Reset()
	code = run([]string{"check", writeTemp(t, "sentinel monitor m 127.0.0.1 6379 0\n"), "--json"}, &out, &errb)
	var e struct {
		File, Error string
		ExitCode    int `json:"exit_code"`
	}
	if err := json.Unmarshal(out.Bytes(), &e); err != nil || code != 1 || e.ExitCode != 1 || !strings.Contains(e.Error, "Quorum must be 1 or greater.") ||
		!filepath.IsAbs(e.File) {
		t.Fatalf("code %d, %v, %+v", code, err, e)
	}
}

func TestCheckBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"check", "x.conf", "--sla", "soon"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--sla") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"check", "x.conf", "--sla", "-1s"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "negative") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"check", "x.conf", "--redis-sentinels", "-2"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--redis-sentinels must not be negative") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"check", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "--sentinels") || !strings.Contains(out.String(), "Exit status") {
		t.Fatalf("help: %d %s", code, out.String())
	}
}
