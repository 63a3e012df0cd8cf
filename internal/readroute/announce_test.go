package readroute

import (
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

func TestHistoryNote(t *testing.T) {
	var h History
	for k := int64(0); k < 10; k++ {
		h.Note(1, k*1000, 100*k, 3000)
	}
	// max-lag 3 s and two periods: the one sample before now-5 s kept.
	if got := len(h.Samples); got != 7 || h.Samples[0].At != 3000 {
		t.Fatalf("samples %v", h.Samples)
	}
	if h.Of(2) != nil || h.Of(1) == nil {
		t.Fatal("Of: by generation")
	}
	h.Note(1, 10000, 5, 3000) // the offset goes back: restarted
	if len(h.Samples) != 1 {
		t.Fatalf("restart kept %v", h.Samples)
	}
	h.Note(2, 11000, 50, 3000) // a switch
	if h.Gen != 2 || len(h.Samples) != 1 {
		t.Fatalf("switch kept %v", h.Samples)
	}
}

func TestAnnounce(t *testing.T) {
	a := settings.Addr{Host: "10.0.0.2", Port: 6379}
	b := settings.Addr{Host: "10.0.0.3", Port: 6379}
	f := &Facts{Replicas: []Replica{{Name: "a", Addr: a}, {Name: "b", Addr: b}}}
	types := func(cs []Change) (out []string) {
		for _, c := range cs {
			out = append(out, string(c.Type)+" "+c.Replica+c.Detail)
		}
		return out
	}
	st, cs, changed := Announce(State{}, f, Verdict{Serve: []settings.Addr{a, b}})
	if !changed || len(cs) != 2 || cs[0].Type != event.ProxyReplica || st.Serve.Text == "" {
		t.Fatalf("first: %v %v", changed, types(cs))
	}
	if _, cs, changed := Announce(st, f, Verdict{Serve: []settings.Addr{a, b}}); changed || cs != nil {
		t.Fatalf("same verdict: %v", types(cs))
	}
	st, cs, _ = Announce(st, f, Verdict{Serve: []settings.Addr{a}, Excluded: []Exclusion{{b, "link down"}}})
	if got := types(cs); len(got) != 1 || got[0] != "-proxy-replica b #link down" {
		t.Fatalf("b leaves: %v", got)
	}
	f2 := &Facts{Replicas: []Replica{{Name: "b", Addr: b}}}
	st, cs, _ = Announce(st, f2, Verdict{OnMaster: true, Excluded: []Exclusion{{b, "link down"}}})
	if got := types(cs); len(got) != 2 || got[0] != "-proxy-replica a #forgotten" || got[1] != "+proxy-replicas-fallback  #no replica qualifies" {
		t.Fatalf("a forgotten: %v", got)
	}
	_, cs, _ = Announce(st, f2, Verdict{Fenced: true, Reason: "this Sentinel is in TILT"})
	if got := types(cs); len(got) != 2 || got[0] != "-proxy-replicas-fallback " || got[1] != "+proxy-replicas-fenced  #this Sentinel is in TILT" {
		t.Fatalf("TILT: %v", got)
	}
}

func TestAnnounceUntil(t *testing.T) {
	f := &Facts{MasterUntil: 5000}
	v := Decide(*f)
	if !v.OnMaster || v.Until != 5000 {
		t.Fatalf("fallback: %+v", v)
	}
	st, cs, changed := Announce(State{}, f, v)
	if !changed || len(cs) != 1 || st.Until != 5000 {
		t.Fatalf("first: %v %+v", changed, cs)
	}
	f.MasterUntil = 6000 // the leases renewed: the View changes, no event
	st, cs, changed = Announce(st, f, Decide(*f))
	if !changed || len(cs) != 0 || st.Until != 6000 {
		t.Fatalf("renewed: %v %+v %d", changed, cs, st.Until)
	}
	f.NoFallback = true
	if v := Decide(*f); v.Until != 0 || !v.Fenced {
		t.Fatalf("no fallback: %+v", v)
	}
}
