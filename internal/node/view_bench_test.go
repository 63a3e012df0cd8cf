package node

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// answeringLinks carries out a core's link actions as healthy instances
// would answer them, from another goroutine: a link connects, a command
// gets its reply, each delivered to the loop.
type answeringLinks struct {
	out chan msg.Input
}

func newAnsweringLinks(l **Loop) *answeringLinks {
	a := &answeringLinks{out: make(chan msg.Input, 1<<16)}
	go func() {
		for in := range a.out {
			(*l).Deliver(in)
		}
	}()
	return a
}

func (a *answeringLinks) OpenLink(o msg.OpenLink) {
	a.out <- msg.LinkConnected{ID: o.ID}
	if o.Kind == msg.CmdLink {
		a.out <- msg.LinkLocalAddr{ID: o.ID, Addr: settings.Addr{Host: "10.0.0.9", Port: 40000}}
	}
}

func (a *answeringLinks) CloseLink(msg.CloseLink) {}

func (a *answeringLinks) Send(s msg.Send) {
	rep := msg.Reply{Kind: msg.ReplyInt, Int: 1}
	switch s.Args[0] {
	case "PING":
		rep = msg.Reply{Kind: msg.ReplyString, Str: "PONG"}
	case "INFO":
		rep = msg.Reply{Kind: msg.ReplyString, Str: "# Replication\r\nrole:master\r\nrun_id:0123456789012345678901234567890123456789\r\n"}
	}
	a.out <- msg.CommandReply{ID: s.ID, Tag: s.Tag, Reply: rep}
}

// busyLoop runs a loop watching n masters with 2 replicas and 2 other
// Sentinels each, every instance answering, the other Sentinels sending
// hellos (2 per master and second), after a warm-up that opens the links.
func busyLoop(b *testing.B, n int) *Loop {
	p := settings.Persisted{MyID: strings.Repeat("a", 40)}
	for i := 0; i < n; i++ {
		m := settings.NewMasterSpec(fmt.Sprintf("m%04d", i), settings.Addr{Host: "10.0.0.1", Port: 7000 + i}, 2)
		m.KnownReplicas = []settings.Addr{{Host: "10.0.0.2", Port: 7000 + i}, {Host: "10.0.0.3", Port: 7000 + i}}
		m.KnownSentinels = []settings.SentinelSpec{
			{Addr: settings.Addr{Host: "10.0.1.1", Port: 26379}, RunID: strings.Repeat("1", 40)},
			{Addr: settings.Addr{Host: "10.0.1.2", Port: 26379}, RunID: strings.Repeat("2", 40)},
		}
		p.Masters = append(p.Masters, m)
	}
	core := monitor.New(p, monitor.Options{Port: 26379, Accel: settings.DefaultAccel()}, rand.New(rand.NewSource(1)), time.Now())
	var l *Loop
	links := newAnsweringLinks(&l)
	l = NewLoop(core, &memLog{}, withFakes(Effects{Links: links}), time.Now)
	go l.Run()
	stop := make(chan struct{})
	hellos := make(chan struct{})
	go func() { // the other Sentinels' hellos, 2,000 a second at 1,000 masters
		defer close(hellos)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for j := 0; j < 2*n/1000; j++ {
				i := (2*k + j) % n
				peer := 1 + j%2
				l.Deliver(msg.HelloFromClient{Payload: gossip.Hello{
					SentinelIP: fmt.Sprintf("10.0.1.%d", peer), SentinelPort: 26379, RunID: strings.Repeat(fmt.Sprint(peer), 40),
					MasterName: fmt.Sprintf("m%04d", i), MasterIP: "10.0.0.1", MasterPort: 7000 + i}.Encode()})
			}
		}
	}()
	b.Cleanup(func() { close(stop); <-hellos; l.Stop(); close(links.out) })
	time.Sleep(2 * time.Second)
	return l
}

// BenchmarkQueriesWhileBusy measures read-only queries from a client
// while the loop runs a Sentinel watching 1,000 masters (5,000 instances:
// ticks, replies, hellos), answered the way they were before (exec: on
// the loop, behind its ticks and inputs) and as they are now (view: from
// the View the loop published), flat out and paced (2,000 queries a
// second, 100 of MASTERS, which renders 1,000 maps).
// It reports the latency percentiles of a query besides its mean, and how
// long the loop took to start an Exec meanwhile.
func BenchmarkQueriesWhileBusy(b *testing.B) {
	l := busyLoop(b, 1000)
	const name = "m0500"
	queries := []struct {
		name  string
		every time.Duration                   // the pace of the paced runs
		exec  func(monitor.Handle, time.Time) // on the loop, as the queries ran before the View was published (the owner's *Sentinel)
		view  func(*view.View, time.Time)
	}{
		{"GET-MASTER-ADDR-BY-NAME", 500 * time.Microsecond,
			func(c monitor.Handle, _ time.Time) { c.(*monitor.Sentinel).View().MasterAddr(name) },
			func(v *view.View, _ time.Time) { v.MasterAddr(name) }},
		{"MASTER", 500 * time.Microsecond,
			func(c monitor.Handle, now time.Time) { _, _ = c.(*monitor.Sentinel).View().Master(now, name) },
			func(v *view.View, now time.Time) { _, _ = v.Master(now, name) }},
		{"MASTERS", 10 * time.Millisecond,
			func(c monitor.Handle, now time.Time) { c.(*monitor.Sentinel).View().Masters(now) },
			func(v *view.View, now time.Time) { v.Masters(now) }},
	}
	for _, q := range queries {
		for _, every := range []time.Duration{0, q.every} {
			rate := "flat-out"
			if every > 0 {
				rate = fmt.Sprintf("%dqps", time.Second/every)
			}
			b.Run(q.name+"/exec/"+rate, func(b *testing.B) {
				measure(b, l, every, func() {
					if _, err := l.Exec(q.exec); err != nil {
						b.Error(err)
					}
				})
			})
			b.Run(q.name+"/view/"+rate, func(b *testing.B) {
				measure(b, l, every, func() { q.view(l.View(), time.Now()) })
			})
		}
	}
}

// measure runs op from one client, leaving the other core to the loop,
// flat out or once every every, and reports the percentiles of its
// latency, and the 99th percentile of how long the loop took meanwhile
// to start an Exec asked for every millisecond (as a vote a peer asks
// for waits for the loop).
func measure(b *testing.B, l *Loop, every time.Duration, op func()) {
	all := make([]time.Duration, 0, b.N)
	probe := make(chan []time.Duration)
	stop := make(chan struct{})
	go func() {
		var lat []time.Duration
		for {
			select {
			case <-stop:
				probe <- lat
				return
			case <-time.After(time.Millisecond):
			}
			start := time.Now()
			var waited time.Duration
			_, _ = l.Exec(func(monitor.Handle, time.Time) { waited = time.Since(start) })
			lat = append(lat, waited)
		}
	}()
	b.ResetTimer()
	begin := time.Now()
	for i := 0; i < b.N; i++ {
		if every > 0 {
			time.Sleep(time.Until(begin.Add(time.Duration(i) * every)))
		}
		start := time.Now()
		op()
		all = append(all, time.Since(start))
	}
	b.StopTimer()
	close(stop)
	loop := <-probe
	report := func(lat []time.Duration, q float64, unit string) {
		if len(lat) > 0 {
			slices.Sort(lat)
			b.ReportMetric(float64(lat[int(q*float64(len(lat)-1))].Nanoseconds())/1e3, unit)
		}
	}
	report(all, 0.5, "p50-µs")
	report(all, 0.99, "p99-µs")
	report(loop, 0.99, "loop-p99-µs")
}
