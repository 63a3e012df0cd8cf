package monitor

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestHelloNonCanonicalAddressIsNotAChange feeds the same peer's hello
// again and again with its address written in non-canonical forms: the
// peer is added once, and never removed, re-added or reconnected.
func TestHelloNonCanonicalAddressIsNotAChange(t *testing.T) {
	for _, tc := range []struct{ name, master, peer string }{
		{"IPv4-mapped IPv6", "10.0.0.1", "::ffff:10.0.0.2"},
		{"IPv6 with zeros written out", "2001:db8::1", "2001:0db8:0000:0000:0000:0000:0000:0002"},
		{"IPv6 upper case", "2001:db8::1", "2001:DB8::2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(3))), Masters: []settings.MasterSpec{
				settings.NewMasterSpec("m", settings.Addr{Host: tc.master, Port: 6379}, 2),
			}}
			s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
			s.Ready()
			peer := strings.Repeat("b", 40)
			hello := gossip.Hello{SentinelIP: tc.peer, SentinelPort: 26379, RunID: peer, MasterName: "m",
				MasterIP: tc.master, MasterPort: 6379}.Encode()
			var events []string
			closes, persists := 0, 0
			for k := 0; k < 20; k++ {
				now := t0.Add(time.Duration(k) * 100 * time.Millisecond)
				if _, err := s.Step(now, msg.HelloFromClient{Payload: hello}); err != nil {
					t.Fatal(err)
				}
				s.Tick(now, now)
				r := s.Ready()
				for _, e := range r.Events() {
					if e.Level > event.LevelDebug {
						events = append(events, string(e.Type))
					}
				}
				for _, a := range r.Actions {
					switch a.(type) {
					case msg.CloseLink:
						closes++
					case msg.PersistConfig:
						persists++
					}
				}
			}
			if len(events) != 1 || events[0] != "+sentinel" {
				t.Errorf("events %v, want one +sentinel", events)
			}
			if closes != 0 || persists != 1 {
				t.Errorf("%d CloseLink and %d PersistConfig, want 0 and 1", closes, persists)
			}
			sents, _ := s.View().Sentinels(t0, "m")
			if len(sents) != 1 {
				t.Fatalf("%d sentinels known", len(sents))
			}
		})
	}
}

func TestSameAddr(t *testing.T) {
	for _, tc := range []struct {
		a, b settings.Addr
		want bool
	}{
		{settings.Addr{Host: "10.0.0.1", Port: 1}, settings.Addr{Host: "10.0.0.1", Port: 1}, true},
		{settings.Addr{Host: "10.0.0.1", Port: 1}, settings.Addr{Host: "10.0.0.1", Port: 2}, false},
		{settings.Addr{Host: "10.0.0.1", Port: 1}, settings.Addr{Host: "::ffff:10.0.0.1", Port: 1}, true},
		{settings.Addr{Host: "2001:db8::1", Port: 1}, settings.Addr{Host: "2001:DB8:0:0::1", Port: 1}, true},
		{settings.Addr{Host: "host.example", Port: 1}, settings.Addr{Host: "HOST.example", Port: 1}, true},
		{settings.Addr{Host: "host.example", Port: 1}, settings.Addr{Host: "10.0.0.1", Port: 1}, false},
		{settings.Addr{Host: "10.0.0.1", Port: 1}, settings.Addr{Host: "10.0.0.2", Port: 1}, false},
	} {
		if got := sameAddr(tc.a, tc.b); got != tc.want {
			t.Errorf("sameAddr(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
