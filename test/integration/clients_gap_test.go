package integration

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sentinelKinds are the daemons each failover-gap client test runs
// against, one after the other in the same run: go-sentinel and Debian's
// redis-sentinel, with the same topology and config.
var sentinelKinds = []string{"go-sentinel", "redis-sentinel"}

// fleetOf starts the topology of the client tests (a master, two replicas,
// three Sentinels with quorum 2, discovery complete) with Sentinels of
// kind, and returns it with the Sentinels' host:port addresses.
func fleetOf(t *testing.T, kind string) (*topology, []string) {
	t.Helper()
	top := startData(t, 2)
	for i := 0; i < 3; i++ {
		switch kind {
		case "go-sentinel":
			top.addGoSentinel(2, "")
		case "redis-sentinel":
			top.addRedisSentinel(2, "")
		default:
			t.Fatalf("unknown Sentinel kind %q", kind)
		}
	}
	waitDiscovery(t, top)
	var addrs []string
	for _, s := range top.sentinels {
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", s.Port))
	}
	return top, addrs
}

// longestGap returns the longest "gap MILLISECONDS" a client script
// reported: the longest time between two successful writes.
func longestGap(p *proc) time.Duration {
	var longest time.Duration
	for _, l := range scriptLines(p) {
		if v, ok := strings.CutPrefix(l, "gap "); ok {
			if ms, err := strconv.Atoi(v); err == nil && time.Duration(ms)*time.Millisecond > longest {
				longest = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return longest
}

// firstWrite returns the counter value of the first "write ok PORT VALUE"
// line for port, or -1 when there is none.
func firstWrite(p *proc, port int) int {
	prefix := fmt.Sprintf("write ok %d ", port)
	for _, l := range scriptLines(p) {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return -1
}

// followFailover runs a client script (argv, to which the master name, the
// time bound and the Sentinel addresses are appended) against a fleet of
// kind: the script must discover the master and both replicas through the
// Sentinels and write to the master, keep writing while the master is
// SIGKILLed and end writing to the new master. It returns the longest gap
// between two successful writes the script reported.
func followFailover(t *testing.T, kind string, env []string, argv ...string) time.Duration {
	t.Helper()
	top, addrs := fleetOf(t, kind)
	logs := watchAll(t, top)
	args := append(append(append([]string{}, argv[1:]...), "mymaster", clientScriptSeconds), addrs...)
	p := start(t, clientsDir(t), env, argv[0], args...)
	t.Cleanup(func() { t.Logf("client output:\n%s", scriptSummary(p)) })

	oldPort := top.master.Port
	var replicas []string
	for _, r := range top.replicas {
		replicas = append(replicas, fmt.Sprintf("127.0.0.1:%d", r.Port))
	}
	sort.Strings(replicas)
	waitLine(t, p, 0, 20*time.Second, "the Sentinels to name the master",
		isLine(fmt.Sprintf("discover_master 127.0.0.1:%d", oldPort)))
	waitLine(t, p, 0, 20*time.Second, "the Sentinels to list both replicas",
		isLine("discover_slaves "+strings.Join(replicas, ",")))
	waitLine(t, p, 0, 20*time.Second, "five writes on the master", isLine(fmt.Sprintf("write ok %d 5", oldPort)))
	checkCounterOn(t, p, oldPort)
	// The replicas finish their first sync (Redis delays it by
	// repl-diskless-sync-delay) before the master dies, so the gap measures
	// the failover and the new master holds the old master's writes.
	waitInSync(t, top)

	mark := len(scriptLines(p))
	newMaster := waitFailover(t, top, logs)
	waitLine(t, p, mark, 30*time.Second, "a write on the new master",
		hasPrefix(fmt.Sprintf("write ok %d ", newMaster.Port)))
	waitLine(t, p, mark, 20*time.Second, "the Sentinels to name the new master",
		isLine(fmt.Sprintf("discover_master 127.0.0.1:%d", newMaster.Port)))
	n := len(scriptLines(p))
	waitLine(t, p, n, 10*time.Second, "more writes on the new master",
		hasPrefix(fmt.Sprintf("write ok %d ", newMaster.Port)))
	checkCounterOn(t, p, newMaster.Port)
	if first := firstWrite(p, newMaster.Port); first <= 5 {
		t.Errorf("the first write on the new master returned %d: the old master's writes are not there", first)
	}
	gap := longestGap(p)
	if gap == 0 {
		t.Fatalf("the client reported no gap in its writes across the failover")
	}
	return gap
}

// testFailoverGaps runs followFailover for client against each kind of
// Sentinel in turn and logs the longest write gap of each.
func testFailoverGaps(t *testing.T, client string, env []string, argv ...string) {
	gaps := map[string]time.Duration{}
	for _, kind := range sentinelKinds {
		t.Run(kind, func(t *testing.T) {
			gaps[kind] = followFailover(t, kind, env, argv...)
			t.Logf("%s: longest write gap through the failover with %s: %v", client, kind, gaps[kind])
		})
	}
	var parts []string
	for _, kind := range sentinelKinds {
		if g, ok := gaps[kind]; ok {
			parts = append(parts, fmt.Sprintf("%s %v", kind, g))
		}
	}
	t.Logf("%s: longest write gap (master SIGKILLed, down-after 2s): %s", client, strings.Join(parts, ", "))
}
