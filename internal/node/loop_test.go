package node

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// memLog records log lines as "<level-char> <text>".
type memLog struct {
	mu    sync.Mutex
	lines []string
}

func (m *memLog) add(c, f string, a ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines = append(m.lines, c+" "+fmt.Sprintf(f, a...))
}
func (m *memLog) Debugf(f string, a ...any)   { m.add(".", f, a...) }
func (m *memLog) Verbosef(f string, a ...any) { m.add("-", f, a...) }
func (m *memLog) Noticef(f string, a ...any)  { m.add("*", f, a...) }
func (m *memLog) Warningf(f string, a ...any) { m.add("#", f, a...) }
func (m *memLog) text() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.lines, "\n")
}

// fakeActions records the link and script actions a loop carries out.
type fakeActions struct {
	mu      sync.Mutex
	actions []msg.Action
}

func (f *fakeActions) add(a msg.Action) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, a)
}
func (f *fakeActions) OpenLink(a msg.OpenLink)       { f.add(a) }
func (f *fakeActions) CloseLink(a msg.CloseLink)     { f.add(a) }
func (f *fakeActions) Send(a msg.Send)               { f.add(a) }
func (f *fakeActions) StartScript(a msg.StartScript) { f.add(a) }
func (f *fakeActions) KillScript(a msg.KillScript)   { f.add(a) }

// withFakes fills the Effects fields a test leaves nil with recorders.
func withFakes(fx Effects) Effects {
	f := &fakeActions{}
	if fx.Persist == nil {
		fx.Persist = func(settings.Persisted, settings.Timing) error { return nil }
	}
	if fx.Publish == nil {
		fx.Publish = func(string, string) {}
	}
	if fx.Exit == nil {
		fx.Exit = func(int) {}
	}
	if fx.Links == nil {
		fx.Links = f
	}
	if fx.Scripts == nil {
		fx.Scripts = f
	}
	return fx
}

