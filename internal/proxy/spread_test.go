package proxy

import (
	"testing"
	"time"
)

// TestSpreadOverAddrs: connections go to the target with the fewest open
// (in turn on ties), and one whose target leaves Addrs is cut while the
// others stay.
func TestSpreadOverAddrs(t *testing.T) {
	a, b := newEcho(t, "A"), newEcho(t, "B")
	var rv routeVar
	rv.set(Route{Addrs: []string{a.addr(), b.addr()}, Hold: time.Second})
	s, addr := start(t, &rv, 0)
	got := map[string]int{}
	var cs []*client
	for k := 0; k < 4; k++ {
		c := dial(t, addr)
		l, err := c.say("x")
		if err != nil {
			t.Fatal(err)
		}
		got[l]++
		cs = append(cs, c)
	}
	if got["A x"] != 2 || got["B x"] != 2 {
		t.Fatalf("spread %v, want 2 and 2", got)
	}
	if st := s.MasterStats("m"); st.OpenByTarget[a.addr()] != 2 || st.OpenByTarget[b.addr()] != 2 {
		t.Errorf("open by target %v", st.OpenByTarget)
	}
	// B leaves: its connections are cut, A's stay.
	rv.set(Route{Addrs: []string{a.addr()}, Hold: time.Second})
	s.Notify()
	for _, c := range cs {
		l, err := c.say("y")
		switch {
		case err == nil && l != "A y":
			t.Errorf("a connection answered %q after B left", l)
		case err != nil:
			// cut: it was on B
		}
	}
	if cut := s.MasterStats("m").Cut; cut != 2 {
		t.Errorf("cut %d, want 2", cut)
	}
	c := dial(t, addr)
	if l, err := c.say("z"); l != "A z" {
		t.Fatalf("new connection: %q %v", l, err)
	}
	// A fenced route with Addrs holds, then forwards when it opens.
	rv.set(Route{Fenced: true, Hold: 2 * time.Second})
	s.Notify()
	c2 := dial(t, addr)
	go func() {
		time.Sleep(100 * time.Millisecond)
		rv.set(Route{Addrs: []string{b.addr()}, Hold: time.Second})
	}()
	if l, err := c2.say("w"); l != "B w" {
		t.Fatalf("held connection: %q %v", l, err)
	}
}
