package integration

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// redisPy returns a python3 interpreter that can import redis.sentinel,
// preferring Debian's (where apt's python3-redis lands) over one on PATH, or
// skips the test.
func redisPy(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, cand := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(cand)
		if err != nil {
			continue
		}
		if err := runtimeProbe("", path, "-c", "import redis.sentinel"); err != nil {
			tried = append(tried, path)
			continue
		}
		return path
	}
	t.Skipf("no python3 with the redis module (tried %v; apt-get install python3-redis); .ci/run installs it", tried)
	return ""
}

// TestClientRedisPySentinelFollowsFailover runs redis-py's
// redis.sentinel.Sentinel (discover_master, discover_slaves, master_for,
// slave_for) against three go-sentinels while the master is killed.
func TestClientRedisPySentinelFollowsFailover(t *testing.T) {
	py := redisPy(t)
	top, addrs := clientFleet(t)
	logs := watchAll(t, top)
	dir := clientsDir(t)
	p := start(t, dir, []string{"PYTHONDONTWRITEBYTECODE=1"}, py, append([]string{"-u",
		filepath.Join(dir, "redispy_client.py"), "mymaster", clientScriptSeconds}, addrs...)...)
	t.Cleanup(func() { t.Logf("client output:\n%s", scriptSummary(p)) })

	oldPort := top.master.Port
	replicaAddrs := make([]string, len(top.replicas))
	for i, r := range top.replicas {
		replicaAddrs[i] = fmt.Sprintf("127.0.0.1:%d", r.Port)
	}
	sort.Strings(replicaAddrs)
	isReplicaRead := func(l string) bool {
		for _, r := range top.replicas {
			if strings.HasPrefix(l, fmt.Sprintf("read ok %d ", r.Port)) {
				return true
			}
		}
		return false
	}

	waitLine(t, p, 0, 20*time.Second, "discover_master to name the master",
		isLine(fmt.Sprintf("discover_master 127.0.0.1:%d", oldPort)))
	waitLine(t, p, 0, 20*time.Second, "discover_slaves to list both replicas",
		isLine("discover_slaves "+strings.Join(replicaAddrs, ",")))
	waitLine(t, p, 0, 20*time.Second, "five writes through master_for on the master",
		isLine(fmt.Sprintf("write ok %d 5", oldPort)))
	waitLine(t, p, 0, 20*time.Second, "a read through slave_for on a replica", isReplicaRead)
	checkCounterOn(t, p, oldPort)

	mark := len(scriptLines(p))
	newMaster := waitFailover(t, top, logs)
	var other *proc
	for _, r := range top.replicas {
		if r != newMaster {
			other = r
		}
	}

	waitLine(t, p, mark, 30*time.Second, "a write through master_for on the new master",
		hasPrefix(fmt.Sprintf("write ok %d ", newMaster.Port)))
	waitLine(t, p, mark, 20*time.Second, "discover_master to name the new master",
		isLine(fmt.Sprintf("discover_master 127.0.0.1:%d", newMaster.Port)))
	// The old master is listed as a replica in s_down (and disconnected):
	// redis-py must filter it out and keep only the live replica.
	waitLine(t, p, mark, 20*time.Second, "discover_slaves to list only the remaining replica",
		isLine(fmt.Sprintf("discover_slaves 127.0.0.1:%d", other.Port)))
	waitLine(t, p, mark, 20*time.Second, "a read through slave_for after the failover", hasPrefix("read ok "))
	// Writes keep landing on the new master, and the counter there is at
	// least what the client reports having written.
	n := len(scriptLines(p))
	waitLine(t, p, n, 10*time.Second, "more writes on the new master",
		hasPrefix(fmt.Sprintf("write ok %d ", newMaster.Port)))
	checkCounterOn(t, p, newMaster.Port)
}
