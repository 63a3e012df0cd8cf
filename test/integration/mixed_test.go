package integration

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// TestMixedFleetFailover runs failovers in fleets mixing Debian's
// redis-sentinel with go-sentinel, forcing either kind to lead: the
// intended leader has quorum 1 and a short down-after, so it reaches ODOWN
// and asks for votes first; the others vote for the first asker.
func TestMixedFleetFailover(t *testing.T) {
	const fast = "sentinel down-after-milliseconds mymaster 1500\n"
	const slow = "sentinel down-after-milliseconds mymaster 5000\n"
	tests := []struct {
		name       string
		real, goes int
		leaderReal bool
	}{
		{"2 redis-sentinel + 1 go-sentinel, go-sentinel leads", 2, 1, false},
		{"1 redis-sentinel + 2 go-sentinel, redis-sentinel leads", 1, 2, true},
		{"1 redis-sentinel + 2 go-sentinel, go-sentinel leads", 1, 2, false},
		{"2 redis-sentinel + 1 go-sentinel, redis-sentinel leads", 2, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := startData(t, 2)
			var leader *proc
			for i := 0; i < tt.real; i++ {
				if tt.leaderReal && i == 0 {
					leader = top.addRedisSentinel(1, fast)
				} else {
					top.addRedisSentinel(2, slow)
				}
			}
			for i := 0; i < tt.goes; i++ {
				if !tt.leaderReal && i == 0 {
					leader = top.addGoSentinel(1, fast)
				} else {
					top.addGoSentinel(2, slow)
				}
			}
			waitDiscovery(t, top)
			logs := watchAll(t, top)
			var leaderLog *eventLog
			for i, s := range top.sentinels {
				if s == leader {
					leaderLog = logs[i]
				}
			}
			newMaster := waitFailover(t, top, logs)
			if !leaderLog.has(fmt.Sprintf("+elected-leader master mymaster 127.0.0.1 %d", top.master.Port)) {
				t.Errorf("the intended leader was not elected; its events:\n%s", leaderLog)
			}
			// The old master returns and is demoted.
			oldPort := top.master.Port
			start(t, top.master.Dir, nil, needBinary(t, "redis-server"), "--port", fmt.Sprint(oldPort), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", top.master.Dir, "--daemonize", "no")
			_ = newMaster
			waitFor(t, 40*time.Second, "the old master to become a replica of the current master", func() bool {
				r, mp := role(t, oldPort)
				return r == "slave" && masterAddr(t, top.sentinels[0].Port) == fmt.Sprintf("127.0.0.1:%d", mp)
			})
		})
	}
}

// TestGoSentinelRejoinsFromRewrittenConfig restarts a go-sentinel of a
// mixed fleet after a failover it slept through: from its rewritten config
// it knows the others and learns the new master from their hellos.
func TestGoSentinelRejoinsFromRewrittenConfig(t *testing.T) {
	top := startData(t, 2)
	top.addRedisSentinel(2, "")
	top.addRedisSentinel(2, "")
	gs := top.addGoSentinel(2, "")
	waitDiscovery(t, top)
	gs.signal(syscall.SIGTERM)
	if code := gs.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	top.sentinels = top.sentinels[:2]
	logs := watchAll(t, top)
	newMaster := waitFailover(t, top, logs)
	restarted := startSentinel(t, top.confs[2], gs.Port, nil)
	waitFor(t, 30*time.Second, "the restarted go-sentinel to know the new master", func() bool {
		return masterAddr(t, restarted.Port) == fmt.Sprintf("127.0.0.1:%d", newMaster.Port)
	})
	waitFor(t, 15*time.Second, "the restarted go-sentinel to list both others", func() bool {
		return listLen(t, restarted.Port, "SENTINELS") == 2
	})
}
