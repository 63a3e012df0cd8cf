package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// masterAddr asks a Sentinel for the current master address.
func masterAddr(t *testing.T, port int) string {
	t.Helper()
	v, err := client(t, port).Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
	if err != nil || len(v) != 2 {
		return ""
	}
	return v[0] + ":" + v[1]
}

// role returns the ROLE of a redis-server and, for a replica, its master port.
func role(t *testing.T, port int) (string, int) {
	t.Helper()
	v, err := client(t, port).Do(context.Background(), "ROLE").Slice()
	if err != nil || len(v) == 0 {
		return "", 0
	}
	r := fmt.Sprint(v[0])
	if r == "slave" && len(v) > 2 {
		p, _ := v[2].(int64)
		return r, int(p)
	}
	return r, 0
}

// waitFailover kills the master and waits until every Sentinel agrees on
// one of the replicas as the new master; it returns that replica.
func waitFailover(t *testing.T, top *topology, logs []*eventLog) *proc {
	t.Helper()
	old := fmt.Sprintf("127.0.0.1:%d", top.master.Port)
	killProc(top.master)
	var newMaster *proc
	waitFor(t, 60*time.Second, "all sentinels to agree on a new master", func() bool {
		first := masterAddr(t, top.sentinels[0].Port)
		if first == "" || first == old {
			return false
		}
		for _, s := range top.sentinels[1:] {
			if masterAddr(t, s.Port) != first {
				return false
			}
		}
		for _, r := range top.replicas {
			if fmt.Sprintf("127.0.0.1:%d", r.Port) == first {
				newMaster = r
			}
		}
		return newMaster != nil
	})
	for i, el := range logs {
		el := el
		waitFor(t, 10*time.Second, fmt.Sprintf("+switch-master on sentinel %d", i), func() bool {
			return el.has(fmt.Sprintf("+switch-master mymaster 127.0.0.1 %d 127.0.0.1 %d", top.master.Port, newMaster.Port))
		})
	}
	waitFor(t, 20*time.Second, "the new master to report role master", func() bool {
		r, _ := role(t, newMaster.Port)
		return r == "master"
	})
	for _, r := range top.replicas {
		if r == newMaster {
			continue
		}
		r := r
		waitFor(t, 30*time.Second, "the other replica to follow the new master", func() bool {
			ro, mp := role(t, r.Port)
			return ro == "slave" && mp == newMaster.Port
		})
	}
	return newMaster
}

func watchAll(t *testing.T, top *topology) []*eventLog {
	logs := make([]*eventLog, len(top.sentinels))
	for i, s := range top.sentinels {
		logs[i] = watchEvents(t, s.Port)
	}
	return logs
}

func waitDiscovery(t *testing.T, top *topology) {
	t.Helper()
	for _, s := range top.sentinels {
		s := s
		waitFor(t, 15*time.Second, fmt.Sprintf("sentinel :%d to discover everything", s.Port), func() bool {
			return listLen(t, s.Port, "REPLICAS") == len(top.replicas) && listLen(t, s.Port, "SENTINELS") == len(top.sentinels)-1
		})
	}
}

func TestFailoverThreeGoSentinelsAndOldMasterReturns(t *testing.T) {
	top := startData(t, 2)
	for i := 0; i < 3; i++ {
		top.addGoSentinel(2, "")
	}
	waitDiscovery(t, top)
	logs := watchAll(t, top)
	newMaster := waitFailover(t, top, logs)

	// The old master comes back and is turned into a replica.
	oldPort := top.master.Port
	start(t, top.master.Dir, nil, needBinary(t, "redis-server"), "--port", fmt.Sprint(oldPort), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", top.master.Dir, "--daemonize", "no")
	waitFor(t, 40*time.Second, "the old master to become a replica of the new one", func() bool {
		r, mp := role(t, oldPort)
		return r == "slave" && mp == newMaster.Port
	})
	found := false
	for _, el := range logs {
		found = found || el.has(fmt.Sprintf("+convert-to-slave slave 127.0.0.1:%d", oldPort))
	}
	if !found {
		t.Error("no +convert-to-slave event")
	}
	// Every config file now names the new master.
	for _, c := range top.confs {
		c := c
		waitFor(t, 5*time.Second, "config rewritten with the new master", func() bool {
			return strings.Contains(readFile(t, c), fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 2", newMaster.Port))
		})
	}
}

func TestSentinelFailoverCommand(t *testing.T) {
	top := startData(t, 1)
	s := top.addGoSentinel(1, "")
	waitFor(t, 10*time.Second, "replica discovery", func() bool { return listLen(t, s.Port, "REPLICAS") == 1 })
	// The replica must have answered INFO recently to be selectable.
	waitFor(t, 15*time.Second, "replica fresh", func() bool {
		return client(t, s.Port).Do(context.Background(), "SENTINEL", "FAILOVER", "mymaster").Err() == nil
	})
	err := client(t, s.Port).Do(context.Background(), "SENTINEL", "FAILOVER", "mymaster").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "INPROG") {
		t.Errorf("second FAILOVER: %v", err)
	}
	if err := client(t, s.Port).Do(context.Background(), "SENTINEL", "FAILOVER", "nope").Err(); err == nil || err.Error() != "ERR No such master with that name" {
		t.Errorf("unknown master: %v", err)
	}
	want := fmt.Sprintf("127.0.0.1:%d", top.replicas[0].Port)
	waitFor(t, 30*time.Second, "the replica to be the master", func() bool { return masterAddr(t, s.Port) == want })
	waitFor(t, 20*time.Second, "role master", func() bool { r, _ := role(t, top.replicas[0].Port); return r == "master" })
	waitFor(t, 30*time.Second, "old master to follow", func() bool {
		r, mp := role(t, top.master.Port)
		return r == "slave" && mp == top.replicas[0].Port
	})
}

func TestNoGoodReplica(t *testing.T) {
	top := startData(t, 0)
	s := top.addGoSentinel(1, "")
	err := client(t, s.Port).Do(context.Background(), "SENTINEL", "FAILOVER", "mymaster").Err()
	if err == nil || err.Error() != "NOGOODSLAVE No suitable replica to promote" {
		t.Fatalf("got %v", err)
	}
}

func TestGoRedisFailoverClientFollows(t *testing.T) {
	top := startData(t, 2)
	for i := 0; i < 3; i++ {
		top.addGoSentinel(2, "")
	}
	waitDiscovery(t, top)
	var addrs []string
	for _, s := range top.sentinels {
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", s.Port))
	}
	for _, proto := range []int{3, 2} {
		fc := redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: "mymaster", SentinelAddrs: addrs, Protocol: proto,
			DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		})
		t.Cleanup(func() { fc.Close() })
		if err := fc.Set(context.Background(), "k", proto, 0).Err(); err != nil {
			t.Fatalf("RESP%d set before failover: %v", proto, err)
		}
	}
	fc := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName: "mymaster", SentinelAddrs: addrs,
		DialTimeout: 500 * time.Millisecond, ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond,
	})
	t.Cleanup(func() { fc.Close() })
	logs := watchAll(t, top)
	newMaster := waitFailover(t, top, logs)
	waitFor(t, 30*time.Second, "go-redis writes to land on the new master", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := fc.Incr(ctx, "counter").Err(); err != nil {
			return false
		}
		v, err := client(t, newMaster.Port).Get(context.Background(), "counter").Int()
		return err == nil && v > 0
	})
}
