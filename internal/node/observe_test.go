package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// syncBuf is a bytes.Buffer safe for the loop and the test goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// jsonLines decodes every line of a JSON log.
func jsonLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestLoopLogsEventFieldsAndObserves(t *testing.T) {
	var buf syncBuf
	log, err := logging.New(logging.Options{Writer: &buf, Format: logging.FormatJSON, PID: 7})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	fx := withFakes(Effects{Observe: func(ev event.Event) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %s %v", ev.Type, ev.Master, ev.Timeline != nil))
	}})
	p := settings.Persisted{CurrentEpoch: 4, Masters: []settings.MasterSpec{settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2)}}
	core := monitor.New(p, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
	l := NewLoop(core, log, fx, time.Now)
	go l.Run()
	if _, err := l.Exec(func(monitor.Handle, time.Time) {}); err != nil {
		t.Fatal(err)
	}
	l.Stop()

	var event, other map[string]any
	for _, line := range jsonLines(t, buf.String()) {
		switch {
		case line["type"] == "+monitor":
			event = line
		case strings.HasPrefix(fmt.Sprint(line["msg"]), "Sentinel ID is"):
			other = line
		}
	}
	want := map[string]any{"level": "warning", "msg": "+monitor master m 127.0.0.1 6379 quorum 2", "pid": 7.0,
		"type": "+monitor", "role": "master", "name": "m", "ip": "127.0.0.1", "port": 6379.0, "master": "m", "epoch": 4.0}
	for k, v := range want {
		if event[k] != v {
			t.Errorf("+monitor line: %s = %#v, want %#v (line %v)", k, event[k], v, event)
		}
	}
	if other == nil || other["type"] != nil || other["level"] != "warning" {
		t.Errorf("a line that is no event: %v", other)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "+monitor m false" {
		t.Errorf("observed %v", seen)
	}
}

func TestTimelineFields(t *testing.T) {
	var buf syncBuf
	log, err := logging.New(logging.Options{Writer: &buf, Format: logging.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tl := event.Timeline{Led: true, Marks: []event.Mark{
		{Phase: event.PhaseSDown, At: at},
		{Phase: event.PhaseODown, At: at.Add(40 * time.Millisecond)},
		{Phase: event.PhaseStart, At: at.Add(60 * time.Millisecond), Note: "epoch 5"},
		{Phase: event.PhaseSwitched, At: at.Add(1060 * time.Millisecond), Note: "10.0.0.2 6379"},
	}}
	ev := event.Event{Level: event.LevelNotice, Type: event.FailoverTimeline, Master: "m", Role: "master", Name: "m",
		Addr: settings.Addr{Host: "10.0.0.1", Port: 6379}, Epoch: 5, Msg: "master m 10.0.0.1 6379 " + tl.String(), Timeline: &tl}
	log.LogFields(logLevel(ev.Level), ev.String(), eventFields(ev)...)
	lines := jsonLines(t, buf.String())
	got := lines[0]
	if got["led"] != true || got["total_ms"] != 1060.0 || got["level"] != "notice" || got["msg"] != ev.String() {
		t.Fatalf("line %v", got)
	}
	phases, _ := got["phases_ms"].(map[string]any)
	if fmt.Sprint(phases) != "map[odown:20 sdown:40 try-failover:1000]" {
		t.Errorf("phases_ms %v", got["phases_ms"])
	}
	if !strings.Contains(buf.String(), `"phases_ms":{"sdown":40,"odown":20,"try-failover":1000}`) {
		t.Errorf("phases out of order: %s", buf.String())
	}
	marks, _ := got["timeline"].([]any)
	if len(marks) != 4 || fmt.Sprint(marks[2]) != "map[at:2026-01-02T03:04:05.060Z ms:1000 note:epoch 5 phase:try-failover]" {
		t.Errorf("timeline %v", got["timeline"])
	}
}

func TestNodeServesMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dead, err := net.Listen("tcp", "127.0.0.1:0") // a master that never answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dead.Close() })
	n, _, _, _ := startNode(t, fmt.Sprintf("metrics-addr %s\nsentinel monitor m 127.0.0.1 %d 2\n", addr, dead.Addr().(*net.TCPAddr).Port))
	if n.MetricsAddr() != addr {
		t.Fatalf("MetricsAddr %q, want %q", n.MetricsAddr(), addr)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		"\nredis_sentinel_masters 1\n",
		fmt.Sprintf("\nredis_sentinel_master_setting_ckquorum{master_address=\"127.0.0.1:%d\",master_name=\"m\"} 2\n", dead.Addr().(*net.TCPAddr).Port),
		"\nsentinel_events_total{type=\"+monitor\"} 1\n",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("scrape lacks %q:\n%s", want, body)
		}
	}
	n.Stop()
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("metrics still served after Stop")
	}
}

func TestNodeMetricsAddrBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	dir := t.TempDir()
	path := filepath.Join(dir, "sentinel.conf")
	sock := filepath.Join(dir, "s.sock")
	if err := os.WriteFile(path, []byte(fmt.Sprintf("port 0\nunixsocket %s\nmetrics-addr %s\n", sock, ln.Addr())), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	log, err := logging.New(logging.Options{Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	n, err := Start(cfg, Options{Log: log})
	if err == nil {
		n.Stop()
		t.Fatal("Start with a busy metrics-addr succeeded")
	}
	if !errors.Is(err, ErrMetricsListen) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Start: %v", err)
	}
	// Nothing stays open: the unix socket is free again.
	if _, err := net.Dial("unix", sock); err == nil {
		t.Fatal("the RESP listener stayed open")
	}
}
