package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// event is one message a Sentinel published, stamped when it arrived.
type event struct {
	at       time.Time
	sentinel int // index of the Sentinel in the run
	channel  string
	payload  string
}

// eventLog subscribes to channels on every Sentinel of a run and records
// what arrives.
type eventLog struct {
	mu     sync.Mutex
	events []event
	subs   []*redis.PubSub
	cls    []*redis.Client
	wg     sync.WaitGroup
}

// subscribeEvents subscribes to channels on each port and returns once every
// subscription is confirmed.
func subscribeEvents(ports []int, channels ...string) (*eventLog, error) {
	l := &eventLog{}
	for k, p := range ports {
		c := newClient(p)
		ps := c.Subscribe(context.Background(), channels...)
		l.cls = append(l.cls, c)
		l.subs = append(l.subs, ps)
		for range channels {
			ctx, cancel := context.WithTimeout(context.Background(), *discWait)
			_, err := ps.Receive(ctx)
			cancel()
			if err != nil {
				l.close()
				return nil, fmt.Errorf("subscribe on %d: %w", p, err)
			}
		}
		l.wg.Add(1)
		go l.read(k, ps)
	}
	return l, nil
}

func (l *eventLog) read(k int, ps *redis.PubSub) {
	defer l.wg.Done()
	for {
		msg, err := ps.ReceiveMessage(context.Background())
		if err != nil {
			return
		}
		e := event{at: time.Now(), sentinel: k, channel: msg.Channel, payload: msg.Payload}
		l.mu.Lock()
		l.events = append(l.events, e)
		l.mu.Unlock()
	}
}

// snapshot returns the events so far.
func (l *eventLog) snapshot() []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event(nil), l.events...)
}

// count returns how many events of channel arrived since t.
func (l *eventLog) count(channel string, since time.Time) int {
	n := 0
	for _, e := range l.snapshot() {
		if e.channel == channel && !e.at.Before(since) {
			n++
		}
	}
	return n
}

// close ends the subscriptions.
func (l *eventLog) close() {
	for _, ps := range l.subs {
		_ = ps.Close()
	}
	for _, c := range l.cls {
		_ = c.Close()
	}
	l.wg.Wait()
}

// switchTimes returns, for each Sentinel, when it published +switch-master
// for each master name (first time at or after since).
func switchTimes(evs []event, nSentinels int, since time.Time) []map[string]event {
	out := make([]map[string]event, nSentinels)
	for k := range out {
		out[k] = make(map[string]event)
	}
	for _, e := range evs {
		if e.channel != "+switch-master" || e.at.Before(since) {
			continue
		}
		name, _, _ := strings.Cut(e.payload, " ")
		if _, seen := out[e.sentinel][name]; !seen {
			out[e.sentinel][name] = e
		}
	}
	return out
}

// waitUntil polls cond every 5 ms until it holds or timeout passes.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// switchPercentiles describes when the killed masters' (Sentinel, master)
// pairs switched after since: the median, the 90th percentile and the
// last, in seconds.
func switchPercentiles(evs []event, nSentinels int, since time.Time, killed map[string]bool) string {
	var ds []time.Duration
	for _, m := range switchTimes(evs, nSentinels, since) {
		for name, e := range m {
			if killed[name] {
				ds = append(ds, e.at.Sub(since))
			}
		}
	}
	if len(ds) == 0 {
		return "none"
	}
	slices.Sort(ds)
	q := func(f float64) float64 { return ds[int(f*float64(len(ds)-1))].Seconds() }
	return fmt.Sprintf("p50 %.2f s, p90 %.2f s, last %.2f s", q(0.5), q(0.9), q(1))
}
