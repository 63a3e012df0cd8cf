package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// stuckFailoverTimeout is the failover-timeout of the Sentinels of
// TestStuckServerFailover (sentinelConf's): the stuck FAILOVER is ended
// that long after a Sentinel first saw it on a replica, and the healthy
// replica must take writes within it, counted from the FAILOVER command.
const stuckFailoverTimeout = 10 * time.Second

// TestStuckServerFailover is issue 34's scenario, Valkey 9's
// tests/sentinel/tests/18-stuck-failover.tcl on real processes: a
// replica is frozen (SIGSTOP), and someone runs FAILOVER TO it TIMEOUT 10
// FORCE on the master, which gives up its role at once, follows the
// frozen replica and stays in master_failover_state:failover-in-progress
// with its writes paused. Three go-sentinels must fail the master over
// to the healthy replica, all agreeing on it, the healthy replica taking
// writes within the failover-timeout of the FAILOVER command, and end
// the FAILOVER with FAILOVER ABORT (the old master's log says "Failover
// manually aborted") so that the old master follows the new one; a
// client polling the old master on one connection is disconnected at
// most once per Sentinel (the SLAVEOF transaction's CLIENT KILL), not
// over and over by a SLAVEOF the server refuses. The same run with three
// redis-sentinels is logged, not checked: redis-sentinel 7.0.15 fails the
// master over but never ends its FAILOVER.
func TestStuckServerFailover(t *testing.T) {
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			stuckFailoverRun(t, kind)
		})
	}
}

