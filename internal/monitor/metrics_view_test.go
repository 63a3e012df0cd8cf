package monitor

import (
	"math/rand"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

func TestMetricsViewHealthy(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	m.link.lastPingTime = ms(now) - 500
	m.link.lastPongTime = ms(now) - 497
	m.link.rtt, m.link.hasRTT = 3, true
	v := s.MetricsView(now)
	if len(v.Masters) != 1 {
		t.Fatalf("%d masters", len(v.Masters))
	}
	mm := v.Masters[0]
	if mm.Name != "m" || mm.Addr != (settings.Addr{Host: "10.0.0.1", Port: 6379}) || mm.Status != view.StatusOK || mm.SDown || mm.ODown {
		t.Fatalf("master %+v", mm)
	}
	if mm.Replicas != 2 || mm.OKReplicas != 2 || mm.Sentinels != 3 || mm.OKSentinels != 3 || mm.Quorum != 2 {
		t.Fatalf("counts %+v", mm)
	}
	if mm.FailoverState != "none" || mm.FailoverInProgress || mm.LastOKPing != 100*time.Millisecond {
		t.Fatalf("failover %q %v, last ok ping %v", mm.FailoverState, mm.FailoverInProgress, mm.LastOKPing)
	}
	if len(mm.Links) != 5 || mm.Links[0].Role != "master" || mm.Links[1].Role != "slave" || mm.Links[4].Role != "sentinel" {
		t.Fatalf("links %+v", mm.Links)
	}
	if l := mm.Links[0]; !l.Connected || !l.HasRTT || l.RTT != 3*time.Millisecond {
		t.Fatalf("master link %+v", l)
	}
	if l := mm.Links[1]; l.HasRTT {
		t.Fatalf("replica never pinged, yet RTT %+v", l)
	}
}

func TestMetricsViewDown(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	sdown(m, now, time.Second)
	m.flags |= object.ODown
	rs, ss := m.sortedReplicas(), m.sortedSentinels()
	rs[0].flags |= object.SDown
	rs[1].announced = 0
	ss[0].flags |= object.SDown
	ss[1].link.ccUp = false
	s.tilt, s.tiltStart = true, ms(now)-2500
	s.currentEpoch = 7
	v := s.MetricsView(now)
	mm := v.Masters[0]
	if mm.Status != view.StatusODown || !mm.SDown || !mm.ODown {
		t.Fatalf("status %s sdown %v odown %v", mm.Status, mm.SDown, mm.ODown)
	}
	if mm.Replicas != 2 || mm.OKReplicas != 0 || mm.Sentinels != 3 || mm.OKSentinels != 2 {
		t.Fatalf("counts %+v", mm)
	}
	if !v.Tilt || v.TiltFor != 2500*time.Millisecond || v.CurrentEpoch != 7 {
		t.Fatalf("tilt %v %v epoch %d", v.Tilt, v.TiltFor, v.CurrentEpoch)
	}
	if mm.Links[4].Connected {
		t.Fatalf("sentinel link without a command connection is connected")
	}
}

// TestTimelineEvent: +failover-timeline carries the timeline it renders,
// a copy the core does not share.
func TestTimelineEvent(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	m.timeline = event.Timeline{Led: true}
	m.mark(event.PhaseStart, ms(now), "epoch 1")
	m.endTimeline(event.PhaseSwitched, ms(now)+1200, "10.0.0.2 6379")
	s.Ready()
	s.emitTimeline(m)
	evs := s.Ready().Events()
	if len(evs) != 1 || evs[0].Type != event.FailoverTimeline || evs[0].Timeline == nil {
		t.Fatalf("events %+v", evs)
	}
	tl := evs[0].Timeline
	if !tl.Led || len(tl.Marks) != 2 || tl.Total() != 1200*time.Millisecond {
		t.Fatalf("timeline %+v", tl)
	}
	tl.Marks[0].Phase = "changed"
	if m.lastTimeline.Marks[0].Phase != event.PhaseStart {
		t.Fatal("the event shares its marks with the core")
	}
}

// TestMetricsViewRTTSurvivesPingInFlight drives one master's link through
// the core: a PING answered 3 ms after it was sent, then the next PING
// sent and not yet answered. The RTT stays the answered one's, as a
// scrape between a PING and its reply saw nothing before.
func TestMetricsViewRTTSurvivesPingInFlight(t *testing.T) {
	spec := settings.NewMasterSpec("m", settings.Addr{Host: "10.0.0.1", Port: 6379}, 1)
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(1))), Masters: []settings.MasterSpec{spec}}
	s := New(p, Options{Port: 26379}, rand.New(rand.NewSource(2)), t0)
	now := t0
	var pings []msg.Send
	// step applies in and answers every command but PING, which it keeps.
	var step func(in msg.Input)
	step = func(in msg.Input) {
		if in != nil {
			s.Step(now, in)
		} else {
			s.Tick(now, now)
		}
		for _, a := range s.Ready().Actions {
			switch a := a.(type) {
			case msg.OpenLink:
				defer step(msg.LinkConnected{ID: a.ID})
			case msg.Send:
				if a.Args[0] == "PING" {
					pings = append(pings, a)
				} else {
					defer step(msg.CommandReply{ID: a.ID, Tag: a.Tag, Reply: msg.Reply{Kind: msg.ReplyString, Str: "OK"}})
				}
			}
		}
	}
	rtt := func() view.LinkMetrics {
		t.Helper()
		v := s.MetricsView(now)
		if len(v.Masters) != 1 || len(v.Masters[0].Links) == 0 {
			t.Fatalf("view %+v", v)
		}
		return v.Masters[0].Links[0]
	}
	for len(pings) == 0 && now.Before(t0.Add(5*time.Second)) {
		now = now.Add(100 * time.Millisecond)
		step(nil)
	}
	if len(pings) == 0 {
		t.Fatal("no PING sent in 5 s")
	}
	if l := rtt(); l.HasRTT {
		t.Fatalf("RTT before any reply: %+v", l)
	}
	first := pings[0]
	pings = nil
	now = now.Add(3 * time.Millisecond)
	step(msg.CommandReply{ID: first.ID, Tag: first.Tag, Reply: msg.Reply{Kind: msg.ReplyString, Str: "PONG"}})
	if l := rtt(); !l.HasRTT || l.RTT != 3*time.Millisecond {
		t.Fatalf("after the reply: %+v", l)
	}
	for len(pings) == 0 && now.Before(t0.Add(10*time.Second)) {
		now = now.Add(100 * time.Millisecond)
		step(nil)
	}
	if len(pings) == 0 {
		t.Fatal("no second PING")
	}
	if l := rtt(); !l.HasRTT || l.RTT != 3*time.Millisecond {
		t.Fatalf("with the next PING in flight: %+v", l)
	}
}

