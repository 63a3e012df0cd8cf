package monitor

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// benchCore builds a core watching n masters with 2 replicas and 2 other
// Sentinels each, every link open and answering.
func benchCore(b testing.TB, n int) (*Sentinel, time.Time) {
	b.Helper()
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(1)))}
	for i := 0; i < n; i++ {
		m := settings.NewMasterSpec(fmt.Sprintf("m%03d", i), settings.Addr{Host: "10.0.0.1", Port: 7000 + i}, 2)
		m.KnownReplicas = []settings.Addr{{Host: "10.0.0.2", Port: 7000 + i}, {Host: "10.0.0.3", Port: 7000 + i}}
		m.KnownSentinels = []settings.SentinelSpec{
			{Addr: settings.Addr{Host: "10.0.1.1", Port: 26379}, RunID: "1111111111111111111111111111111111111111"},
			{Addr: settings.Addr{Host: "10.0.1.2", Port: 26379}, RunID: "2222222222222222222222222222222222222222"},
		}
		p.Masters = append(p.Masters, m)
	}
	now := t0
	s := New(p, Options{Port: 26379}, rand.New(rand.NewSource(2)), now)
	s.Ready()
	return s, now
}

// answer replies to every Send of a Ready batch as a healthy instance
// would, and reports the local address of new links.
func answer(s *Sentinel, r msg.Ready, now time.Time) {
	for _, a := range r.Actions {
		answerOne(s, a, now)
	}
}

// answerOne is answer for one action.
func answerOne(s *Sentinel, a msg.Action, now time.Time) {
	switch a := a.(type) {
	case msg.OpenLink:
		s.Step(now, msg.LinkConnected{ID: a.ID})
		if a.Kind == msg.CmdLink {
			s.Step(now, msg.LinkLocalAddr{ID: a.ID, Addr: settings.Addr{Host: "10.0.0.9", Port: 40000}})
		}
	case msg.Send:
		var rep msg.Reply
		switch a.Args[0] {
		case "PING":
			rep = msg.Reply{Kind: msg.ReplyString, Str: "PONG"}
		case "INFO":
			rep = msg.Reply{Kind: msg.ReplyString, Str: "# Replication\r\nrole:master\r\nrun_id:0123456789012345678901234567890123456789\r\n"}
		default:
			rep = msg.Reply{Kind: msg.ReplyInt, Int: 1}
		}
		s.Step(now, msg.CommandReply{ID: a.ID, Tag: a.Tag, Reply: rep})
	}
}

// BenchmarkTickSteadyState measures one timer tick of a Sentinel watching
// 100 masters (500 instances) in steady state, replies included.
func BenchmarkTickSteadyState(b *testing.B) {
	s, now := benchCore(b, 100)
	for i := 0; i < 50; i++ { // warm up: links open, INFO known
		now = now.Add(100 * time.Millisecond)
		s.Tick(now, now)
		answer(s, s.Ready(), now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now = now.Add(100 * time.Millisecond)
		s.Tick(now, now)
		answer(s, s.Ready(), now)
		s.Ready()
	}
}

// BenchmarkHelloProcessing measures handling one hello from a known
// Sentinel.
func BenchmarkHelloProcessing(b *testing.B) {
	s, now := benchCore(b, 1)
	h := gossip.Hello{SentinelIP: "10.0.1.1", SentinelPort: 26379, RunID: "1111111111111111111111111111111111111111",
		MasterName: "m000", MasterIP: "10.0.0.1", MasterPort: 7000}.Encode()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Step(now, msg.HelloFromClient{Payload: h})
		s.Ready()
	}
}

// steadyCore is benchCore(n) after a few seconds of ticks and replies:
// links open, INFO known.
func steadyCore(b *testing.B, n int) (*Sentinel, time.Time) {
	s, now := benchCore(b, n)
	for i := 0; i < 50; i++ {
		now = now.Add(100 * time.Millisecond)
		s.Tick(now, now)
		answer(s, s.Ready(), now)
	}
	s.Ready()
	s.View()
	return s, now
}

// BenchmarkView measures bringing the View up to date at 1,000 masters
// (5,000 instances): built from scratch (the first View); after a
// command that changed nothing the queries show (every master compared);
// after a reply on one master's link (that master looked at, its links
// copied); after a reply on a link all the masters share (a Sentinel
// that watches them all); and with nothing changed.
func BenchmarkView(b *testing.B) {
	s, _ := steadyCore(b, 1000)
	m := s.masters["m500"]
	si := m.sortedSentinels()[0]
	if si.link.refcount < 2 {
		b.Fatal("the Sentinel link is not shared")
	}
	for _, bc := range []struct {
		name   string
		change func()
	}{
		{"from-scratch", func() { s.views.cur = nil }},
		{"compare-all", s.views.changedAll},
		{"one-link", func() { m.link.lastPongTime++; s.views.linkChanged(m.link) }},
		{"shared-link", func() { si.link.lastPongTime++; s.views.linkChanged(si.link) }},
		{"one-master", func() { m.infoRefresh++; s.views.changed(m) }},
		{"unchanged", func() {}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				bc.change()
				s.View()
			}
		})
	}
}

// BenchmarkTick1000 measures one tick of a Sentinel watching 1,000
// masters in steady state (100 ms of its time), replies included: with
// no View, with a View after the tick and one after its replies (a busy
// loop, which publishes once per burst of replies), and with a View
// after every reply (an idle loop).
func BenchmarkTick1000(b *testing.B) {
	for _, views := range []string{"none", "burst", "each"} {
		b.Run("view="+views, func(b *testing.B) {
			s, now := steadyCore(b, 1000)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now = now.Add(100 * time.Millisecond)
				s.Tick(now, now)
				if views != "none" {
					s.View()
				}
				for _, a := range s.Ready().Actions {
					answerOne(s, a, now)
					if views == "each" {
						s.View()
					}
				}
				if views == "burst" {
					s.View()
				}
				s.Ready()
			}
		})
	}
}
