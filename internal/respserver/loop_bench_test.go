//go:build linux

package respserver

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// BenchmarkLoopRequest is one client's requests served by a loop, as
// redis-benchmark sends them: one request per read ("one"), or sixteen
// in one write ("pipelined"). An op is one request; allocs/op counts
// the whole process's allocations per request (the client's side
// allocates nothing), which is what the loop's per-request path costs
// the collector.
func BenchmarkLoopRequest(b *testing.B) {
	if !useLoops {
		b.Skip("TCP clients are served by goroutines in this run")
	}
	for _, bc := range []struct {
		name, req, reply string
	}{
		{"PING", "*1\r\n$4\r\nPING\r\n", "+PONG\r\n"},
		{"GET-MASTER-ADDR-BY-NAME", "*3\r\n$8\r\nSENTINEL\r\n$23\r\nGET-MASTER-ADDR-BY-NAME\r\n$8\r\nmymaster\r\n",
			"*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n"},
	} {
		for _, depth := range []struct {
			name string
			n    int
		}{{"one", 1}, {"pipelined", 16}} {
			b.Run(bc.name+"/"+depth.name, func(b *testing.B) {
				srv, _ := newTestServer(nil)
				nc, err := net.Dial("tcp", serveTestServer(b, srv))
				if err != nil {
					b.Fatal(err)
				}
				defer nc.Close()
				req := bytes.Repeat([]byte(bc.req), depth.n)
				want := bytes.Repeat([]byte(bc.reply), depth.n)
				got := make([]byte, len(want))
				roundTrip := func() {
					if _, err := nc.Write(req); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(nc, got); err != nil || !bytes.Equal(got, want) {
						b.Fatalf("%q %v", got, err)
					}
				}
				roundTrip() // the client is registered and its View read
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i += depth.n {
					roundTrip()
				}
			})
		}
	}
}
