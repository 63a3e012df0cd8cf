package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/test/history"
	"github.com/redis/go-redis/v9"
)

// histRecorder collects the operations of every client of the histories
// test, on one monotonic clock (nanoseconds since it started), and holds
// the episode number the clients put in their keys: each episode of the
// schedule writes keys of its own, so each key's history starts empty
// and lies within one fault.
type histRecorder struct {
	t0      time.Time
	episode atomic.Int64
	mu      sync.Mutex
	ops     []*history.Op
}

func newHistRecorder() *histRecorder { return &histRecorder{t0: time.Now()} }

// now is the recorder's clock.
func (r *histRecorder) now() int64 { return time.Since(r.t0).Nanoseconds() }

// at is a time.Time on the recorder's clock.
func (r *histRecorder) at(t time.Time) int64 { return t.Sub(r.t0).Nanoseconds() }

func (r *histRecorder) add(o *history.Op) {
	r.mu.Lock()
	r.ops = append(r.ops, o)
	r.mu.Unlock()
}

// opsOf returns the operations on keys with prefix.
func (r *histRecorder) opsOf(prefix string) []*history.Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*history.Op
	for _, o := range r.ops {
		if strings.HasPrefix(o.Key, prefix) {
			out = append(out, o)
		}
	}
	return out
}

// histKey is the key prefix of a route's keys in an episode.
func histKey(route string, episode int64) string { return fmt.Sprintf("h:%s:%d:", route, episode) }

// histOutcome sorts a client's error: nil for a reply (a nil bulk is a
// reply), failed for an error reply or a request that was never sent (a
// refused dial, no Sentinel answering, no connection free), unknown for
// everything else (a timeout, a connection lost after the request went
// out).
func histOutcome(err error) (failed, unknown bool) {
	if err == nil || errors.Is(err, redis.Nil) {
		return false, false
	}
	var re redis.Error
	if errors.As(err, &re) {
		return true, false
	}
	s := err.Error()
	for _, notSent := range []string{"dial tcp", "connection refused", "all sentinels", "pool timeout", "client is closed"} {
		if strings.Contains(s, notSent) {
			return true, false
		}
	}
	return false, true
}

// histClient is one client of a route, doing SET (unique values) and GET
// on three registers, INCR on a counter and RPUSH (unique elements, with
// CLIENT INFO in the same pipeline, which names the server that
// answered: its laddr) and LRANGE on a list, with 5 ms between
// operations, until the context ends.
type histClient struct {
	id    int
	route string
	c     redis.UniversalClient
	pin   *histPinned // instead of c: the client of the pinned address
	rec   *histRecorder
	rng   *rand.Rand
	seq   int
}

