package node

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// viewPeer is a Sentinel the test cores know for their master; its
// hellos with a newer config epoch switch the master's address.
const viewPeer = "1111111111111111111111111111111111111111"

// viewMasterPort is the master's port at config epoch 0; epoch e moves
// it to viewMasterPort+e.
const viewMasterPort = 16000

// switchHello is viewPeer's hello announcing config epoch e, which moves
// mymaster to port viewMasterPort+e.
func switchHello(e int) string {
	return gossip.Hello{SentinelIP: "127.0.0.1", SentinelPort: 9, RunID: viewPeer, CurrentEpoch: uint64(e),
		MasterName: "mymaster", MasterIP: "127.0.0.1", MasterPort: viewMasterPort + e, MasterConfigEpoch: uint64(e)}.Encode()
}

// viewCore is a core watching mymaster, with viewPeer known, and any
// number of other masters to make its ticks and Views heavier.
func viewCore(others int) *monitor.Sentinel {
	m := settings.NewMasterSpec("mymaster", settings.Addr{Host: "127.0.0.1", Port: viewMasterPort}, 1)
	m.KnownSentinels = []settings.SentinelSpec{{Addr: settings.Addr{Host: "127.0.0.1", Port: 9}, RunID: viewPeer}}
	p := settings.Persisted{MyID: strings.Repeat("a", 40), Masters: []settings.MasterSpec{m}}
	for i := 0; i < others; i++ {
		o := settings.NewMasterSpec(fmt.Sprintf("other%04d", i), settings.Addr{Host: "127.0.0.1", Port: 20000 + i}, 1)
		o.KnownReplicas = []settings.Addr{{Host: "127.0.0.2", Port: 20000 + i}}
		o.KnownSentinels = m.KnownSentinels
		p.Masters = append(p.Masters, o)
	}
	return monitor.New(p, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now())
}

// switchedPort is the new port a +switch-master message names.
func switchedPort(t *testing.T, msg string) int {
	t.Helper()
	f := strings.Fields(msg)
	p, err := strconv.Atoi(f[len(f)-1])
	if len(f) != 5 || err != nil {
		t.Fatalf("malformed +switch-master %q", msg)
	}
	return p
}

// switchLog calls check with the text of every +switch-master log line.
type switchLog struct {
	memLog
	check func(text string)
}

func (s *switchLog) Warningf(f string, a ...any) {
	if text := fmt.Sprintf(f, a...); strings.Contains(text, "+switch-master") {
		s.check(text)
	}
	s.memLog.Warningf(f, a...)
}

