package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ioredisNode returns the node binary when the ioredis package mod (a
// folder of clients/node_modules) is installed and node is at least
// minMajor, or skips the test.
func ioredisNode(t *testing.T, mod string, minMajor int) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed (apt-get install nodejs npm); .ci/run installs it")
	}
	if _, err := os.Stat(filepath.Join(clientsDir(t), "node_modules", mod, "package.json")); err != nil {
		t.Skipf("%s not installed in test/integration/clients (npm ci there; .ci/run does it): %v", mod, err)
	}
	out, err := exec.Command(node, "-p", "process.versions.node").Output()
	if err != nil {
		t.Skipf("node does not run: %v", err)
	}
	v := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if major < minMajor {
		t.Skipf("%s needs node >= %d, this node is %s", mod, minMajor, v)
	}
	return node
}

// TestClientIoredis5FollowsFailover runs ioredis 5 (RESP2) with sentinels +
// name and failoverDetector: true against three go-sentinels.
func TestClientIoredis5FollowsFailover(t *testing.T) {
	testIoredis(t, "ioredis", 12)
}

// TestClientIoredis6FollowsFailover runs ioredis 6, which talks RESP3 to the
// Sentinels (HELLO 3 and CLIENT SETINFO pipelined before any reply is read).
func TestClientIoredis6FollowsFailover(t *testing.T) {
	testIoredis(t, "ioredis6", 20)
}

// testIoredis kills the master under a writing ioredis client and checks
// that it moves to the new master, with its failover detector reacting to
// +switch-master; then it runs SENTINEL FAILOVER with the master alive,
// where the old master stays reachable (as a read-only replica) and only the
// detector's +switch-master tells ioredis to move.
func testIoredis(t *testing.T, mod string, minNode int) {
	node := ioredisNode(t, mod, minNode)
	top, addrs := clientFleet(t)
	logs := watchAll(t, top)
	dir := clientsDir(t)
	p := start(t, dir, nil, node, append([]string{filepath.Join(dir, "ioredis_client.js"), mod, "mymaster",
		clientScriptSeconds}, addrs...)...)
	t.Cleanup(func() { t.Logf("client output:\n%s", scriptSummary(p)) })

	oldPort := top.master.Port
	isReplicaRead := func(l string) bool {
		for _, r := range top.replicas {
			if strings.HasPrefix(l, fmt.Sprintf("read ok %d ", r.Port)) {
				return true
			}
		}
		return false
	}
	waitLine(t, p, 0, 20*time.Second, "five writes on the master", isLine(fmt.Sprintf("write ok %d 5", oldPort)))
	waitLine(t, p, 0, 20*time.Second, "a read on a replica (role: slave)", isReplicaRead)
	waitLine(t, p, 0, 20*time.Second, "the failover detector to subscribe", isLine("event master failoverSubscribed"))
	for _, s := range top.sentinels {
		waitLine(t, p, 0, 5*time.Second, fmt.Sprintf("the detector to subscribe on :%d", s.Port),
			isLine(fmt.Sprintf("detector subscribe 127.0.0.1:%d", s.Port)))
	}
	checkCounterOn(t, p, oldPort)

	// Phase 1: the master is killed.
	mark := len(scriptLines(p))
	newMaster := waitFailover(t, top, logs)
	waitLine(t, p, mark, 30*time.Second, "a write on the new master",
		hasPrefix(fmt.Sprintf("write ok %d ", newMaster.Port)))
	waitLine(t, p, mark, 10*time.Second, "the detector to receive +switch-master",
		isLine(fmt.Sprintf("detector message +switch-master mymaster 127.0.0.1 %d 127.0.0.1 %d", oldPort, newMaster.Port)))
	waitLine(t, p, mark, 10*time.Second, "the detector to react", isLine("detector disconnect"))
	waitLine(t, p, mark, 10*time.Second, "a read after the failover", hasPrefix("read ok "))
	n := len(scriptLines(p))
	waitLine(t, p, n, 10*time.Second, "more writes on the new master",
		hasPrefix(fmt.Sprintf("write ok %d ", newMaster.Port)))
	checkCounterOn(t, p, newMaster.Port)

	// Phase 2: SENTINEL FAILOVER with the master alive.
	var next *proc
	for _, r := range top.replicas {
		if r != newMaster {
			next = r
		}
	}
	s0 := top.sentinels[0].Port
	waitFor(t, 20*time.Second, "SENTINEL FAILOVER to be accepted", func() bool {
		return client(t, s0).Do(context.Background(), "SENTINEL", "FAILOVER", "mymaster").Err() == nil
	})
	mark = len(scriptLines(p))
	switchLine := fmt.Sprintf("detector message +switch-master mymaster 127.0.0.1 %d 127.0.0.1 %d", newMaster.Port, next.Port)
	waitLine(t, p, mark, 30*time.Second, "the detector to receive the second +switch-master", isLine(switchLine))
	waitLine(t, p, mark, 10*time.Second, "the detector to react again", isLine("detector disconnect"))
	waitLine(t, p, mark, 20*time.Second, "a write on the manually promoted master",
		hasPrefix(fmt.Sprintf("write ok %d ", next.Port)))
	n = len(scriptLines(p))
	waitLine(t, p, n, 10*time.Second, "more writes on the manually promoted master",
		hasPrefix(fmt.Sprintf("write ok %d ", next.Port)))
	checkCounterOn(t, p, next.Port)
}
