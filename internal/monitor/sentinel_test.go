package monitor

import (
	"math/rand"
	"regexp"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newTestSentinel(t *testing.T, p settings.Persisted) (*Sentinel, msg.Ready) {
	t.Helper()
	s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
	return s, s.Ready()
}

func TestNewGeneratesAndPersistsMyID(t *testing.T) {
	s, r := newTestSentinel(t, settings.Persisted{})
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(s.MyID()) {
		t.Fatalf("myid %q is not 40 hex chars", s.MyID())
	}
	if len(r.Actions) != 1 {
		t.Fatalf("actions = %#v, want one PersistConfig", r.Actions)
	}
	if _, ok := r.Actions[0].(msg.PersistConfig); !ok {
		t.Fatalf("action = %#v, want PersistConfig", r.Actions[0])
	}
	if got := s.Snapshot().MyID; got != s.MyID() {
		t.Fatalf("snapshot myid %q != %q", got, s.MyID())
	}
}

func TestNewKeepsMyIDWithoutPersisting(t *testing.T) {
	id := "0123456789012345678901234567890123456789"
	s, r := newTestSentinel(t, settings.Persisted{MyID: id})
	if s.MyID() != id {
		t.Fatalf("myid = %q", s.MyID())
	}
	if len(r.Actions) != 0 {
		t.Fatalf("unexpected actions %#v", r.Actions)
	}
	if len(r.Logs) != 1 || r.Logs[0].Text != "Sentinel ID is "+id {
		t.Fatalf("logs = %#v", r.Logs)
	}
}

func TestSameSeedSameID(t *testing.T) {
	a := New(settings.Persisted{}, Options{}, rand.New(rand.NewSource(7)), t0)
	b := New(settings.Persisted{}, Options{}, rand.New(rand.NewSource(7)), t0)
	if a.MyID() != b.MyID() {
		t.Fatalf("same seed gave %q and %q", a.MyID(), b.MyID())
	}
}

func TestMonitorEventsInNameOrder(t *testing.T) {
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(2))), Masters: []settings.MasterSpec{
		settings.NewMasterSpec("zeta", settings.Addr{Host: "127.0.0.1", Port: 7000}, 2),
		settings.NewMasterSpec("alpha", settings.Addr{Host: "10.0.0.1", Port: 30000}, 1),
	}}
	s, r := newTestSentinel(t, p)
	want := []event.Event{
		{Level: event.LevelWarning, Type: "+monitor", Msg: "master alpha 10.0.0.1 30000 quorum 1", Master: "alpha",
			Role: "master", Name: "alpha", Addr: settings.Addr{Host: "10.0.0.1", Port: 30000}},
		{Level: event.LevelWarning, Type: "+monitor", Msg: "master zeta 127.0.0.1 7000 quorum 2", Master: "zeta",
			Role: "master", Name: "zeta", Addr: settings.Addr{Host: "127.0.0.1", Port: 7000}},
	}
	if len(r.Events()) != len(want) {
		t.Fatalf("events = %#v", r.Events())
	}
	for i := range want {
		if r.Events()[i] != want[i] {
			t.Errorf("event %d = %#v, want %#v", i, r.Events()[i], want[i])
		}
	}
	if got := r.Events()[0].String(); got != "+monitor master alpha 10.0.0.1 30000 quorum 1" {
		t.Errorf("String() = %q", got)
	}
	for k, l := range r.Logs[1:] {
		if l.Event == nil || *l.Event != r.Events()[k] {
			t.Errorf("log line %d %q does not carry its event", k+1, l.Text)
		}
	}
	names := s.View().MasterNames()
	if len(names) != 2 || names[0] != "alpha" || names[1] != "zeta" {
		t.Errorf("names = %v", names)
	}
	snap := s.Snapshot()
	if snap.Masters[0].Name != "alpha" || snap.Masters[1].Name != "zeta" {
		t.Errorf("snapshot order = %v", snap.Masters)
	}
}

func TestConfigEpochRaisesCurrentEpoch(t *testing.T) {
	m := settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2)
	m.ConfigEpoch = 9
	s, _ := newTestSentinel(t, settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(3))), CurrentEpoch: 4, Masters: []settings.MasterSpec{m}})
	if s.CurrentEpoch() != 9 {
		t.Fatalf("current epoch = %d, want 9", s.CurrentEpoch())
	}
}

