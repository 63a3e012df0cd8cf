package monitor

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestRedialBudget counts the dials of lost masters over one second: with
// a few lost, each is dialled every MasterReconnectPeriod; with a rack of
// them lost, the dials stay within the budget's worth and no master is
// dialled more often than Redis would (once per PING period).
func TestRedialBudget(t *testing.T) {
	for _, tt := range []struct {
		lost           int
		minPer, maxPer float64 // dials per lost master and second, both links
	}{
		{5, 16, 22},
		{300, 1, 4},
	} {
		t.Run(fmt.Sprint(tt.lost), func(t *testing.T) {
			p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(3)))}
			for k := range tt.lost {
				p.Masters = append(p.Masters, settings.NewMasterSpec(fmt.Sprintf("m%d", k), settings.Addr{Host: "10.0.0.1", Port: 7000 + k}, 2))
			}
			s := New(p, Options{Accel: settings.DefaultAccel()}, rand.New(rand.NewSource(1)), t0)
			s.Ready()
			now := t0
			s.Tick(now, now)
			for _, a := range s.Ready().Actions {
				if o, ok := a.(msg.OpenLink); ok {
					s.Step(now, msg.LinkClosed{ID: o.ID, Err: "connection refused"})
				}
			}
			s.Ready()
			dials := 0
			for end := now.Add(time.Second); now.Before(end); {
				now = now.Add(10 * time.Millisecond)
				s.Tick(now, now)
				for _, a := range s.Ready().Actions {
					if o, ok := a.(msg.OpenLink); ok {
						dials++
						s.Step(now, msg.LinkClosed{ID: o.ID, Err: "connection refused"})
					}
				}
				s.Ready()
			}
			per := float64(dials) / float64(tt.lost)
			if per < tt.minPer || per > tt.maxPer {
				t.Errorf("%d lost masters: %.1f dials each in 1 s, want %.0f–%.0f", tt.lost, per, tt.minPer, tt.maxPer)
			}
		})
	}
}

// TestAnswerAskFromView checks that the View answers an ask without a
// vote as the core does, by address, through a resolved hostname, in
// TILT, and that it leaves every ask for a vote to the core.
func TestAnswerAskFromView(t *testing.T) {
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(3))), Masters: []settings.MasterSpec{
		settings.NewMasterSpec("a", settings.Addr{Host: "10.0.0.1", Port: 7000}, 2),
		settings.NewMasterSpec("b", settings.Addr{Host: "redis-b.example", Port: 7001}, 2),
	}}
	s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
	s.Ready()
	s.Step(t0, msg.HostResolved{Host: "REDIS-B.example", IP: "10.0.0.2"})
	for _, m := range s.masters {
		m.flags |= object.SDown
		s.views.changed(m)
	}
	asks := []gossip.AskRequest{
		{IP: "10.0.0.1", Port: 7000, CurrentEpoch: 3, RunID: gossip.NoVote},
		{IP: "10.0.0.2", Port: 7001, CurrentEpoch: 3, RunID: gossip.NoVote},
		{IP: "redis-b.example", Port: 7001, CurrentEpoch: 3, RunID: gossip.NoVote},
		{IP: "10.0.0.1", Port: 7001, CurrentEpoch: 3, RunID: gossip.NoVote},
		{IP: "10.0.0.9", Port: 7000, CurrentEpoch: 3, RunID: gossip.NoVote},
	}
	check := func(state string, wantDown []bool) {
		t.Helper()
		v := s.View()
		for k, req := range asks {
			got, ok := v.AnswerAsk(req)
			want := s.answerAsk(ms(t0), req)
			if !ok || got != want || got.Down != wantDown[k] {
				t.Errorf("%s, %+v: View %+v (%v), core %+v, want down %v", state, req, got, ok, want, wantDown[k])
			}
		}
	}
	check("sdown", []bool{true, true, true, false, false})
	s.tilt = true
	s.tiltStart = ms(t0)
	s.views.changedAll()
	check("tilt", []bool{false, false, false, false, false})
	if _, ok := s.View().AnswerAsk(gossip.AskRequest{IP: "10.0.0.1", Port: 7000, CurrentEpoch: 3, RunID: s.MyID()}); ok {
		t.Error("the View answered an ask for a vote")
	}
}

// TestSwitchesAllDueInOneTick checks that every master whose failover
// reached update_config switches in the same tick (Redis switches one per
// tick).
func TestSwitchesAllDueInOneTick(t *testing.T) {
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(3)))}
	for k := range 3 {
		spec := settings.NewMasterSpec(fmt.Sprintf("m%d", k), settings.Addr{Host: "10.0.0.1", Port: 7000 + k}, 1)
		spec.KnownReplicas = []settings.Addr{{Host: "10.0.0.2", Port: 7000 + k}}
		p.Masters = append(p.Masters, spec)
	}
	s := New(p, Options{}, rand.New(rand.NewSource(1)), t0)
	s.Ready()
	for _, m := range s.masters {
		m.failoverState = failover.UpdateConfig
		m.flags |= object.FailoverInProgress
		m.promoted = m.sortedReplicas()[0]
	}
	s.Tick(t0, t0)
	var switched []string
	for _, ev := range s.Ready().Events() {
		if ev.Type == event.SwitchMaster {
			switched = append(switched, ev.Msg)
		}
	}
	want := []string{"m0 10.0.0.1 7000 10.0.0.2 7000", "m1 10.0.0.1 7001 10.0.0.2 7001", "m2 10.0.0.1 7002 10.0.0.2 7002"}
	if fmt.Sprint(switched) != fmt.Sprint(want) {
		t.Errorf("switched in one tick: %q, want %q", switched, want)
	}
}
