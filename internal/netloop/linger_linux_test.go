//go:build linux

package netloop

import (
	"io"
	"testing"
	"time"
)

// TestLingerServesRequestReply: a lingering loop answers a request/reply
// client round after round, whether the next request comes while it
// lingers or after it parked, and another connection of the same loop is
// served meanwhile.
func TestLingerServesRequestReply(t *testing.T) {
	g := newGroup(t, 1)
	l := g.Next()
	if err := l.SetLinger(200 * time.Microsecond); err != nil {
		t.Fatal(err)
	}
	e1, e2 := newEcho(), newEcho()
	cl1, c1 := pair(t, e1)
	cl2, c2 := pair(t, e2)
	if err := l.Register(c1, c2); err != nil {
		t.Fatal(err)
	}
	_ = cl1.SetDeadline(time.Now().Add(20 * time.Second))
	_ = cl2.SetDeadline(time.Now().Add(20 * time.Second))
	buf := make([]byte, 4)
	for i := range 200 {
		cl := cl1
		if i%2 == 1 {
			cl = cl2
		}
		if i%50 == 0 {
			// Past the linger: the loop has parked.
			time.Sleep(2 * time.Millisecond)
		}
		if _, err := cl.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(cl, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("round %d: %q %v", i, buf, err)
		}
	}
}