func (hc *histClient) run(ctx context.Context) {
	for ctx.Err() == nil {
		hc.once(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (hc *histClient) once(ctx context.Context) {
	// Keys of their own every second, so each key's history is short
	// enough for porcupine to decide quickly.
	prefix := fmt.Sprintf("%s%d.", histKey(hc.route, hc.rec.episode.Load()), hc.rec.now()/1e9)
	if hc.pin != nil {
		hc.c = hc.pin.client()
	}
	hc.seq++
	o := &history.Op{Client: hc.id, Route: hc.route}
	opCtx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	var err error
	o.Call = hc.rec.now()
	switch x := hc.rng.Intn(10); {
	case x < 3:
		o.Kind, o.Key, o.Value = history.Set, fmt.Sprintf("%sr%d", prefix, hc.rng.Intn(3)), fmt.Sprintf("%d.%d", hc.id, hc.seq)
		err = hc.c.Set(opCtx, o.Key, o.Value, 0).Err()
	case x < 5:
		o.Kind, o.Key = history.Get, fmt.Sprintf("%sr%d", prefix, hc.rng.Intn(3))
		o.Out, err = hc.c.Get(opCtx, o.Key).Result()
		o.Nil = errors.Is(err, redis.Nil)
	case x < 6:
		o.Kind, o.Key = history.Incr, prefix+"c"
		o.N, err = hc.c.Incr(opCtx, o.Key).Result()
	case x < 9:
		o.Kind, o.Key, o.Value = history.RPush, prefix+"l", fmt.Sprintf("%d.%d", hc.id, hc.seq)
		var push *redis.IntCmd
		var info *redis.ClientInfoCmd
		_, err = hc.c.Pipelined(opCtx, func(p redis.Pipeliner) error {
			push = p.RPush(opCtx, o.Key, o.Value)
			info = p.ClientInfo(opCtx)
			return nil
		})
		if push != nil {
			o.N, err = push.Result()
			if err == nil && info.Err() == nil {
				o.Node = info.Val().LAddr
			}
		}
	default:
		o.Kind, o.Key = history.LRange, prefix+"l"
		o.Items, err = hc.c.LRange(opCtx, o.Key, 0, -1).Result()
	}
	o.Return = hc.rec.now()
	failed, unknown := histOutcome(err)
	if failed && !(o.Kind == history.Get && o.Nil) {
		return
	}
	if unknown {
		o.Unknown, o.Return = true, history.Never
	}
	hc.rec.add(o)
}

// histSeqWriter is the read port's writer: on each episode's keys k0..k3
// in turn it writes 1, 2, 3, ..., each SET waiting for the one before, so
// a read's staleness is defined (history.Staleness).
type histSeqWriter struct {
	route string // the readers' route, whose keys it writes
	c     redis.UniversalClient
	rec   *histRecorder
}

func (w *histSeqWriter) run(ctx context.Context) {
	next := map[string]int{}
	for i := 0; ctx.Err() == nil; i++ {
		key := fmt.Sprintf("%sk%d", histKey(w.route, w.rec.episode.Load()), i%4)
		next[key]++
		o := &history.Op{Client: 0, Route: w.route, Kind: history.Set, Key: key, Value: fmt.Sprint(next[key])}
		opCtx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		o.Call = w.rec.now()
		err := w.c.Set(opCtx, key, o.Value, 0).Err()
		cancel()
		o.Return = w.rec.now()
		failed, unknown := histOutcome(err)
		if failed || unknown {
			// Write the same value again until it is acknowledged, so
			// the values stay in order (an unknown SET of the same value
			// landing late changes nothing).
			next[key]--
			if unknown {
				o.Unknown, o.Return = true, history.Never
				w.rec.add(o)
			}
		} else {
			w.rec.add(o)
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// histReader reads the read port's keys.
type histReader struct {
	id    int
	route string
	c     *redis.Client
	rec   *histRecorder
	rng   *rand.Rand
}

func (r *histReader) run(ctx context.Context) {
	for ctx.Err() == nil {
		o := &history.Op{Client: r.id, Route: r.route, Kind: history.Get,
			Key: fmt.Sprintf("%sk%d", histKey(r.route, r.rec.episode.Load()), r.rng.Intn(4))}
		opCtx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		o.Call = r.rec.now()
		v, err := r.c.Get(opCtx, o.Key).Result()
		cancel()
		o.Return = r.rec.now()
		o.Out, o.Nil = v, errors.Is(err, redis.Nil)
		if failed, unknown := histOutcome(err); !failed && !unknown {
			r.rec.add(o)
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// histPlain is a client of one address (a proxy, HAProxy, a fixed
// master, a read port): no retries, short timeouts.
func histPlain(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second, WriteTimeout: time.Second, PoolSize: 2})
}

// histFailover is go-redis's Sentinel-aware client of the fleet: it asks
// the Sentinels for the master and follows +switch-master.
func histFailover(sentinels []string) *redis.Client {
	return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: sentinels, Protocol: 2,
		DisableIdentity: true, MaxRetries: -1, DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second,
		WriteTimeout: time.Second, PoolSize: 2})
}

// startHistClients starts n clients of route on c; they stop in
// t.Cleanup at the latest, or when stop is called.
func startHistClients(t *testing.T, wg *sync.WaitGroup, ctx context.Context, rec *histRecorder, route string, c redis.UniversalClient, n int, firstID int, seed int64) {
	t.Cleanup(func() { c.Close() })
	for i := 0; i < n; i++ {
		hc := &histClient{id: firstID + i, route: route, c: c, rec: rec, rng: rand.New(rand.NewSource(seed + int64(firstID+i)))}
		wg.Add(1)
		go func() { defer wg.Done(); hc.run(ctx) }()
	}
}

// histPinned is the client of a master's address learnt once and never
// asked again (the fixed route): the test pins it to the master at each
// episode's start, and it keeps writing there whatever happens.
type histPinned struct {
	mu      sync.Mutex
	addr    string
	clients map[string]*redis.Client
}

// pin points the route at addr.
func (p *histPinned) pin(addr string) {
	p.mu.Lock()
	p.addr = addr
	p.mu.Unlock()
}

func (p *histPinned) client() redis.UniversalClient {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clients == nil {
		p.clients = map[string]*redis.Client{}
	}
	c := p.clients[p.addr]
	if c == nil {
		c = histPlain(p.addr)
		p.clients[p.addr] = c
	}
	return c
}

func (p *histPinned) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.clients {
		c.Close()
	}
}