func TestLoopPersistsNewIDPublishesAndStops(t *testing.T) {
	var (
		mu        sync.Mutex
		persisted []settings.Persisted
		published []string
	)
	fx := Effects{
		Persist: func(p settings.Persisted, _ settings.Timing) error {
			mu.Lock()
			defer mu.Unlock()
			persisted = append(persisted, p)
			return nil
		},
		Publish: func(ch, msg string) {
			mu.Lock()
			defer mu.Unlock()
			published = append(published, ch+" "+msg)
		},
	}
	p := settings.Persisted{Masters: []settings.MasterSpec{settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2)}}
	core := monitor.New(p, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
	log := &memLog{}
	l := NewLoop(core, log, withFakes(fx), time.Now)
	go l.Run()

	var id string
	if _, err := l.Exec(func(c monitor.Handle, _ time.Time) { id = c.MyID() }); err != nil {
		t.Fatal(err)
	}
	l.Stop()
	if _, err := l.Exec(func(monitor.Handle, time.Time) {}); err == nil {
		t.Fatal("Exec after Stop must fail")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(persisted) != 2 || persisted[0].MyID != id || persisted[1].MyID != id {
		t.Fatalf("persisted %d times (want start + shutdown) with ids %v", len(persisted), persisted)
	}
	if len(published) != 1 || published[0] != "+monitor master m 127.0.0.1 6379 quorum 2" {
		t.Fatalf("published %v", published)
	}
	txt := log.text()
	for _, want := range []string{"# Sentinel ID is " + id, "# +monitor master m 127.0.0.1 6379 quorum 2", "* Sentinel new configuration saved on disk"} {
		if !strings.Contains(txt, want) {
			t.Errorf("log lacks %q:\n%s", want, txt)
		}
	}
}

func TestLoopReportsPersistFailure(t *testing.T) {
	fx := Effects{Persist: func(settings.Persisted, settings.Timing) error { return errors.New("disk full") }}
	core := monitor.New(settings.Persisted{MyID: strings.Repeat("a", 40)}, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
	log := &memLog{}
	l := NewLoop(core, log, withFakes(fx), time.Now)
	go l.Run()
	t.Cleanup(l.Stop)
	out, err := l.Exec(func(c monitor.Handle, now time.Time) { c.Step(now, msg.FlushConfig{}) })
	if err != nil {
		t.Fatal(err)
	}
	if out.PersistErr == nil || !strings.Contains(out.PersistErr.Error(), "disk full") {
		t.Fatalf("PersistErr = %v", out.PersistErr)
	}
	if !strings.Contains(log.text(), "# WARNING: Sentinel was not able to save the new configuration on disk!!!: disk full") {
		t.Fatalf("log: %s", log.text())
	}
}

// TestDeferrablePersistIsCoalesced: deferrable rewrites (discoveries) are
// written once when the loop has nothing else to do; an urgent one is
// written at once and takes the deferred ones with it.
func TestDeferrablePersistIsCoalesced(t *testing.T) {
	var writes int
	fx := withFakes(Effects{Persist: func(settings.Persisted, settings.Timing) error { writes++; return nil }})
	core := monitor.New(settings.Persisted{MyID: strings.Repeat("a", 40)}, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
	l := NewLoop(core, &memLog{}, fx, time.Now)
	e := loopEffects{l}
	for k := 0; k < 5; k++ {
		if err := e.Persist(msg.PersistConfig{Reason: "new replica", Deferrable: true}); err != nil {
			t.Fatal(err)
		}
	}
	if writes != 0 {
		t.Fatalf("%d writes before the loop was idle", writes)
	}
	l.flushIfIdle()
	l.flushIfIdle()
	if writes != 1 {
		t.Fatalf("%d writes for five deferred rewrites, want 1", writes)
	}
	_ = e.Persist(msg.PersistConfig{Reason: "new sentinel", Deferrable: true})
	_ = e.Persist(msg.PersistConfig{Reason: "vote"})
	l.flushIfIdle()
	if writes != 2 {
		t.Fatalf("%d writes, want 2: the urgent one carries the deferred one", writes)
	}
}

// TestLoopGroupsConfigWrites: inputs that each need a config rewrite and
// arrive together are written with one rewrite, and every Exec request
// is still answered after its change is on disk.
func TestLoopGroupsConfigWrites(t *testing.T) {
	var mu sync.Mutex
	writes := 0
	fx := withFakes(Effects{Persist: func(settings.Persisted, settings.Timing) error {
		mu.Lock()
		defer mu.Unlock()
		writes++
		return nil
	}})
	core := monitor.New(settings.Persisted{MyID: strings.Repeat("a", 40)}, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
	l := NewLoop(core, &memLog{}, fx, time.Now)
	for k := 0; k < 50; k++ {
		l.Deliver(msg.FlushConfig{})
	}
	go l.Run()
	t.Cleanup(l.Stop)
	var before int
	out, err := l.Exec(func(c monitor.Handle, now time.Time) {
		mu.Lock()
		before = writes
		mu.Unlock()
		c.Step(now, msg.FlushConfig{})
	})
	if err != nil || out.PersistErr != nil {
		t.Fatalf("Exec: %v, %v", err, out.PersistErr)
	}
	mu.Lock()
	defer mu.Unlock()
	if before > 1 {
		t.Errorf("50 queued rewrites took %d writes, want 1", before)
	}
	if writes != before+1 && writes != before {
		t.Errorf("%d writes in all, %d before the Exec", writes, before)
	}
	if writes == 0 {
		t.Error("the Exec's rewrite was not written before its answer")
	}
}

// TestTickGap checks the spacing of ticks: what the core asks for, and at
// least tickSpacing times what the last tick and its output took, capped
// at maxTickGap, below the TILT trigger (see maxTickGap).
func TestTickGap(t *testing.T) {
	for _, tt := range []struct{ next, took, want time.Duration }{
		{100 * time.Millisecond, time.Millisecond, 100 * time.Millisecond},
		{20 * time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond},
		{20 * time.Millisecond, 200 * time.Millisecond, 800 * time.Millisecond},
		{20 * time.Millisecond, 500 * time.Millisecond, maxTickGap},
		{time.Second, 100 * time.Millisecond, time.Second},
		{1500 * time.Millisecond, time.Second, 1500 * time.Millisecond},
	} {
		if got := tickGap(tt.next, tt.took); got != tt.want {
			t.Errorf("tickGap(%v, %v) = %v, want %v", tt.next, tt.took, got, tt.want)
		}
	}
}

// TestCatchUpStepsWaitingInputs checks what a tick is preceded by: every
// input waiting in the queue is stepped, and their rewrites are grouped
// by batch, before the tick judges anything from what the core has seen.
func TestCatchUpStepsWaitingInputs(t *testing.T) {
	writes := 0
	fx := withFakes(Effects{Persist: func(settings.Persisted, settings.Timing) error {
		writes++
		return nil
	}})
	core := monitor.New(settings.Persisted{MyID: strings.Repeat("a", 40)}, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
	l := NewLoop(core, &memLog{}, fx, time.Now)
	const n = 2*maxBatch + 10
	for range n {
		l.Deliver(msg.FlushConfig{})
	}
	l.catchUp() // Run is not running: the loop is ours
	if n := l.waiting(); n != 0 {
		t.Errorf("%d inputs left waiting", n)
	}
	if want := (n + maxBatch - 1) / maxBatch; writes != want {
		t.Errorf("%d inputs took %d writes, want %d (one per batch)", n, writes, want)
	}
}
