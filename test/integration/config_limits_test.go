package integration

import (
	"fmt"
	"net"
	"strings"
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
