//go:build linux

package respserver

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// FuzzLoopConn is FuzzServerConn over a TCP connection served by a loop
// (FuzzServerConn's net.Pipe is served by goroutines): whatever a client
// sends, in reads of whatever size, the server answers or closes it,
// another client of the same loop is still answered, and Close leaves no
// client behind.
func FuzzLoopConn(f *testing.F) {
	for i, s := range readerSeeds {
		f.Add([]byte(s), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, input []byte, auth bool) {
		if !useLoops {
			t.Skip("TCP clients are served by goroutines in this run")
		}
		pass := ""
		if auth {
			pass = "pw"
		}
		srv := fuzzServer(t, pass)
		srv.opts.Loops = 1
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if errors.Is(err, syscall.EADDRINUSE) {
			t.Skip("no loopback port free (fuzzing spends them faster than TIME_WAIT frees them)")
		}
		if err != nil {
			t.Fatal(err)
		}
		srv.ServeListener(ln)
		t.Cleanup(func() { srv.Close() })
		nc := fuzzDial(t, ln.Addr().String())
		defer nc.Close()
		drained := make(chan struct{})
		go func() {
			_, _ = io.Copy(io.Discard, nc)
			close(drained)
		}()
		// A command held by CLIENT PAUSE stops the server reading; the
		// deadline bounds the wait.
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = nc.Write(input)
		// CLIENT PAUSE would hold the other client's PING too.
		if !bytes.Contains(bytes.ToLower(input), []byte("pause")) {
			other := fuzzDial(t, ln.Addr().String())
			defer other.Close()
			_ = other.SetDeadline(time.Now().Add(10 * time.Second))
			_, _ = other.Write([]byte("PING\r\n"))
			buf := make([]byte, 64)
			n, err := other.Read(buf)
			if got := string(buf[:n]); got != "+PONG\r\n" && got != "-NOAUTH Authentication required.\r\n" {
				t.Fatalf("another client of the loop: %q %v", got, err)
			}
		}
		_ = nc.(*net.TCPConn).CloseWrite()
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		<-drained

		stopped := make(chan struct{})
		go func() {
			srv.Close()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not stop")
		}
		if n := len(srv.clientList()); n != 0 {
			t.Fatalf("after close: %d clients left", n)
		}
	})
}

// fuzzDial connects to addr; the fuzz target is skipped when the machine
// has no loopback port left (fuzzing spends them faster than TIME_WAIT
// frees them).
func fuzzDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skip("no loopback port free")
	}
	if err != nil {
		t.Fatal(err)
	}
	return nc
}
