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

// topology is a master with replicas and the Sentinels watching it.
type topology struct {
	t         *testing.T
	master    *proc
	replicas  []*proc
	sentinels []*proc
	confs     []string
}

// startData starts a master and n replicas of it.
func startData(t *testing.T, n int) *topology {
	t.Helper()
	top := &topology{t: t, master: startRedis(t)}
	for i := 0; i < n; i++ {
		top.replicas = append(top.replicas, startRedis(t, "--replicaof", "127.0.0.1", fmt.Sprint(top.master.Port)))
	}
	return top
}

// startDataUnpromotable starts a master and n replicas with
// replica-priority 0: no failover can happen, so tests can watch failure
// detection without a promotion racing it.
func startDataUnpromotable(t *testing.T, n int) *topology {
	t.Helper()
	top := &topology{t: t, master: startRedis(t)}
	for i := 0; i < n; i++ {
		top.replicas = append(top.replicas, startRedis(t, "--replicaof", "127.0.0.1", fmt.Sprint(top.master.Port), "--replica-priority", "0"))
	}
	return top
}

// sentinelConf is the config every test Sentinel starts from.
func (top *topology) sentinelConf(port, quorum int, extra string) string {
	return fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 %d %d\nsentinel down-after-milliseconds mymaster 2000\n"+
		"sentinel failover-timeout mymaster 10000\n%s", port, top.master.Port, quorum, extra)
}

// addGoSentinel starts a go-sentinel watching the master.
func (top *topology) addGoSentinel(quorum int, extra string) *proc {
	top.t.Helper()
	port := freePort(top.t)
	conf := writeConf(top.t, top.sentinelConf(port, quorum, extra))
	p := startSentinel(top.t, conf, port, nil)
	top.sentinels = append(top.sentinels, p)
	top.confs = append(top.confs, conf)
	return p
}

// addRedisSentinel starts Debian's redis-sentinel watching the master.
func (top *topology) addRedisSentinel(quorum int, extra string) *proc {
	top.t.Helper()
	bin := needBinary(top.t, "redis-sentinel")
	port := freePort(top.t)
	conf := writeConf(top.t, top.sentinelConf(port, quorum, extra))
	p := start(top.t, filepath.Dir(conf), nil, bin, conf)
	p.Port = port
	waitFor(top.t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(port) })
	top.sentinels = append(top.sentinels, p)
	top.confs = append(top.confs, conf)
	return p
}

// addSentinels starts n Sentinels of kind watching the master, each with
// the given quorum.
func (top *topology) addSentinels(kind daemonKind, n, quorum int) {
	top.t.Helper()
	for range n {
		if kind == goSentinel {
			top.addGoSentinel(quorum, "")
		} else {
			top.addRedisSentinel(quorum, "")
		}
	}
}

// sentinelField reads one field of a SENTINEL MASTER reply.
func sentinelField(t *testing.T, port int, field string) string {
	t.Helper()
	m, err := client(t, port).Do(context.Background(), "SENTINEL", "MASTER", "mymaster").Slice()
	if err != nil {
		return ""
	}
	for i := 0; i+1 < len(m); i += 2 {
		if m[i] == field {
			return fmt.Sprint(m[i+1])
		}
	}
	return ""
}

// listLen returns the number of entries of SENTINEL REPLICAS/SENTINELS.
func listLen(t *testing.T, port int, sub string) int {
	t.Helper()
	l, err := client(t, port).Do(context.Background(), "SENTINEL", sub, "mymaster").Slice()
	if err != nil {
		return -1
	}
	return len(l)
}

// eventLog subscribes to every event of a Sentinel and records them,
// each with when it arrived here.
type eventLog struct {
	mu     sync.Mutex
	events []string
	at     []time.Time // at[i]: when events[i] arrived
}

// add records an event that arrived now.
func (el *eventLog) add(e string) {
	now := time.Now()
	el.mu.Lock()
	defer el.mu.Unlock()
	el.events = append(el.events, e)
	el.at = append(el.at, now)
}

// firstSince returns the first event that arrived at or after from and
// matches, and when it arrived; ok is false when none has.
func (el *eventLog) firstSince(from time.Time, match func(e string) bool) (e string, at time.Time, ok bool) {
	el.mu.Lock()
	defer el.mu.Unlock()
	for i, x := range el.events {
		if !el.at[i].Before(from) && match(x) {
			return x, el.at[i], true
		}
	}
	return "", time.Time{}, false
}

func watchEvents(t *testing.T, port int) *eventLog {
	t.Helper()
	c := client(t, port)
	ps := c.PSubscribe(context.Background(), "*")
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	el := &eventLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			msg, err := ps.ReceiveMessage(context.Background())
			if err != nil {
				return
			}
			el.add(msg.Channel + " " + msg.Payload)
		}
	}()
	t.Cleanup(func() { ps.Close(); <-done })
	return el
}

func (el *eventLog) has(prefix string) bool {
	el.mu.Lock()
	defer el.mu.Unlock()
	for _, e := range el.events {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}

func (el *eventLog) String() string {
	el.mu.Lock()
	defer el.mu.Unlock()
	return strings.Join(el.events, "\n")
}

// killProc stops a process with SIGKILL and waits for it.
func killProc(p *proc) {
	p.cmd.Process.Signal(os.Kill)
	<-p.done
}

// doSlice runs a command and returns its reply as a slice.
func doSlice(t *testing.T, c *redis.Client, args ...any) []any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Slice()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}
