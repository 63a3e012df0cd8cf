//go:build linux

package netloop

import (
	"io"
	"runtime"
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

// TestLingerNotOnOneP: a blocking loop lingers while Go has another P for
// the other goroutines, and not while it runs on one, whose P the linger
// would hold from them; a parking loop lingers either way (it yields its
// P first). Both serve every round.
func TestLingerNotOnOneP(t *testing.T) {
	for _, procs := range []int{2, 1} {
		prev := runtime.GOMAXPROCS(procs)
		g := newGroup(t, 1)
		l := g.Next()
		if err := l.SetLinger(200 * time.Microsecond); err != nil {
			t.Fatal(err)
		}
		e := newEcho()
		cl, c := pair(t, e)
		if err := l.Register(c); err != nil {
			t.Fatal(err)
		}
		_ = cl.SetDeadline(time.Now().Add(20 * time.Second))
		buf := make([]byte, 4)
		for i := range 50 {
			if _, err := cl.Write([]byte("ping")); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(cl, buf); err != nil || string(buf) != "ping" {
				t.Fatalf("GOMAXPROCS %d, round %d: %q %v", procs, i, buf, err)
			}
		}
		lingers := make(chan int)
		if err := l.Submit(func() { lingers <- l.lingers }); err != nil {
			t.Fatal(err)
		}
		n := <-lingers
		runtime.GOMAXPROCS(prev)
		switch {
		case procs == 1 && !parkingTests && n != 0:
			t.Errorf("a blocking loop on one P lingered %d times", n)
		case (procs > 1 || parkingTests) && n == 0:
			t.Errorf("GOMAXPROCS %d, parking %v: never lingered in 50 rounds", procs, parkingTests)
		}
	}
}