func TestTilt(t *testing.T) {
	tests := []struct {
		name     string
		steps    []time.Duration // offsets from t0 of successive ticks
		wantTilt bool
		events   []string
	}{
		{"regular ticks", []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}, false, nil},
		{"jump forward", []time.Duration{0, 100 * time.Millisecond, 3 * time.Second}, true, []string{"+tilt"}},
		{"clock goes back", []time.Duration{time.Second, 500 * time.Millisecond}, true, []string{"+tilt"}},
		{"tilt ends after period", []time.Duration{0, 3 * time.Second, 4 * time.Second, 5 * time.Second,
			6 * time.Second, 7 * time.Second, 8 * time.Second, 9 * time.Second, 10 * time.Second}, true, []string{"+tilt"}},
		{"retrigger repeats the event", []time.Duration{0, 3 * time.Second, 6 * time.Second}, true, []string{"+tilt", "+tilt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestSentinel(t, settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(4)))})
			var got []string
			for _, d := range tt.steps {
				s.Tick(t0.Add(d), t0.Add(d))
				for _, e := range s.Ready().Events() {
					got = append(got, string(e.Type))
				}
			}
			on, _ := s.Tilt()
			if on != tt.wantTilt {
				t.Errorf("tilt = %v, want %v", on, tt.wantTilt)
			}
			if len(got) != len(tt.events) {
				t.Fatalf("events %v, want %v", got, tt.events)
			}
			for i := range got {
				if got[i] != tt.events[i] {
					t.Errorf("events %v, want %v", got, tt.events)
				}
			}
		})
	}
}

func TestTiltExits(t *testing.T) {
	// TILT ends while handling an instance, so it needs a master.
	s, _ := newTestSentinel(t, settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(5))),
		Masters: []settings.MasterSpec{settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2)}})
	now := t0
	s.Tick(now, now)
	now = now.Add(5 * time.Second)
	s.Tick(now, now)
	var types []string
	for i := 0; i < 400; i++ { // 40 s of ticks at 100 ms
		now = now.Add(100 * time.Millisecond)
		s.Tick(now, now)
		for _, e := range s.Ready().Events() {
			types = append(types, string(e.Type))
		}
	}
	if on, _ := s.Tilt(); on {
		t.Fatal("still in tilt after 40 s")
	}
	found := false
	for _, ty := range types {
		found = found || ty == "-tilt"
	}
	if !found {
		t.Fatalf("events = %v, want a -tilt", types)
	}
}

func TestNextTickInBounds(t *testing.T) {
	s, _ := newTestSentinel(t, settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(6)))})
	for i := 0; i < 1000; i++ {
		d := s.NextTickIn()
		if d < settings.TickMinInterval || d > settings.TickMaxInterval {
			t.Fatalf("NextTickIn = %v out of [%v, %v]", d, settings.TickMinInterval, settings.TickMaxInterval)
		}
	}
}

func TestStep(t *testing.T) {
	s, _ := newTestSentinel(t, settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(8)))})
	if _, err := s.Step(t0, msg.FlushConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(t0, msg.Shutdown{}); err != nil {
		t.Fatal(err)
	}
	r := s.Ready()
	if len(r.Actions) != 1 {
		t.Fatalf("two persist requests should collapse into one, got %#v", r.Actions)
	}
	if !s.Ready().Empty() {
		t.Fatal("Ready must forget what it returned")
	}
}

// TestKnownSentinelStartsWithCreationTimes: a Sentinel loaded from the
// config shows last-hello-message counting from the start, as in Redis,
// not from the epoch.
func TestKnownSentinelStartsWithCreationTimes(t *testing.T) {
	spec := settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2)
	spec.KnownSentinels = []settings.SentinelSpec{{Addr: settings.Addr{Host: "127.0.0.2", Port: 26379}, RunID: "0123456789012345678901234567890123456789"}}
	s, _ := newTestSentinel(t, settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(2))), Masters: []settings.MasterSpec{spec}})
	sents, err := s.View().Sentinels(t0.Add(1500*time.Millisecond), "m")
	if err != nil || len(sents) != 1 {
		t.Fatalf("sentinels %v, %v", sents, err)
	}
	for _, kv := range sents[0] {
		if kv.Key == "last-hello-message" && kv.Value != "1500" {
			t.Fatalf("last-hello-message = %s, want 1500", kv.Value)
		}
	}
}
