package respserver

import (
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzServerConn sends the input as one client's byte stream to a real
// server (the request reader, dispatch, every command handler and a core),
// over an in-memory connection, then hangs up. Nothing may panic, and once
// the server is closed nothing of the client may remain: no registered
// client, no subscription, no goroutine.
func FuzzServerConn(f *testing.F) {
	for i, s := range readerSeeds {
		f.Add([]byte(s), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, input []byte, auth bool) {
		pass := ""
		if auth {
			pass = "pw"
		}
		srv := fuzzServer(t, pass)
		cli, conn := net.Pipe()
		srv.serveConn(conn)
		drained := make(chan struct{})
		go func() {
			_, _ = io.Copy(io.Discard, cli)
			close(drained)
		}()
		// A command held by CLIENT PAUSE stops the server reading; the
		// deadline bounds the wait.
		_ = cli.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = cli.Write(input)
		cli.Close()
		<-drained

		stopped := make(chan struct{})
		go func() {
			srv.Close()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("the server did not stop:\n%s", buf[:runtime.Stack(buf, true)])
		}
		srv.mu.Lock()
		n := len(srv.clients)
		srv.mu.Unlock()
		srv.hub.mu.RLock()
		subs := len(srv.hub.channels) + len(srv.hub.patterns)
		srv.hub.mu.RUnlock()
		if n != 0 || subs != 0 {
			t.Fatalf("after close: %d clients, %d subscriptions left", n, subs)
		}
		// Goroutines of the server (readers, writers, timers it started)
		// must all be gone; the fuzzing machinery starts its own, so they
		// are told apart by their stacks.
		deadline := time.Now().Add(5 * time.Second)
		for {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			if !serverGoroutine(stacks) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("goroutines of the server left after Close:\n%s", stacks)
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// serverGoroutine reports whether a goroutine dump holds a goroutine
// running server code (other than this fuzz target itself and TestMain,
// under which the whole test binary runs).
func serverGoroutine(stacks string) bool {
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "internal/respserver.") && !strings.Contains(g, "respserver.FuzzServerConn") &&
			!strings.Contains(g, "respserver.TestMain") {
			return true
		}
	}
	return false
}
