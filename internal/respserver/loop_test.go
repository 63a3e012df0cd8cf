//go:build linux

package respserver

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// onlyOnLoops skips a test of the event-loop path when the tests run on
// goroutines (TestMain's second run).
func onlyOnLoops(t *testing.T) {
	t.Helper()
	if !useLoops {
		t.Skip("TCP clients are served by goroutines in this run")
	}
}

// TestLoopIdleClientHoldsNothing: a client served by a loop holds a
// request reader only while a request is partly read, and no goroutine
// ever; a request split across reads completes.
func TestLoopIdleClientHoldsNothing(t *testing.T) {
	onlyOnLoops(t)
	srv, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	waitUntil(t, "the client to be idle", func() bool { return srv.idleLoopClients() == 1 })
	c.Send("*2\r\n$4\r\nPING\r\n$5\r\nhel")
	waitUntil(t, "the partial request to hold a reader", func() bool { return srv.idleLoopClients() == 0 })
	if goroutinesRunning("respserver.(*Server).readLoop(") || goroutinesRunning("respserver.(*Server).work(") {
		t.Fatalf("a goroutine serves a loop client:\n%s", packageGoroutines())
	}
	c.Send("lo\r\n")
	if got := c.Reply(); got != "$5\r\nhello\r\n" {
		t.Fatalf("a request completed in a second read: %q", got)
	}
	waitUntil(t, "the client to be idle again", func() bool { return srv.idleLoopClients() == 1 })
	if n := srv.stats.writerStarts.Load(); n != 0 {
		t.Errorf("%d writer goroutines started for a loop client", n)
	}
}

// TestLoopCommandsOffLoopInOrder: in one pipeline, commands that step
// the core (run by a worker) and commands answered on the loop get their
// replies in request order, and the client is read again afterwards.
func TestLoopCommandsOffLoopInOrder(t *testing.T) {
	onlyOnLoops(t)
	srv, be, addr := startServer(t, nil)
	c := dial(t, addr)
	id := clientID(t, c)
	c.Send("PING a\r\nSENTINEL FLUSHCONFIG\r\nPING b\r\nSENTINEL MYID\r\nCLIENT ID\r\nROLE\r\nPING c\r\n")
	want := []string{
		"$1\r\na\r\n",
		"+OK\r\n",
		"$1\r\nb\r\n",
		fmt.Sprintf("$%d\r\n%s\r\n", len(testID), testID),
		fmt.Sprintf(":%d\r\n", id),
		"*2\r\n$8\r\nsentinel\r\n*1\r\n$8\r\nmymaster\r\n",
		"$1\r\nc\r\n",
	}
	for i, w := range want {
		if got := c.Reply(); got != w {
			t.Fatalf("reply %d: %q, want %q", i, got, w)
		}
	}
	be.mu.Lock()
	execs := be.execs
	be.mu.Unlock()
	if execs < 2 { // FLUSHCONFIG and MYID; ROLE answers from the View on the loop
		t.Errorf("%d Exec calls, want at least 2", execs)
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after the worker: %q", got)
	}
	waitUntil(t, "the client to be idle", func() bool { return srv.idleLoopClients() == 1 })
}

// TestLoopSubscriberNeverReads: on a single loop, a subscriber that never
// reads is closed at the pub/sub hard limit with Redis's log line, while
// another client of the same loop is answered throughout.
func TestLoopSubscriberNeverReads(t *testing.T) {
	onlyOnLoops(t)
	logs := newLogCapture()
	srv, _, addr := startServer(t, func(o *Options) {
		o.Loops = 1
		o.Logger = logs
		o.OutputLimits = &OutputLimits{PubSub: OutputLimit{Hard: 1 << 20}}
	})
	sub := subscriber(t, addr, "ch")
	other := dial(t, addr)
	msg := strings.Repeat("x", 16<<10)
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the subscriber was not closed")
		}
		n := srv.Publish("ch", msg)
		if got := other.Do("PING", fmt.Sprint(i)); got != fmt.Sprintf("$%d\r\n%d\r\n", len(fmt.Sprint(i)), i) {
			t.Fatalf("PING %d beside a subscriber that does not read: %q", i, got)
		}
		if n == 0 {
			break
		}
	}
	logs.wait(t, "scheduled to be closed ASAP for overcoming of output buffer limits")
	readUntilClosed(t, sub)
}

// TestLoopsOff: Options.Loops < 0 serves every client by goroutines.
func TestLoopsOff(t *testing.T) {
	onlyOnLoops(t)
	srv, _, addr := startServer(t, func(o *Options) { o.Loops = -1 })
	c := dial(t, addr)
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	if n := srv.loopClients.Load(); n != 0 {
		t.Fatalf("%d clients on loops with Loops -1", n)
	}
}

// TestLoopCloseWithClients: Close returns with loop clients idle, busy
// halfway through a request and subscribed; every connection is closed
// and forgotten.
func TestLoopCloseWithClients(t *testing.T) {
	onlyOnLoops(t)
	srv, _ := newTestServer(nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.ServeListener(ln)
	t.Cleanup(func() { srv.Close() })
	var conns []net.Conn
	for _, send := range []string{"", "PING\r\n", "SUBSCRIBE ch\r\n", "*2\r\n$4\r\nPING\r\n"} {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.Write([]byte(send))
		conns = append(conns, nc)
	}
	waitUntil(t, "4 clients", func() bool { return len(srv.clientList()) == 4 })
	done := make(chan struct{})
	go func() {
		srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs with loop clients")
	}
	for _, nc := range conns {
		readUntilClosed(t, nc)
	}
	if n := len(srv.clientList()); n != 0 {
		t.Fatalf("after Close: %d clients", n)
	}
	if n := srv.loopClients.Load(); n != 0 {
		t.Fatalf("after Close: %d loop clients", n)
	}
}
