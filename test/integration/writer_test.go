package integration

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// writer is a client writing to the master as an application would: an
// INCR of one counter and a unique key per write, on one connection to
// the master a Sentinel names, checked with ROLE before the first write.
// A lost connection makes it ask the Sentinels again; any other error
// reply is counted. Every write whose reply came back is acknowledged
// and must be on the final master.
type writer struct {
	t         *testing.T
	sentinels []int // ports
	stop      chan struct{}
	done      chan struct{}

	mu        sync.Mutex
	acked     []int       // ids of acknowledged writes
	ackedBy   map[int]int // write id -> port of the master that acknowledged it
	errs      []string    // error replies (not lost connections)
	reconnect int
	maxGap    time.Duration // longest time between two acknowledged writes
}

// startWriter starts a writer that follows the Sentinels on ports; it is
// stopped in t.Cleanup at the latest.
func startWriter(t *testing.T, ports []int) *writer {
	w := &writer{t: t, sentinels: ports, stop: make(chan struct{}), done: make(chan struct{}), ackedBy: map[int]int{}}
	go w.run()
	t.Cleanup(w.finish)
	return w
}

// finish stops the writer and waits for it.
func (w *writer) finish() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// master asks the Sentinels for the master's port and returns the first
// that answers ROLE master.
func (w *writer) master() (*redis.Client, int) {
	for {
		for _, sp := range w.sentinels {
			select {
			case <-w.stop:
				return nil, 0
			default:
			}
			sc := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", sp), DialTimeout: 200 * time.Millisecond,
				ReadTimeout: 200 * time.Millisecond, MaxRetries: -1})
			addr, err := sc.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
			sc.Close()
			if err != nil || len(addr) != 2 {
				continue
			}
			var port int
			fmt.Sscan(addr[1], &port)
			c := redis.NewClient(&redis.Options{Addr: net.JoinHostPort(addr[0], addr[1]), DialTimeout: 200 * time.Millisecond,
				ReadTimeout: 2 * time.Second, WriteTimeout: time.Second, MaxRetries: -1, PoolSize: 1})
			if r, err := c.Do(context.Background(), "ROLE").Slice(); err == nil && len(r) > 0 && r[0] == "master" {
				return c, port
			}
			c.Close()
		}
		select { // a client's back-off between rounds of asking
		case <-w.stop:
			return nil, 0
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (w *writer) run() {
	defer close(w.done)
	c, port := w.master()
	last := time.Now()
	for id := 1; c != nil; id++ {
		select {
		case <-w.stop:
			c.Close()
			return
		default:
		}
		ctx := context.Background()
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, "counter")
			p.Set(ctx, fmt.Sprintf("w:%d", id), 1, 0)
			return nil
		})
		switch {
		case err == nil:
			now := time.Now()
			w.mu.Lock()
			w.acked = append(w.acked, id)
			w.ackedBy[id] = port
			w.maxGap = max(w.maxGap, now.Sub(last))
			w.mu.Unlock()
			last = now
		case isConnErr(err):
			c.Close()
			w.mu.Lock()
			w.reconnect++
			w.mu.Unlock()
			c, port = w.master()
		default:
			w.mu.Lock()
			w.errs = append(w.errs, err.Error())
			w.mu.Unlock()
			c.Close()
			c, port = w.master()
		}
	}
}

// isConnErr reports a lost or refused connection (not an error reply).
func isConnErr(err error) bool {
	var re redis.Error
	if errors.As(err, &re) && !strings.Contains(err.Error(), "i/o timeout") {
		return false
	}
	return true
}

// lost returns the acknowledged writes missing from the master at port,
// by the port that acknowledged each, and the count of acknowledged ones.
func (w *writer) lost(t *testing.T, port int) (lost map[int]int, acked int) {
	w.finish()
	c := client(t, port)
	lost = map[int]int{}
	const batch = 1000
	for k := 0; k < len(w.acked); k += batch {
		ids := w.acked[k:min(k+batch, len(w.acked))]
		pipe := c.Pipeline()
		cmds := make([]*redis.IntCmd, len(ids))
		for j, id := range ids {
			cmds[j] = pipe.Exists(context.Background(), fmt.Sprintf("w:%d", id))
		}
		if _, err := pipe.Exec(context.Background()); err != nil {
			t.Fatalf("reading the writes back: %v", err)
		}
		for j, cmd := range cmds {
			if cmd.Val() != 1 {
				lost[w.ackedBy[ids[j]]]++
			}
		}
	}
	return lost, len(w.acked)
}

// stats returns the error replies, reconnections and the longest gap.
func (w *writer) stats() (errs []string, reconnect int, gap time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.errs...), w.reconnect, w.maxGap
}

// acks returns how many writes were acknowledged so far.
func (w *writer) acks() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}