// stuckFailoverRun is one run of TestStuckServerFailover with three
// Sentinels of kind.
func stuckFailoverRun(t *testing.T, kind daemonKind) {
	top := startData(t, 2)
	top.addSentinels(kind, 3, 2)
	waitDiscovery(t, top)
	waitInSync(t, top)
	for _, s := range top.sentinels {
		// As the Valkey unit does (2000 there): the master reporting
		// role slave is SDOWN after down-after plus two INFO periods.
		if err := client(t, s.Port).Do(context.Background(), "SENTINEL", "DEBUG", "info-period", "1000", "publish-period", "1000").Err(); err != nil {
			t.Fatalf("SENTINEL DEBUG on :%d: %v", s.Port, err)
		}
	}
	logs := watchAll(t, top)
	healthy, frozen := top.replicas[0], top.replicas[1]
	oldMaster := top.master

	t.Cleanup(func() { frozen.cmd.Process.Signal(syscall.SIGCONT) })
	frozen.signal(syscall.SIGSTOP)
	// FAILOVER TO needs the target online in the master's eyes, which it
	// stays (its connection is open); the Sentinels see it down first,
	// so that none promotes it.
	sdown := fmt.Sprintf("+sdown slave 127.0.0.1:%d ", frozen.Port)
	waitFor(t, 15*time.Second, "every Sentinel to see the frozen replica down", func() bool {
		for _, el := range logs {
			if !el.has(sdown) {
				return false
			}
		}
		return true
	})

	// One connection, as a test harness or an application holds it.
	conn := redis.NewClient(&redis.Options{
		Addr: fmt.Sprintf("127.0.0.1:%d", oldMaster.Port), Protocol: 2, DisableIdentity: true,
		MaxRetries: -1, PoolSize: 1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { conn.Close() })
	start := time.Now()
	if err := conn.Do(context.Background(), "FAILOVER", "TO", "127.0.0.1", fmt.Sprint(frozen.Port), "TIMEOUT", "10", "FORCE").Err(); err != nil {
		t.Fatalf("FAILOVER TO the frozen replica: %v", err)
	}

	var (
		mu sync.Mutex
		// kills counts the times conn's connection was closed under it:
		// go-redis replaces a closed idle connection silently, so a new
		// CLIENT ID tells.
		kills                    int
		aborted, switched, wrote time.Duration // since the FAILOVER command; 0: not yet
	)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var lastID int64
		for ctx.Err() == nil {
			id, err := conn.Do(ctx, "CLIENT", "ID").Int64()
			state, err2 := conn.Do(ctx, "INFO", "replication").Text()
			mu.Lock()
			if err == nil && lastID != 0 && id != lastID {
				kills++
			}
			if err == nil {
				lastID = id
			}
			if err2 == nil && aborted == 0 && strings.Contains(state, "master_failover_state:no-failover") {
				aborted = time.Since(start)
			}
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })

	// Every Sentinel names the healthy replica, which takes a write; and
	// the old master's FAILOVER ends, at the latest a failover-timeout
	// after the switch (plus an INFO period). redis-sentinel, which never
	// ends it, is watched for a failover-timeout and 10 s.
	want := fmt.Sprintf("127.0.0.1:%d", healthy.Port)
	hc := client(t, healthy.Port)
	deadline := time.Now().Add(2*stuckFailoverTimeout + 10*time.Second)
	if kind != goSentinel {
		deadline = time.Now().Add(stuckFailoverTimeout + 10*time.Second)
	}
	for time.Now().Before(deadline) {
		mu.Lock()
		if switched == 0 {
			agree := true
			for _, s := range top.sentinels {
				agree = agree && masterAddr(t, s.Port) == want
			}
			if agree {
				switched = time.Since(start)
			}
		}
		if switched != 0 && wrote == 0 && hc.Set(context.Background(), "after-stuck-failover", "1", 0).Err() == nil {
			wrote = time.Since(start)
		}
		finished := aborted != 0 && wrote != 0
		mu.Unlock()
		if finished {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	a, s, w, k := aborted, switched, wrote, kills
	mu.Unlock()
	t.Logf("%s: from the FAILOVER command: aborted %s, every Sentinel on the healthy replica %s, first write accepted %s; the polling connection was closed %d times",
		kind, sinceCommand(a), sinceCommand(s), sinceCommand(w), k)
	for i, el := range logs {
		t.Logf("%s Sentinel %d events: %s", kind, i, strings.Join(eventNames(el), " "))
	}
	if kind != goSentinel {
		return // redis-sentinel's run is there to compare
	}
	if a == 0 {
		t.Fatalf("the old master is still in a server-side FAILOVER %v after the FAILOVER command", time.Since(start).Round(time.Millisecond))
	}
	if s == 0 || w == 0 {
		t.Fatalf("the Sentinels did not all switch to the healthy replica %s (switched after %v, write after %v)", want, s, w)
	}
	if w > stuckFailoverTimeout {
		t.Errorf("the healthy replica took its first write %v after the FAILOVER command; want within the failover-timeout (%v)", w, stuckFailoverTimeout)
	}
	if !strings.Contains(oldMaster.out.String(), "Failover manually aborted") {
		t.Errorf("the old master's log shows no FAILOVER ABORT:\n%s", oldMaster.out.String())
	}
	if k > len(top.sentinels) {
		t.Errorf("the connection polling the old master was closed %d times; want at most once per Sentinel (%d)", k, len(top.sentinels))
	}
	waitFor(t, 10*time.Second, "the old master to follow the healthy replica", func() bool {
		r, p := role(t, oldMaster.Port)
		return r == "slave" && p == healthy.Port
	})
}

// eventNames returns the type of each event of el with the instance it
// names (its second and third words: type and name), in order.
func eventNames(el *eventLog) []string {
	el.mu.Lock()
	defer el.mu.Unlock()
	var out []string
	for _, e := range el.events {
		f := strings.Fields(e)
		if len(f) >= 3 {
			out = append(out, f[0]+"("+f[2]+")")
		} else if len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

// sinceCommand renders a time since the FAILOVER command, or "never"
// for 0 (not seen before the test stopped watching).
func sinceCommand(d time.Duration) string {
	if d == 0 {
		return "never"
	}
	return d.Round(time.Millisecond).String()
}
