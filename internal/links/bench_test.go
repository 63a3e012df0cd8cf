package links

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// benchPairs is how many instances BenchmarkLinkFootprint links to: a
// Sentinel watching 100 masters with one replica each holds 200 command and
// 200 pub/sub links.
const benchPairs = 200

// footprint is what the process holds at one moment, after a full GC.
type footprint struct {
	heap, stack uint64
	goroutines  int
}

func measure() footprint {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return footprint{heap: ms.HeapAlloc, stack: ms.StackInuse, goroutines: runtime.NumGoroutine()}
}

// await reads inputs from in until, for each kind in want, that many of it
// arrived; other inputs are dropped.
func await(b *testing.B, in <-chan msg.Input, want map[string]int) {
	b.Helper()
	timeout := time.After(waitLimit)
	missing := 0
	for _, n := range want {
		missing += n
	}
	for missing > 0 {
		select {
		case x := <-in:
			if c, ok := x.(msg.LinkClosed); ok {
				b.Fatalf("link %d closed: %s", c.ID, c.Err)
			}
			k := fmt.Sprintf("%T", x)
			if want[k] > 0 {
				want[k]--
				missing--
			}
		case <-timeout:
			b.Fatalf("still missing after %v: %v", waitLimit, want)
		}
	}
}

// BenchmarkLinkFootprint opens benchPairs command links and as many pub/sub
// links to one redis-server, exercises each once (a PING on every command
// link, one hello on the channel) and reports what the open links hold per
// link: live heap, goroutine stacks and goroutines.
func BenchmarkLinkFootprint(b *testing.B) {
	srv := startServer(b)
	pub := dialRaw(b, srv.addr)
	in := make(chan msg.Input, 4*benchPairs)
	var heap, stack, gor float64
	for range b.N {
		before := measure()
		l := New(Options{Deliver: func(x msg.Input) { in <- x }})
		for k := range benchPairs {
			id := msg.LinkID(2*k + 1)
			l.Apply(msg.OpenLink{ID: id, Kind: msg.CmdLink, Addr: srv.addr, ClientName: "sentinel-bench-cmd"})
			l.Apply(msg.OpenLink{ID: id + 1, Kind: msg.PubSubLink, Addr: srv.addr, Channel: helloCh, ClientName: "sentinel-bench-pubsub"})
			l.Apply(msg.Send{ID: id, Tag: 1, Args: []string{"PING"}})
		}
		await(b, in, map[string]int{"monitor.PubSubActivity": benchPairs, "monitor.CommandReply": benchPairs})
		if n := pub.do("PUBLISH", helloCh, "127.0.0.1,26379,0123456789012345678901234567890123456789,0,mymaster,127.0.0.1,6379,0"); n != int64(benchPairs) {
			b.Fatalf("PUBLISH reached %v subscribers, want %d", n, benchPairs)
		}
		await(b, in, map[string]int{"monitor.PubSubMessage": benchPairs})
		after := measure()
		heap += float64(after.heap) - float64(before.heap)
		stack += float64(after.stack) - float64(before.stack)
		gor += float64(after.goroutines - before.goroutines)
		l.Close()
		for len(in) > 0 {
			<-in
		}
	}
	links := float64(b.N * 2 * benchPairs)
	b.ReportMetric(heap/links, "heap-B/link")
	b.ReportMetric(stack/links, "stack-B/link")
	b.ReportMetric(gor/links, "goroutines/link")
}

// BenchmarkLinkPing is one PING round trip on a command link, as the core
// sees it: Send applied → CommandReply delivered.
func BenchmarkLinkPing(b *testing.B) {
	srv := startServer(b)
	in := make(chan msg.Input, 16)
	l := New(Options{Deliver: func(x msg.Input) { in <- x }})
	b.Cleanup(l.Close)
	l.Apply(msg.OpenLink{ID: 1, Kind: msg.CmdLink, Addr: srv.addr})
	await(b, in, map[string]int{"monitor.LinkLocalAddr": 1})
	args := []string{"PING"}
	b.ReportAllocs()
	var tag uint64
	for b.Loop() {
		tag++
		l.Apply(msg.Send{ID: 1, Tag: tag, Args: args})
		await(b, in, map[string]int{"monitor.CommandReply": 1})
	}
}

// BenchmarkLinkHello is one hello delivered on a pub/sub link: PUBLISH by
// another client → PubSubMessage delivered (the publisher's work included).
func BenchmarkLinkHello(b *testing.B) {
	srv := startServer(b)
	pub := dialRaw(b, srv.addr)
	in := make(chan msg.Input, 16)
	l := New(Options{Deliver: func(x msg.Input) { in <- x }})
	b.Cleanup(l.Close)
	l.Apply(msg.OpenLink{ID: 1, Kind: msg.PubSubLink, Addr: srv.addr, Channel: helloCh})
	await(b, in, map[string]int{"monitor.PubSubActivity": 1})
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		pub.send("PUBLISH", helloCh, "127.0.0.1,26379,0123456789012345678901234567890123456789,"+strconv.Itoa(n)+",mymaster,127.0.0.1,6379,0")
		await(b, in, map[string]int{"monitor.PubSubMessage": 1})
		_ = pub.read()
	}
}

// TestLinkBuffersAreSmall pins the buffer sizes of a link
// (BenchmarkLinkFootprint shows what they cost).
func TestLinkBuffersAreSmall(t *testing.T) {
	if linkReadBuffer > 4096 || maxKeptWriteBuffer > 4096 {
		t.Fatalf("link buffers read %d, kept write %d, want at most 4 KiB each", linkReadBuffer, maxKeptWriteBuffer)
	}
}
