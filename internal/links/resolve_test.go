package links

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// fakeResolver answers LookupHost from a table the test changes, as a
// hosts file rewritten between two dials.
type fakeResolver struct {
	mu    sync.Mutex
	names map[string][]string
	calls int
}

func (r *fakeResolver) set(name string, ips ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = ips
}

func (r *fakeResolver) lookup(_ context.Context, host string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	ips, ok := r.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return ips, nil
}

// listenersOnPort listens on the same free port on every loopback IP
// given, and reports on the returned channel the IP each connection was
// accepted on.
func listenersOnPort(t *testing.T, ips ...string) (int, <-chan string) {
	t.Helper()
	accepted := make(chan string, 16)
	for attempt := 0; attempt < 20; attempt++ {
		var lns []net.Listener
		port := 0
		ok := true
		for _, ip := range ips {
			ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			port = ln.Addr().(*net.TCPAddr).Port
			lns = append(lns, ln)
		}
		if !ok {
			for _, ln := range lns {
				_ = ln.Close()
			}
			continue
		}
		for k, ln := range lns {
			ip := ips[k]
			t.Cleanup(func() { _ = ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted <- ip
					t.Cleanup(func() { _ = c.Close() })
				}
			}()
		}
		return port, accepted
	}
	t.Skip("no port free on every loopback address of", ips)
	return 0, nil
}

// inputs collects everything a Links delivers, in order.
type inputs chan msg.Input

// next returns the next input that is not a LinkLocalAddr.
func (c inputs) next(t *testing.T) msg.Input {
	t.Helper()
	for {
		select {
		case in := <-c:
			if _, ok := in.(msg.LinkLocalAddr); ok {
				continue
			}
			return in
		case <-time.After(waitLimit):
			t.Fatalf("nothing delivered within %v", waitLimit)
			return nil
		}
	}
}

// TestLinksResolveAtEveryDial: a link to a hostname resolves it at each
// dial, dials what it resolves to now, and reports it (HostResolved),
// also when the dial then fails; a name that does not resolve fails the
// link without a HostResolved.
func TestLinksResolveAtEveryDial(t *testing.T) {
	port, accepted := listenersOnPort(t, "127.0.0.1", "127.0.0.2")
	res := &fakeResolver{names: map[string][]string{}}
	in := make(inputs, 64)
	// Two links: these listeners never answer the HELLO 3 a riding
	// pub/sub link would wait for; this test is about dials.
	l := New(Options{Deliver: func(i msg.Input) { in <- i }, LookupHost: res.lookup, Logf: t.Logf,
		DialTimeout: 2 * time.Second, TwoLinks: true})
	t.Cleanup(l.Close)
	addr := settings.Addr{Host: "redis-1", Port: port}

	open := func(id msg.LinkID, kind msg.LinkKind) {
		t.Helper()
		spec := msg.OpenLink{ID: id, Kind: kind, Addr: addr}
		if kind == msg.PubSubLink {
			spec.Channel = helloCh
		}
		l.Apply(spec)
	}
	wantResolved := func(ip string) {
		t.Helper()
		got := expect[msg.HostResolved](t, in.next(t))
		if got != (msg.HostResolved{Host: "redis-1", IP: ip}) {
			t.Fatalf("HostResolved = %+v, want redis-1 -> %s", got, ip)
		}
	}
	wantAccepted := func(ip string) {
		t.Helper()
		select {
		case got := <-accepted:
			if got != ip {
				t.Fatalf("connection accepted on %s, want %s", got, ip)
			}
		case <-time.After(waitLimit):
			t.Fatalf("no connection accepted on %s", ip)
		}
	}

	res.set("redis-1", "127.0.0.1")
	open(1, msg.CmdLink)
	expect[msg.LinkConnected](t, in.next(t))
	wantResolved("127.0.0.1")
	wantAccepted("127.0.0.1")

	// The name moves while link 1 is open; the next dial (a reconnect is
	// a new OpenLink) follows it, for both kinds of link.
	res.set("redis-1", "127.0.0.2")
	l.Apply(msg.CloseLink{ID: 1})
	open(2, msg.CmdLink)
	expect[msg.LinkConnected](t, in.next(t))
	wantResolved("127.0.0.2")
	wantAccepted("127.0.0.2")
	open(3, msg.PubSubLink)
	expect[msg.LinkConnected](t, in.next(t))
	wantResolved("127.0.0.2")
	wantAccepted("127.0.0.2")
	l.Apply(msg.CloseLink{ID: 2})
	l.Apply(msg.CloseLink{ID: 3})

	// Moved to an address where nothing listens: the dial fails, and the
	// core still learns where the name points now.
	res.set("redis-1", "127.0.0.3")
	open(4, msg.CmdLink)
	wantResolved("127.0.0.3")
	if lc := expect[msg.LinkClosed](t, in.next(t)); lc.ID != 4 || !strings.Contains(lc.Err, "connect to redis-1") {
		t.Fatalf("LinkClosed = %+v", lc)
	}

	// Several addresses: tried in order, the one connected to reported.
	res.set("redis-1", "127.0.0.3", "127.0.0.2")
	open(5, msg.CmdLink)
	expect[msg.LinkConnected](t, in.next(t))
	wantResolved("127.0.0.2")
	wantAccepted("127.0.0.2")
	l.Apply(msg.CloseLink{ID: 5})

	// A name that no longer resolves: the link fails, naming why.
	res.set("other", "127.0.0.1")
	res.mu.Lock()
	delete(res.names, "redis-1")
	res.mu.Unlock()
	open(6, msg.CmdLink)
	lc := expect[msg.LinkClosed](t, in.next(t))
	if !strings.Contains(lc.Err, "resolve redis-1") {
		t.Fatalf("LinkClosed.Err = %q, want the resolution failure", lc.Err)
	}

	// An empty answer is a failure too, never an index out of range.
	res.set("redis-1")
	open(7, msg.CmdLink)
	if lc := expect[msg.LinkClosed](t, in.next(t)); !strings.Contains(lc.Err, ErrNoAddress.Error()) {
		t.Fatalf("LinkClosed.Err = %q", lc.Err)
	}

	res.mu.Lock()
	calls := res.calls
	res.mu.Unlock()
	if calls != 7 {
		t.Errorf("LookupHost called %d times, want once per dial to the name (7)", calls)
	}
}

// TestLinksIPNotResolved: a link to an IP never asks the resolver and
// reports no HostResolved.
func TestLinksIPNotResolved(t *testing.T) {
	port, accepted := listenersOnPort(t, "127.0.0.1")
	in := make(inputs, 16)
	l := New(Options{Deliver: func(i msg.Input) { in <- i }, Logf: t.Logf,
		LookupHost: func(context.Context, string) ([]string, error) {
			return nil, errors.New("resolver called for an IP")
		}})
	t.Cleanup(l.Close)
	l.Apply(msg.OpenLink{ID: 1, Kind: msg.CmdLink, Addr: settings.Addr{Host: "127.0.0.1", Port: port}})
	expect[msg.LinkConnected](t, in.next(t))
	<-accepted
	l.Close()
	close(in)
	for i := range in {
		if _, ok := i.(msg.LinkLocalAddr); !ok {
			t.Errorf("unexpected %T %+v", i, i)
		}
	}
}
