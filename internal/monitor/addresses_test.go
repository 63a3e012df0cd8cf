package monitor

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// helloMasterIP starts a core monitoring m at redis-0 with the given
// hostname settings, tells it where redis-0 points (each of ips in turn,
// a hello period apart) and returns the master address of the hello it
// published after each.
func helloMasterIP(t *testing.T, announce bool, ips ...string) []string {
	t.Helper()
	p := settings.Persisted{MyID: strings.Repeat("c", 40), ResolveHostnames: true, AnnounceHostnames: announce,
		Masters: []settings.MasterSpec{settings.NewMasterSpec("m", settings.Addr{Host: "redis-0", Port: 6379}, 2)}}
	s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
	s.Ready()
	now := t0.Add(100 * time.Millisecond)
	s.Tick(now, now)
	for _, a := range s.Ready().Actions {
		if o, ok := a.(msg.OpenLink); ok {
			if o.Addr != (settings.Addr{Host: "redis-0", Port: 6379}) {
				t.Fatalf("link opened to %+v, want the name", o.Addr)
			}
			if _, err := s.Step(now, msg.LinkConnected{ID: o.ID}); err != nil {
				t.Fatal(err)
			}
			if o.Kind == msg.CmdLink {
				if _, err := s.Step(now, msg.LinkLocalAddr{ID: o.ID, Addr: settings.Addr{Host: "10.0.0.9", Port: 40000}}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	var got []string
	for _, ip := range ips {
		if _, err := s.Step(now, msg.HostResolved{Host: "REDIS-0", IP: ip}); err != nil {
			t.Fatal(err)
		}
		found := ""
		for step := 0; step < 30 && found == ""; step++ {
			now = now.Add(100 * time.Millisecond)
			s.Tick(now, now)
			for _, a := range s.Ready().Actions {
				if snd, ok := a.(msg.Send); ok && snd.Args[0] == "PUBLISH" {
					h, err := gossip.DecodeHello(snd.Args[2])
					if err != nil {
						t.Fatal(err)
					}
					found = h.MasterIP
				}
			}
		}
		got = append(got, found)
	}
	return got
}

// TestHelloMasterAddressFollowsTheName: with announce-hostnames yes the
// hello names the master by its hostname; with it off, by the IP the
// name resolved to at the latest dial, not the first.
func TestHelloMasterAddressFollowsTheName(t *testing.T) {
	if got := helloMasterIP(t, true, "10.0.0.1", "10.0.0.11"); got[0] != "redis-0" || got[1] != "redis-0" {
		t.Errorf("announce-hostnames yes: hellos name the master %q", got)
	}
	if got := helloMasterIP(t, false, "10.0.0.1", "10.0.0.11"); got[0] != "10.0.0.1" || got[1] != "10.0.0.11" {
		t.Errorf("announce-hostnames no: hellos name the master %q, want the IP it resolves to now", got)
	}
}
