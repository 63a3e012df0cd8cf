package main

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// writer is an application writing continuously through a go-redis
// FailoverClient (default options, as a user would start), one SET per
// millisecond, recording when each write succeeded.
type writer struct {
	client *redis.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	ok []time.Time
}

// startWriter starts writing to master name through the Sentinels at ports.
func startWriter(name string, ports []int) *writer {
	addrs := make([]string, len(ports))
	for k, p := range ports {
		addrs[k] = "127.0.0.1:" + strconv.Itoa(p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &writer{
		client: redis.NewFailoverClient(&redis.FailoverOptions{MasterName: name, SentinelAddrs: addrs}),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go w.run(ctx)
	return w
}

func (w *writer) run(ctx context.Context) {
	defer close(w.done)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for n := 0; ctx.Err() == nil; n++ {
		if err := w.client.Set(ctx, "bench:key", n, 0).Err(); err == nil {
			w.mu.Lock()
			w.ok = append(w.ok, time.Now())
			w.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// lastOK is the time of the latest successful write (zero if none).
func (w *writer) lastOK() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.ok) == 0 {
		return time.Time{}
	}
	return w.ok[len(w.ok)-1]
}

// longestGap is the longest time between two successive successful writes
// that ends at or after since.
func (w *writer) longestGap(since time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var gap time.Duration
	for k := 1; k < len(w.ok); k++ {
		if w.ok[k].Before(since) {
			continue
		}
		gap = max(gap, w.ok[k].Sub(w.ok[k-1]))
	}
	return gap
}

// stop ends the writer.
func (w *writer) stop() {
	w.cancel()
	<-w.done
	_ = w.client.Close()
}
