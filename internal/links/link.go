package links

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// maxBatch is the most Sends one pipelined round trip carries; the rest wait
// for the next round trip.
const maxBatch = 512

// link is one connection to an instance and the goroutine that owns it. Its
// queue is unbounded so that Apply never waits for the network. Once ended
// (by CloseLink, by Links.Close or by a failure) it delivers nothing more,
// except the single LinkClosed of a failure.
type link struct {
	links  *Links
	spec   monitor.OpenLink
	ctx    context.Context // canceled when the link ends
	cancel context.CancelFunc
	wake   chan struct{} // capacity 1: "the queue or the state changed"
	ended  atomic.Bool

	mu    sync.Mutex
	queue []monitor.Send
	raw   net.Conn // the TCP connection once dialed; closed when the link ends
}

func newLink(l *Links, spec monitor.OpenLink) *link {
	ctx, cancel := context.WithCancel(context.Background())
	return &link{links: l, spec: spec, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// enqueue appends s to the link's queue; a Send to an ended link is dropped.
func (lk *link) enqueue(s monitor.Send) {
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return
	}
	lk.queue = append(lk.queue, s)
	lk.mu.Unlock()
	lk.signal()
}

func (lk *link) signal() {
	select {
	case lk.wake <- struct{}{}:
	default:
	}
}

// end stops the link without reporting anything: it cancels a dial in
// progress, closes the TCP connection (which aborts any I/O go-redis is
// doing on it) and wakes the goroutine, which then releases the go-redis
// client. It reports whether this call was the one that ended the link. It
// never blocks on the network.
func (lk *link) end() bool {
	lk.mu.Lock()
	if lk.ended.Load() {
		lk.mu.Unlock()
		return false
	}
	lk.ended.Store(true)
	raw := lk.raw
	lk.queue = nil
	lk.mu.Unlock()
	lk.cancel()
	if raw != nil {
		_ = raw.Close()
	}
	lk.signal()
	return true
}

// fail ends the link because its connection failed and, unless it had
// already ended, delivers its one LinkClosed.
func (lk *link) fail(err error) {
	if !lk.end() {
		return
	}
	lk.links.logf("link %d (%s %s:%d): closed: %v", lk.spec.ID, lk.spec.Kind, lk.spec.Addr.Host, lk.spec.Addr.Port, err)
	lk.links.opts.Deliver(monitor.LinkClosed{ID: lk.spec.ID, Err: err.Error()})
	lk.links.forget(lk)
}

// deliver passes in on unless the link has ended.
func (lk *link) deliver(in monitor.Input) {
	if lk.ended.Load() {
		return
	}
	lk.links.opts.Deliver(in)
}

// attach records the dialed connection so that end can close it; it reports
// false (and closes conn) if the link ended during the dial.
func (lk *link) attach(conn, raw net.Conn) bool {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if lk.ended.Load() {
		_ = conn.Close()
		_ = raw.Close()
		return false
	}
	lk.raw = raw
	return true
}

// next waits for queued Sends and takes up to maxBatch of them, in order. It
// returns nil once the link has ended.
func (lk *link) next() []monitor.Send {
	for {
		lk.mu.Lock()
		if lk.ended.Load() {
			lk.mu.Unlock()
			return nil
		}
		if n := len(lk.queue); n > 0 {
			k := min(n, maxBatch)
			batch := lk.queue[:k:k]
			if k == n {
				lk.queue = nil
			} else {
				lk.queue = slices.Clone(lk.queue[k:])
			}
			lk.mu.Unlock()
			return batch
		}
		lk.mu.Unlock()
		<-lk.wake
	}
}

// run is the link's goroutine: connect, then serve the link until it ends.
func (lk *link) run() {
	defer lk.links.wg.Done()
	l := lk.links
	conn, raw, err := l.dial(lk.ctx, lk.spec.Addr)
	if err != nil {
		lk.fail(fmt.Errorf("connect to %s: %w", hostPort(lk.spec.Addr), err))
		return
	}
	if !lk.attach(conn, raw) {
		return
	}
	lk.deliver(monitor.LinkConnected{ID: lk.spec.ID})
	if lk.spec.Kind == monitor.CmdLink {
		if a, ok := localAddr(raw); ok {
			lk.deliver(monitor.LinkLocalAddr{ID: lk.spec.ID, Addr: a})
		}
		if net.ParseIP(lk.spec.Addr.Host) == nil {
			if t, ok := raw.RemoteAddr().(*net.TCPAddr); ok {
				lk.deliver(monitor.HostResolved{Host: lk.spec.Addr.Host, IP: t.IP.String()})
			}
		}
	}
	if lk.spec.Kind == monitor.PubSubLink {
		lk.servePubSub(conn)
		return
	}
	client := redis.NewClient(l.clientOptions(lk, conn))
	client.AddHook(noHelloHook{})
	defer func() { _ = client.Close() }()
	lk.serveCmd(client)
}

// serveCmd writes queued Sends as pipelines and delivers their replies in
// order until the link ends or fails.
func (lk *link) serveCmd(client *redis.Client) {
	var x batchExec
	x.pipe = client.Pipeline() // reusable: Exec empties it
	for {
		batch := lk.next()
		if batch == nil {
			return
		}
		replies, err := x.exec(lk.ctx, batch)
		if err != nil {
			lk.fail(err)
			return
		}
		for i, s := range batch {
			lk.deliver(monitor.CommandReply{ID: s.ID, Tag: s.Tag, Reply: replies[i]})
		}
		if client.PoolStats().TotalConns == 0 {
			// go-redis removed the connection although every reply was
			// read (it does so after some error replies): the link is gone.
			lk.fail(ErrConnDropped)
			return
		}
	}
}

// batchExec sends batches of Sends over one go-redis pipeline, reusing its
// slices from one batch to the next.
type batchExec struct {
	pipe    redis.Pipeliner
	cmds    []*redis.RawCmd
	replies []monitor.Reply
}

// exec sends batch as one pipeline and returns one reply per Send, valid
// until the next call. A non-nil error means the connection failed (or the
// reply stream is out of step); error replies are replies. Replies are read
// raw (redis.RawCmd) and decoded by parseReply: go-redis's own decoding
// turns an error reply nested in an array into an error for the whole
// reply and leaves the rest of the array unread.
func (x *batchExec) exec(ctx context.Context, batch []monitor.Send) ([]monitor.Reply, error) {
	replies := slices.Grow(x.replies[:0], len(batch))[:len(batch)]
	cmds := slices.Grow(x.cmds[:0], len(batch))[:len(batch)]
	x.replies, x.cmds = replies, cmds
	clear(cmds)
	for i, s := range batch {
		if len(s.Args) == 0 {
			// Redis answers nothing to an empty command; answer it here so
			// the replies stay in step.
			replies[i] = monitor.Reply{Kind: monitor.ReplyError, Str: "ERR empty command"}
			continue
		}
		cmds[i] = redis.NewRawCmd(ctx, stringArgs(s.Args)...)
		_ = x.pipe.Process(ctx, cmds[i])
	}
	if x.pipe.Len() == 0 {
		return replies, nil
	}
	if _, err := x.pipe.Exec(ctx); err != nil {
		return nil, err
	}
	for i, c := range cmds {
		if c == nil {
			continue
		}
		raw, err := c.Result()
		if err != nil {
			return nil, err
		}
		if replies[i], err = parseReply(raw); err != nil {
			return nil, err
		}
	}
	clear(cmds) // let the commands and their buffers go
	return replies, nil
}

func stringArgs(args []string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}
