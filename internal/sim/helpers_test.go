package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// masterName is the master every scenario monitors.
const masterName = "m"

// downAfter is the down-after-milliseconds of the scenarios.
const downAfter = 5 * time.Second

// maxLatency is the default one-way delay bound of a Cluster.
const maxLatency = 5 * time.Millisecond

// masterKV returns a node's SENTINEL MASTER view of m.
func masterKV(t *testing.T, n *Node) []view.KV {
	t.Helper()
	kv, err := n.Core.View().Master(n.Now(), masterName)
	if err != nil {
		t.Fatalf("%s: SENTINEL MASTER: %v", n.Name, err)
	}
	return kv
}

// flagsOf returns the flags field of a node's view of m.
func flagsOf(t *testing.T, n *Node) string { return Field(masterKV(t, n), "flags") }

// hasFlag reports whether a comma-separated flags field contains f.
func hasFlag(flags, f string) bool {
	for _, x := range strings.Split(flags, ",") {
		if x == f {
			return true
		}
	}
	return false
}

// replicasOf and sentinelsOf return a node's SENTINEL REPLICAS/SENTINELS
// views of m.
func replicasOf(t *testing.T, n *Node) [][]view.KV {
	t.Helper()
	r, err := n.Core.View().Replicas(n.Now(), masterName)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sentinelsOf(t *testing.T, n *Node) [][]view.KV {
	t.Helper()
	r, err := n.Core.View().Sentinels(n.Now(), masterName)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// masterEvents returns the events of node of type typ whose message is
// about the master object (not a replica or sentinel of it), at or after
// since.
func masterEvents(c *Cluster, since time.Time, node string, typ event.Type) []EventRecord {
	var out []EventRecord
	for _, e := range c.EventsSince(since, node, typ) {
		if strings.HasPrefix(e.Msg, "master "+masterName+" ") {
			out = append(out, e)
		}
	}
	return out
}

// allNodes reports whether cond holds for every running node.
func allNodes(c *Cluster, cond func(n *Node) bool) bool {
	for _, n := range c.Nodes() {
		if !n.Crashed() && !cond(n) {
			return false
		}
	}
	return true
}

// discovered reports whether a node knows r replicas and s other
// Sentinels of m.
func discovered(n *Node, r, s int) bool {
	for _, sum := range n.Core.View().MasterSummaries() {
		if sum.Name == masterName {
			return sum.NumReplicas == r && sum.NumSentinels == s
		}
	}
	return false
}

// settle runs a standard cluster until every node discovered everything,
// failing the test if that takes more than 5 s of virtual time.
func settle(t TB, c *Cluster, replicas int) {
	t.Helper()
	others := len(c.Nodes()) - 1
	if !c.RunUntil(func() bool { return allNodes(c, func(n *Node) bool { return discovered(n, replicas, others) }) }, 5*time.Second) {
		c.Fatalf("discovery incomplete after 5 s")
	}
}
