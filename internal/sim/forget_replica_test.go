package sim

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// knownReplicas returns the addresses (ip:port) of a node's SENTINEL
// REPLICAS of m, sorted.
func knownReplicas(n *Node) []string {
	reps, err := n.Core.View().Replicas(n.Now(), masterName)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range reps {
		for _, kv := range r {
			if kv.Key == "name" {
				out = append(out, kv.Value)
			}
		}
	}
	sort.Strings(out)
	return out
}

// replicasTruth returns the addresses of the servers that replicate from
// the single master-role server, sorted, and that master's address; ok
// is false when there is no single master.
func replicasTruth(c *Cluster) (replicas []string, master settings.Addr, ok bool) {
	masters := 0
	for _, s := range c.Servers() {
		if s.Role == RoleMaster {
			masters++
			master = s.Addr
		}
	}
	if masters != 1 {
		return nil, master, false
	}
	for _, s := range c.Servers() {
		if s.Addr != master {
			replicas = append(replicas, s.Addr.String())
		}
	}
	sort.Strings(replicas)
	return replicas, master, true
}

// everyNodeKnows reports whether every running node lists exactly want
// as the replicas of m.
func everyNodeKnows(c *Cluster, want []string) bool {
	return allNodes(c, func(n *Node) bool { return slices.Equal(knownReplicas(n), want) })
}

// TestForgetReplica runs forget-replica-after (10 s) on the simulated
// fleet: a Sentinel cut from a replica that its master still reaches
// keeps it however long the cut lasts; a crashed replica, which the
// master no longer lists, is forgotten by every Sentinel with one -slave
// each; restarted, it is discovered again (+slave).
func TestForgetReplica(t *testing.T) {
	c := Standard(t, 21, Topology{ForgetReplicaAfter: 10 * time.Second})
	settle(t, c, 2)
	both := []string{"10.0.1.2:6379", "10.0.1.3:6379"}
	start := c.Now()
	c.Partition([]string{"s1"}, []string{"r1"})
	c.Run(time.Minute)
	if !everyNodeKnows(c, both) {
		t.Fatalf("a replica the master lists was forgotten: s1 knows %v", knownReplicas(c.Node("s1")))
	}
	if ev := c.EventsSince(start, "", event.ReplicaForgotten); len(ev) != 0 {
		t.Fatalf("forgotten while the master lists it: %v", ev)
	}
	c.Heal()
	crash := c.Now()
	c.Crash("r2")
	if !c.RunUntil(func() bool { return everyNodeKnows(c, both[:1]) }, time.Minute) {
		t.Fatalf("the crashed replica is still known a minute later: s1 knows %v", knownReplicas(c.Node("s1")))
	}
	for _, n := range c.NodeNames() {
		ev := c.EventsSince(crash, n, event.ReplicaForgotten)
		if len(ev) != 1 || ev[0].Name != "10.0.1.3:6379" {
			t.Fatalf("%s: -slave events %v, want one about 10.0.1.3:6379", n, ev)
		}
		t.Logf("%s forgot %s %v after its crash", n, ev[0].Name, ev[0].At.Sub(crash))
	}
	back := c.Now()
	c.Restart("r2")
	if !c.RunUntil(func() bool { return everyNodeKnows(c, both) }, time.Minute) {
		t.Fatalf("the restarted replica is not discovered again: s1 knows %v", knownReplicas(c.Node("s1")))
	}
	for _, n := range c.NodeNames() {
		if ev := c.EventsSince(back, n, event.Replica); len(ev) != 1 {
			t.Fatalf("%s: +slave events %v after the restart, want one", n, ev)
		}
	}
}
