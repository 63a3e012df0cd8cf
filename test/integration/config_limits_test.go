package integration

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClientLimitsFromConfig: proto-max-bulk-len and
// client-query-buffer-limit from sentinel.conf apply on the Sentinel port
// (they were parsed and ignored before), and the rewrite keeps the lines.
func TestClientLimitsFromConfig(t *testing.T) {
	port := freePort(t)
	conf := writeConf(t, fmt.Sprintf("port %d\nproto-max-bulk-len 1mb\nclient-query-buffer-limit 1mb\n"+
		"client-output-buffer-limit pubsub 1mb 512kb 10\n", port))
	startSentinel(t, conf, port, nil)

	send := func(raw string) string {
		nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		go nc.Write([]byte(raw))
		buf := make([]byte, 256)
		n, _ := nc.Read(buf)
		return string(buf[:n])
	}
	// 1mb + 1 byte is beyond proto-max-bulk-len 1mb (Redis's default is 512mb).
	if got := send(fmt.Sprintf("*2\r\n$4\r\nPING\r\n$%d\r\n", 1<<20+1)); !strings.HasPrefix(got, "-ERR Protocol error: invalid bulk length") {
		t.Fatalf("over proto-max-bulk-len: %q", got)
	}
	client(t, port).Do(t.Context(), "SENTINEL", "FLUSHCONFIG")
	text := readFile(t, conf)
	for _, l := range []string{"proto-max-bulk-len 1mb", "client-query-buffer-limit 1mb", "client-output-buffer-limit pubsub 1mb 512kb 10"} {
		if !hasLine(text, l) {
			t.Errorf("rewritten config lost %q:\n%s", l, text)
		}
	}
}

// exchange sends raw on a new connection to port and reads until the
// server closes it or wait passes; it returns what came back and whether
// the connection was closed (an EOF or a reset).
func exchange(t *testing.T, port int, raw []byte, wait time.Duration) (string, bool) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	go nc.Write(raw)
	_ = nc.SetReadDeadline(time.Now().Add(wait))
	var got []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := nc.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			var ne net.Error
			return string(got), !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

// slowSubscriberSent subscribes on port, pipelines 60 KB PINGs without
// reading (their replies count against the pub/sub class) and returns
// how many bytes it sent before the server closed it. Its receive buffer
// is kept at 64 KiB so that kernel buffers hold little of the output.
func slowSubscriberSent(t *testing.T, port int) int64 {
	t.Helper()
	d := net.Dialer{Timeout: time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10)
		})
	}}
	nc, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ping := []byte(fmt.Sprintf("PING %s\r\n", strings.Repeat("p", 60000)))
	if _, err := nc.Write([]byte("SUBSCRIBE ch\r\n")); err != nil {
		t.Fatal(err)
	}
	var sent int64
	for sent < 256<<20 {
		_ = nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		n, err := nc.Write(ping)
		sent += int64(n)
		if err != nil {
			return sent
		}
	}
	t.Fatalf("port %d: the subscriber sent %s and is still open", port, mib(sent))
	return 0
}

// TestClientLimitsMatchRedis runs go-sentinel and redis-sentinel 7.0.15
// on the same limits and checks that each directive is applied, with the
// same replies: proto-max-bulk-len 1mb (a longer bulk gets Redis's
// protocol error and the connection closed; the default is 512mb),
// client-query-buffer-limit 1mb (a request with a 1 MiB argument closes
// the connection without a reply; the default is 1gb) and
// client-output-buffer-limit normal 1kb 0 0 pubsub 1kb 0 0 (INFO is
// answered, its reply fitting Redis's uncounted 16 KiB reply buffer; a
// subscriber that does not read is closed long before the default 32mb). Neither daemon can change
// them at runtime: CONFIG is not a Sentinel command and SENTINEL CONFIG
// SET refuses them, with the same errors.
func TestClientLimitsMatchRedis(t *testing.T) {
	const limits = "proto-max-bulk-len 1mb\nclient-query-buffer-limit 1mb\nclient-output-buffer-limit normal 1kb 0 0 pubsub 1kb 0 0\n"
	const (
		protoErr  = "-ERR Protocol error: invalid bulk length\r\n"
		configErr = "-ERR unknown command 'CONFIG', with args beginning with: 'SET' 'proto-max-bulk-len' '2mb' \r\n"
		setErr    = "-ERR Invalid argument 'proto-max-bulk-len' to SENTINEL CONFIG SET\r\n"
	)
	for _, impl := range []string{"go-sentinel", "redis-sentinel"} {
		port := freePort(t)
		conf := writeConf(t, fmt.Sprintf("port %d\n%s", port, limits))
		if impl == "go-sentinel" {
			startSentinel(t, conf, port, nil)
		} else {
			start(t, filepath.Dir(conf), nil, needBinary(t, "redis-sentinel"), conf)
			waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(port) })
		}
		for _, c := range []struct{ what, send, want string }{
			{"CONFIG SET", "CONFIG SET proto-max-bulk-len 2mb\r\n", configErr},
			{"SENTINEL CONFIG SET", "SENTINEL CONFIG SET proto-max-bulk-len 2mb\r\n", setErr},
		} {
			if got, closed := exchange(t, port, []byte(c.send), 300*time.Millisecond); got != c.want || closed {
				t.Errorf("%s: %s: %q (closed %v), want %q", impl, c.what, got, closed, c.want)
			}
		}
		// normal 1kb: an INFO reply (2.5 KB) fits the 16 KiB reply buffer
		// Redis does not count, so the client is answered and kept.
		if got, closed := exchange(t, port, []byte("INFO\r\n"), 300*time.Millisecond); closed || len(got) < 1<<10 || !strings.HasSuffix(got, "\r\n\r\n") {
			t.Errorf("%s: INFO under normal 1kb: %d bytes (closed %v), want the whole reply and the connection kept", impl, len(got), closed)
		}
		if got, closed := exchange(t, port, []byte(fmt.Sprintf("*2\r\n$4\r\nPING\r\n$%d\r\n", 1<<20+1)), 5*time.Second); got != protoErr || !closed {
			t.Errorf("%s: a bulk of 1mb + 1 byte: %q (closed %v), want %q and closed", impl, got, closed, protoErr)
		}
		req := append([]byte(fmt.Sprintf("*2\r\n$4\r\nPING\r\n$%d\r\n", 1<<20)), strings.Repeat("x", 1<<20)+"\r\n"...)
		if got, closed := exchange(t, port, req, 5*time.Second); got != "" || !closed {
			t.Errorf("%s: a request of one 1mb argument: %.60q (closed %v), want no reply and closed", impl, got, closed)
		}
		// The default pubsub limit (32mb hard) closes the subscriber only
		// once 32 MiB of replies wait, so only after it sent more than
		// 32 MiB of PINGs (the replies are as long): closed before, a
		// smaller limit applies. Kernel buffers hold a few MiB of either.
		sent := slowSubscriberSent(t, port)
		t.Logf("%s: pubsub 1kb 0 0 closed the slow subscriber after it sent %s", impl, mib(sent))
		if sent >= 32<<20 {
			t.Errorf("%s: the subscriber sent %s before it was closed: pubsub 1kb not applied", impl, mib(sent))
		}
		if !alive(port) {
			t.Fatalf("%s stopped answering", impl)
		}
	}
}
