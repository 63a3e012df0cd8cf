package respserver

import (
	"io"
	"net"
	"runtime"
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
		before := runtime.NumGoroutine()
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
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Fatalf("%d goroutines left over %d:\n%s", runtime.NumGoroutine()-before, before, buf[:runtime.Stack(buf, true)])
			}
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
	})
}
