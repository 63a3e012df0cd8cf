package monitor

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestHelloChannelOnTheWire: the pub/sub links subscribe to, and hellos
// are published on, Redis's channel __sentinel__:hello.
func TestHelloChannelOnTheWire(t *testing.T) {
	p := settings.Persisted{MyID: strings.Repeat("c", 40), Masters: []settings.MasterSpec{settings.NewMasterSpec("m", settings.Addr{Host: "10.0.0.1", Port: 6379}, 2)}}
	s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
	s.Ready()
	s.Tick(t0.Add(100*time.Millisecond), t0.Add(100*time.Millisecond))
	var cc, pc msg.LinkID
	for _, a := range s.Ready().Actions {
		if o, ok := a.(msg.OpenLink); ok && o.Kind == msg.PubSubLink {
			pc = o.ID
			if o.Channel != "__sentinel__:hello" {
				t.Fatalf("pub/sub link subscribes to %q", o.Channel)
			}
		} else if ok {
			cc = o.ID
		}
	}
	for _, id := range []msg.LinkID{cc, pc} {
		if _, err := s.Step(t0, msg.LinkConnected{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Step(t0, msg.LinkLocalAddr{ID: cc, Addr: settings.Addr{Host: "10.0.0.9", Port: 40000}}); err != nil {
		t.Fatal(err)
	}
	s.Tick(t0.Add(2500*time.Millisecond), t0.Add(2500*time.Millisecond))
	for _, a := range s.Ready().Actions {
		if snd, ok := a.(msg.Send); ok && snd.Args[0] == "PUBLISH" {
			if snd.Args[1] != "__sentinel__:hello" {
				t.Fatalf("hello published on %q", snd.Args[1])
			}
			return
		}
	}
	t.Fatal("no hello published")
}
