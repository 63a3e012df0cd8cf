package integration

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStoppedMasterDemotedOnResume: the master is SIGSTOPped past its
// failover and resumed right after +switch-master, while a client keeps
// writing to it directly. The leader sent the demotion (SLAVEOF, CLIENT
// KILL) on its link at the promotion, behind the PING the stopped master
// never answered, so the commands are in the master's socket when it runs
// again, although the link was closed at the leader's switch: it is a
// replica at once, and the client's connection is killed.
// At most the write in flight when it stopped is acknowledged after the
// resume. (A link that waited for the PING's reply before writing the
// demotion lost it when the switch closed the link, and the old master
// took writes, all lost, until the +convert-to-slave of Redis's rule about
// ten seconds later.) The same run with redis-sentinel is logged for
// comparison: it converts the old master by that rule.
func TestStoppedMasterDemotedOnResume(t *testing.T) {
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) { stoppedMasterRun(t, kind) })
	}
}

// stoppedMasterRun is one run of TestStoppedMasterDemotedOnResume with
// three Sentinels of kind.
func stoppedMasterRun(t *testing.T, kind daemonKind) {
	top := startData(t, 2)
	top.addSentinels(kind, 3, 2)
	waitDiscovery(t, top)
	logs := watchAll(t, top)
	// Writes go to the master on one connection that waits out the stop.
	w := redis.NewClient(&redis.Options{
		Addr: fmt.Sprintf("127.0.0.1:%d", top.master.Port), Protocol: 2, DisableIdentity: true,
		MaxRetries: -1, PoolSize: 1, DialTimeout: time.Second, ReadTimeout: 30 * time.Second,
	})
	t.Cleanup(func() { w.Close() })
	var (
		mu     sync.Mutex
		resume time.Time
		after  []int // writes acknowledged by the old master after the resume
	)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			err := w.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err()
			mu.Lock()
			if err == nil && !resume.IsZero() {
				after = append(after, i)
			}
			mu.Unlock()
			if err != nil {
				time.Sleep(10 * time.Millisecond) // a client's back-off after an error
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, 10*time.Second, "the writer to write", func() bool {
		n, _ := client(t, top.master.Port).DBSize(context.Background()).Result()
		return n > 10
	})

	t.Cleanup(func() { top.master.cmd.Process.Signal(syscall.SIGCONT) })
	top.master.signal(syscall.SIGSTOP)
	switched := fmt.Sprintf("+switch-master mymaster 127.0.0.1 %d ", top.master.Port)
	// Every Sentinel switched, the leader too: its link to the old master
	// was closed at its switch, with the demotion written or not.
	waitFor(t, 30*time.Second, "every Sentinel's +switch-master away from the stopped master", func() bool {
		for _, el := range logs {
			if !el.has(switched) {
				return false
			}
		}
		return true
	})
	mu.Lock()
	resume = time.Now()
	mu.Unlock()
	top.master.signal(syscall.SIGCONT)
	waitFor(t, 30*time.Second, "the old master to report the replica role", func() bool {
		r, _ := role(t, top.master.Port)
		return r == "slave"
	})
	demoted := time.Since(resume)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	t.Logf("the old master was a replica %v after it resumed; writes it acknowledged after the resume: %d %v", demoted.Round(time.Millisecond), len(after), ends(after))
	if len(after) > 1 && kind == goSentinel {
		for _, s := range top.sentinels {
			t.Logf("Sentinel :%d:\n%s", s.Port, s.out.String())
		}
		t.Errorf("the old master acknowledged %d writes after it resumed; want at most the one in flight at the stop", len(after))
	}
}

// ends is the first and last of seqs, or seqs itself if shorter.
func ends(seqs []int) []int {
	if len(seqs) <= 2 {
		return seqs
	}
	return []int{seqs[0], seqs[len(seqs)-1]}
}
