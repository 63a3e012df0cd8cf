//go:build unix

package respserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRepliesWrittenInline: a request/response client on a TCP or unix
// socket gets its replies written by its reader: no writer goroutine is
// started for 1,000 PINGs sent one at a time nor for 200 sent in one
// write, every reply arrives in order, and total_net_output_bytes counts
// exactly what the client read.
func TestRepliesWrittenInline(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			srv, _ := newTestServer(nil)
			address := "127.0.0.1:0"
			if network == "unix" {
				address = filepath.Join(t.TempDir(), "s")
			}
			ln, err := net.Listen(network, address)
			if err != nil {
				t.Fatal(err)
			}
			srv.ServeListener(ln)
			t.Cleanup(func() { srv.Close() })
			nc, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { nc.Close() })
			_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
			rd := bufio.NewReader(nc)
			read := 0
			expect := func(want string) {
				t.Helper()
				buf := make([]byte, len(want))
				if _, err := io.ReadFull(rd, buf); err != nil || string(buf) != want {
					t.Fatalf("got %q %v, want %q", buf, err, want)
				}
				read += len(want)
			}
			for i := 0; i < 1000; i++ {
				fmt.Fprintf(nc, "PING %d\r\n", i)
				s := strconv.Itoa(i)
				expect(fmt.Sprintf("$%d\r\n%s\r\n", len(s), s))
			}
			fmt.Fprint(nc, strings.Repeat("PING\r\n", 200))
			expect(strings.Repeat("+PONG\r\n", 200))
			if n := writerStarts(srv); n != 0 {
				t.Errorf("%d writer goroutines started, want 0", n)
			}
			fmt.Fprint(nc, "INFO stats\r\n")
			l, _ := rd.ReadString('\n')
			size, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
			body := make([]byte, size+2)
			if _, err := io.ReadFull(rd, body); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("total_net_output_bytes:%d\r\n", read); !strings.Contains(string(body), want) {
				t.Errorf("INFO stats has no %q:\n%s", want, body)
			}
		})
	}
}

// TestInlineBackpressureTCP: a client on TCP that sends commands without
// reading their replies is still read until replyBacklog bytes of replies
// wait in the server (the inline write hands what the socket refuses to
// the writer goroutine), then no longer; when it reads, its replies come.
func TestInlineBackpressureTCP(t *testing.T) {
	srv, _ := newTestServer(nil)
	addr := serveTestServer(t, srv)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	batch := []byte(strings.Repeat("INFO\r\n", 1000))
	sent := 0
	for ; sent < 20000; sent++ {
		_ = nc.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
		if _, err := nc.Write(batch); err != nil {
			break
		}
	}
	if sent == 20000 {
		t.Fatalf("the server read 20,000,000 INFO without their replies being read")
	}
	deadline := time.Now().Add(10 * time.Second)
	var used int64
	for time.Now().Before(deadline) {
		cs := srv.clientList()
		if len(cs) == 1 {
			if used, _ = cs[0].outputUsage(); used >= replyBacklog {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if used < replyBacklog || used > replyBacklog+64<<10 {
		t.Fatalf("%d bytes of replies wait, want from %d to %d", used, replyBacklog, replyBacklog+64<<10)
	}
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(nc)
	for i := 0; i < 1000; i++ {
		l, err := rd.ReadString('\n')
		if err != nil || !strings.HasPrefix(l, "$") {
			t.Fatalf("reply %d: %q %v", i, l, err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
		if _, err := rd.Discard(n + 2); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
	}
}
