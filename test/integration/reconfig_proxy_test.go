package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// backendWriter is a client that, like a client behind a proxy, knows no
// Sentinel: before every write it reads the address of its backend from a
// file, reconnecting when it changes, and counts on whoever maintains the
// file (here a client-reconfig-script) to follow failovers.
type backendWriter struct {
	file string

	mu       sync.Mutex
	okAt     []time.Time // successful writes
	okAddr   []string    // and where they went
	failures int
}

// run writes until ctx ends; every write is an INCR with short timeouts.
func (w *backendWriter) run(ctx context.Context) {
	var c *redis.Client
	var cur string
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for ctx.Err() == nil {
		b, err := os.ReadFile(w.file)
		addr := strings.TrimSpace(string(b))
		if err == nil && addr != cur {
			if c != nil {
				c.Close()
			}
			cur = addr
			c = redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1, DisableIdentity: true,
				DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		}
		if c == nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		err = c.Incr(ctx, "writes").Err()
		w.mu.Lock()
		if err == nil {
			w.okAt = append(w.okAt, time.Now())
			w.okAddr = append(w.okAddr, cur)
		} else {
			w.failures++
		}
		w.mu.Unlock()
		if err != nil {
			time.Sleep(20 * time.Millisecond)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// writesTo returns how many writes went to addr.
func (w *backendWriter) writesTo(addr string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, a := range w.okAddr {
		if a == addr {
			n++
		}
	}
	return n
}

// longestGap returns the longest time between two successful writes and
// when it began.
func (w *backendWriter) longestGap() (time.Duration, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var gap time.Duration
	var from time.Time
	for i := 1; i < len(w.okAt); i++ {
		if d := w.okAt[i].Sub(w.okAt[i-1]); d > gap {
			gap, from = d, w.okAt[i-1]
		}
	}
	return gap, from
}

// TestClientReconfigScriptRepointsAProxy is the operator's setup: three
// Sentinels (quorum 2, down-after 1 s; go-sentinel, then redis-sentinel
// for comparison) whose client-reconfig-script
// rewrites a file standing for a proxy's backend list with
// "<to-ip>:<to-port>", and a plain client that reads its address from that
// file before each write. The master is killed with SIGKILL; the client
// keeps writing and ends writing to the promoted replica. The longest gap
// between two successful writes is logged.
func TestClientReconfigScriptRepointsAProxy(t *testing.T) {
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) { testRepointProxy(t, kind) })
	}
}

func testRepointProxy(t *testing.T, kind daemonKind) {
	top := startData(t, 2)
	backend := filepath.Join(t.TempDir(), "backend")
	oldAddr := fmt.Sprintf("127.0.0.1:%d", top.master.Port)
	if err := os.WriteFile(backend, []byte(oldAddr+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Atomic replacement, as a proxy's config reload wants it.
	repoint := fmt.Sprintf(`printf '%%s:%%s\n' "$6" "$7" > %[1]s.$$ && mv -f %[1]s.$$ %[1]s`, backend)
	var scripts []*recordingScript
	for i := 0; i < 3; i++ {
		sc := newRecordingScript(t, "repoint.sh", repoint)
		scripts = append(scripts, sc)
		extra := fmt.Sprintf("sentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 3000\n"+
			"sentinel client-reconfig-script mymaster %s\n", sc.path)
		if kind == goSentinel {
			top.addGoSentinel(2, extra)
		} else {
			top.addRedisSentinel(2, extra)
		}
	}
	waitDiscovery(t, top)

	w := &backendWriter{file: backend}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, 10*time.Second, "writes to the master", func() bool { return w.writesTo(oldAddr) >= 20 })

	killed := time.Now()
	killProc(top.master)
	var newAddr string
	var repointed time.Time
	waitFor(t, 40*time.Second, "the client-reconfig-script to repoint the backend file", func() bool {
		b, _ := os.ReadFile(backend)
		newAddr = strings.TrimSpace(string(b))
		repointed = time.Now()
		return newAddr != oldAddr
	})
	waitFor(t, 10*time.Second, "20 writes to the new backend", func() bool { return w.writesTo(newAddr) >= 20 })
	cancel()
	<-done

	if got := masterAddr(t, top.sentinels[0].Port); got != newAddr {
		t.Errorf("the backend file names %s, the Sentinels' master is %s", newAddr, got)
	}
	if r, _ := role(t, portOf(t, newAddr)); r != "master" {
		t.Errorf("the new backend %s has role %q", newAddr, r)
	}
	w.mu.Lock()
	last := w.okAddr[len(w.okAddr)-1]
	failures := w.failures
	w.mu.Unlock()
	if last != newAddr {
		t.Errorf("the last write went to %s, not the new master %s", last, newAddr)
	}
	gap, from := w.longestGap()
	if from.Before(killed.Add(-time.Second)) {
		t.Errorf("the longest gap (%v) began %v before the kill", gap, killed.Sub(from))
	}
	// Every Sentinel repointed once, one of them as the leader (observers
	// learn of the failover from a hello, up to 2 s later).
	leaders := 0
	for i, sc := range scripts {
		waitFor(t, 10*time.Second, fmt.Sprintf("the script of sentinel %d", i), func() bool { return len(sc.callsOf(t)) > 0 })
		time.Sleep(100 * time.Millisecond) // a second call would show
		calls := sc.callsOf(t)
		if len(calls) != 1 {
			t.Errorf("sentinel %d: %d client-reconfig-script calls %q, want 1", i, len(calls), calls)
			continue
		}
		if calls[0].args[1] == "leader" {
			leaders++
			t.Logf("%s leader: %s", kind, phases(t, top.sentinels[i].out.String(), killed))
		}
	}
	if leaders != 1 {
		t.Errorf("%d Sentinels ran the script as leader, want 1", leaders)
	}
	t.Logf("%s: SIGKILL of the master → backend file repointed after %v (checked every 50 ms); longest write gap %v; %d failed writes",
		kind, repointed.Sub(killed).Round(10*time.Millisecond), gap.Round(10*time.Millisecond), failures)
}

// portOf returns the port of a host:port address.
func portOf(t *testing.T, addr string) int {
	t.Helper()
	var port int
	if _, err := fmt.Sscanf(addr[strings.LastIndexByte(addr, ':')+1:], "%d", &port); err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	return port
}

// phases lists when a Sentinel logged the steps of a failover, from its
// log text, relative to t0.
func phases(t *testing.T, log string, t0 time.Time) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		m := logLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		typ, _, _ := strings.Cut(m[3], " ")
		switch typ {
		case "+sdown", "+odown", "+try-failover", "+elected-leader", "+selected-slave", "+promoted-slave", "+failover-state-reconf-slaves":
			if strings.HasPrefix(typ, "+sdown") && strings.Contains(m[3], " slave ") {
				continue
			}
			at, err := time.ParseInLocation("02 Jan 2006 15:04:05.000", m[1], time.Local)
			if err == nil {
				out = append(out, fmt.Sprintf("%s %+.3fs", typ, at.Sub(t0).Seconds()))
			}
		}
	}
	return strings.Join(out, ", ")
}