// TestMetricsViewPromotableReplicas: the count is of the replicas replica
// selection would accept now; each exclusion rule takes one away.
func TestMetricsViewPromotableReplicas(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	count := func() int { return s.MetricsView(now).Masters[0].PromotableReplicas }
	if n := count(); n != 2 {
		t.Fatalf("healthy: %d promotable, want 2", n)
	}
	rs := m.sortedReplicas()
	rs[0].priority = 0
	if n := count(); n != 1 {
		t.Fatalf("one at priority 0: %d promotable, want 1", n)
	}
	rs[1].link.ccUp = false
	if n := count(); n != 0 {
		t.Fatalf("and the other disconnected: %d promotable, want 0", n)
	}
}

// TestTotalTilt: each entry into TILT is counted, in the View (INFO's
// sentinel_total_tilt) and the metrics view, and leaving TILT keeps the
// count.
func TestTotalTilt(t *testing.T) {
	s := New(settings.Persisted{MyID: "cccccccccccccccccccccccccccccccccccccccc"}, Options{}, rand.New(rand.NewSource(1)), t0)
	now := t0
	step := func(d time.Duration) {
		now = now.Add(d)
		s.Tick(now, now)
		s.Ready()
	}
	step(100 * time.Millisecond)
	step(3 * time.Second) // over TiltTrigger (2 s): TILT
	step(100 * time.Millisecond)
	step(40 * time.Second) // TILT ends after 30 s, then a second jump
	if got := s.View().TotalTilt(); got != 2 {
		t.Fatalf("View().TotalTilt() = %d, want 2", got)
	}
	if got := s.MetricsView(now).Tilts; got != 2 {
		t.Fatalf("MetricsView().Tilts = %d, want 2", got)
	}
}