// TestViewPublishedBeforeSwitchMaster stops the loop in the middle of
// announcing +switch-master, on its log line and on its pub/sub
// message, and reads the View from another goroutine: it already names
// the new address.
func TestViewPublishedBeforeSwitchMaster(t *testing.T) {
	var l *Loop
	checked := make(chan string, 4)
	// readAddr reads the master's address as a client would, from
	// another goroutine while the loop waits.
	readAddr := func() string {
		done := make(chan string)
		go func() {
			a, _ := l.View().MasterAddr("mymaster")
			done <- fmt.Sprintf("%s:%d", a.Host, a.Port)
		}()
		return <-done
	}
	log := &switchLog{check: func(text string) { checked <- "log " + text + " -> " + readAddr() }}
	fx := withFakes(Effects{Publish: func(ch, msg string) {
		if ch == "+switch-master" {
			checked <- "pubsub " + msg + " -> " + readAddr()
		}
	}})
	l = NewLoop(viewCore(0), log, fx, time.Now)
	go l.Run()
	t.Cleanup(l.Stop)
	l.Deliver(msg.HelloFromClient{Payload: switchHello(1)})
	want := fmt.Sprintf("mymaster 127.0.0.1 %d 127.0.0.1 %d -> 127.0.0.1:%d", viewMasterPort, viewMasterPort+1, viewMasterPort+1)
	for _, via := range []string{"log +switch-master ", "pubsub "} {
		select {
		case got := <-checked:
			if !strings.HasPrefix(got, via) || !strings.HasSuffix(got, want) {
				t.Errorf("got %q, want %q%s", got, via, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no +switch-master")
		}
	}
}

// TestViewNeverOlderThanAnnounced races readers of the View against a
// loop that switches the master's address over and over (and ticks
// fifty other masters): a reader that has seen +switch-master to
// epoch e never reads an address of an older epoch. Run it with -race.
func TestViewNeverOlderThanAnnounced(t *testing.T) {
	const switches = 200
	var announced atomic.Int64 // the newest epoch a subscriber was told of
	events := make(chan string, switches)
	fx := withFakes(Effects{Publish: func(ch, msg string) {
		if ch == "+switch-master" {
			events <- msg
		}
	}})
	l := NewLoop(viewCore(50), &memLog{}, fx, time.Now)
	go l.Run()
	t.Cleanup(l.Stop)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the subscriber
		defer wg.Done()
		for e := 1; e <= switches; e++ {
			msg := <-events
			if p := switchedPort(t, msg); p != viewMasterPort+e {
				t.Errorf("switch %d announced port %d", e, p)
			}
			a, _ := l.View().MasterAddr("mymaster")
			if a.Port < viewMasterPort+e {
				t.Errorf("after %q the View names port %d", msg, a.Port)
			}
			announced.Store(int64(e))
		}
	}()
	stop := make(chan struct{})
	var reads atomic.Int64
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() { // clients that heard of the switches from the subscriber
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				e := announced.Load()
				v := l.View()
				a, _ := v.MasterAddr("mymaster")
				if a.Port < viewMasterPort+int(e) {
					t.Errorf("told of epoch %d, the View names port %d", e, a.Port)
					return
				}
				if _, err := v.Master(time.Now(), "mymaster"); err != nil {
					t.Error(err)
					return
				}
				reads.Add(1)
			}
		}()
	}
	rnd := rand.New(rand.NewSource(1))
	for e := 1; e <= switches; e++ {
		l.Deliver(msg.HelloFromClient{Payload: switchHello(e)})
		for k := rnd.Intn(5); k > 0; k-- { // hellos that change nothing but lastHelloTime
			l.Deliver(msg.HelloFromClient{Payload: switchHello(e)})
		}
	}
	deadline := time.After(30 * time.Second)
	for announced.Load() < switches && !t.Failed() {
		select {
		case <-deadline:
			t.Fatalf("only %d of %d switches announced", announced.Load(), switches)
		case <-time.After(time.Millisecond):
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d reads during %d switches", reads.Load(), switches)
}

// TestNodeAnswersNewAddressAfterSwitchMaster is the same over the RESP
// port: a client subscribed to +switch-master asks
// SENTINEL GET-MASTER-ADDR-BY-NAME on another connection as soon as it
// hears of a switch, and gets the new address.
func TestNodeAnswersNewAddressAfterSwitchMaster(t *testing.T) {
	_, _, c, _ := startNode(t, fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 1\nsentinel known-sentinel mymaster 127.0.0.1 9 %s\n",
		viewMasterPort, viewPeer))
	ctx := context.Background()
	sub := c.Subscribe(ctx, "+switch-master")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	const switches = 50
	published := make(chan struct{})
	defer func() { <-published }()
	go func() {
		defer close(published)
		for e := 1; e <= switches; e++ {
			if err := c.Do(ctx, "PUBLISH", gossip.Channel, switchHello(e)).Err(); err != nil {
				t.Errorf("PUBLISH: %v", err)
				return
			}
		}
	}()
	ch := sub.Channel()
	for e := 1; e <= switches; e++ {
		var msg string
		select {
		case m := <-ch:
			msg = m.Payload
		case <-time.After(10 * time.Second):
			t.Fatalf("no +switch-master %d", e)
		}
		want := switchedPort(t, msg)
		addr, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
		if err != nil || len(addr) != 2 {
			t.Fatalf("GET-MASTER-ADDR-BY-NAME: %v %v", addr, err)
		}
		if p, _ := strconv.Atoi(addr[1]); p < want {
			t.Fatalf("after %q GET-MASTER-ADDR-BY-NAME names %v", msg, addr)
		}
	}
}

// TestQuietInputsPublishedTogether drives a loop's input handling by
// hand: hellos that produce nothing to carry out are published together
// while more inputs wait, at the latest after maxUnpublished of them or
// once none waits (unpublished counts the inputs since the last
// publication; a hello that changes only its time even leaves the View
// as it was, its time shown through a cell); an input that produces
// output is published before it is carried out.
func TestQuietInputsPublishedTogether(t *testing.T) {
	clock := time.Now()
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	l := NewLoop(viewCore(0), &memLog{}, withFakes(Effects{}), now)
	l.drain() // what Run does first
	step := func() {
		in, ok := l.nextInput()
		if !ok {
			t.Fatal("no input waits")
		}
		if _, err := l.core.Step(l.now(), in); err != nil {
			t.Fatal(err)
		}
		l.finish(nil)
	}
	quiet := msg.HelloFromClient{Payload: switchHello(0)}
	for i := 0; i < maxUnpublished+2; i++ {
		l.Deliver(quiet)
	}
	v := l.View()
	for i := 1; i < maxUnpublished; i++ {
		step()
		if l.unpublished != i {
			t.Fatalf("published after quiet input %d with more waiting", i)
		}
	}
	step()
	if l.unpublished != 0 {
		t.Fatalf("not published after %d quiet inputs", maxUnpublished)
	}
	if l.View() != v {
		t.Fatal("hellos that changed only their time built a new View")
	}
	step()
	if l.unpublished != 1 {
		t.Fatal("published after a quiet input with more waiting")
	}
	step()
	if l.unpublished != 0 {
		t.Fatal("not published once no input waits")
	}
	l.Deliver(msg.HelloFromClient{Payload: switchHello(1)}) // +switch-master
	l.Deliver(quiet)
	step()
	if a, _ := l.View().MasterAddr("mymaster"); a.Port != viewMasterPort+1 {
		t.Fatalf("an announced switch not published: %v", a)
	}
}
