package sim

import (
	"sort"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestDiscovery: Sentinels configured only with `monitor m <master> 2`
// find both replicas through the master's INFO and each other through
// hellos within 5 s, show them in SENTINEL REPLICAS/SENTINELS, persist them,
// and restart from the persisted state without announcing them again.
func TestDiscovery(t *testing.T) {
	t.Parallel()
	c := Standard(t, 1, Topology{})
	settle(t, c, 2)
	c.Run(10 * time.Second) // a few hello and INFO rounds

	wantReplicas := []string{"10.0.1.2:6379", "10.0.1.3:6379"}
	ids := map[string]string{} // myid → node name
	for _, n := range c.Nodes() {
		ids[n.Core.MyID()] = n.Name
	}
	for _, n := range c.Nodes() {
		if got := len(c.EventsOf(n.Name, "+slave")); got != 2 {
			c.Fatalf("%s: %d +slave events, want 2", n.Name, got)
		}
		if got := len(c.EventsOf(n.Name, "+sentinel")); got != 2 {
			c.Fatalf("%s: %d +sentinel events, want 2", n.Name, got)
		}
		var names []string
		for _, kv := range replicasOf(t, n) {
			names = append(names, Field(kv, "name"))
			if f := Field(kv, "flags"); f != "slave" {
				c.Fatalf("%s: replica %s flags %q, want slave", n.Name, Field(kv, "name"), f)
			}
			if Field(kv, "master-link-status") != "ok" || Field(kv, "master-host") != "10.0.1.1" {
				c.Fatalf("%s: replica view %v", n.Name, kv)
			}
		}
		if !equal(names, wantReplicas) {
			c.Fatalf("%s: replicas %v, want %v", n.Name, names, wantReplicas)
		}
		sents := sentinelsOf(t, n)
		if len(sents) != 2 {
			c.Fatalf("%s: %d sentinels in view", n.Name, len(sents))
		}
		for _, kv := range sents {
			peer := c.Node(ids[Field(kv, "runid")])
			if peer == nil || peer == n || Field(kv, "ip") != peer.IP || Field(kv, "port") != "26379" {
				c.Fatalf("%s: sentinel view %v", n.Name, kv)
			}
			if f := Field(kv, "flags"); f != "sentinel" {
				c.Fatalf("%s: sentinel %s flags %q", n.Name, peer.Name, f)
			}
		}
		if f := flagsOf(t, n); f != "master" {
			c.Fatalf("%s: master flags %q", n.Name, f)
		}
		if _, err := n.Core.View().CheckQuorum(masterName); err != nil {
			c.Fatalf("%s: CKQUORUM: %v", n.Name, err)
		}

		snap := n.Core.Snapshot()
		spec := snap.Masters[0]
		if len(spec.KnownReplicas) != 2 || len(spec.KnownSentinels) != 2 {
			c.Fatalf("%s: snapshot knows %d replicas and %d sentinels", n.Name, len(spec.KnownReplicas), len(spec.KnownSentinels))
		}
		if !sameSpec(n.Disk.Masters[0], spec) || n.Disk.MyID != n.Core.MyID() {
			c.Fatalf("%s: disk %+v differs from snapshot %+v", n.Name, n.Disk.Masters[0], spec)
		}
	}

	// Restart s1 from its disk: it comes back with the same id, knows
	// everything at once and announces nothing again; the others do not
	// re-announce it either.
	s1 := c.Node("s1")
	id := s1.Core.MyID()
	restart := c.Now()
	c.Restart("s1")
	if s1.Core.MyID() != id {
		c.Fatalf("myid changed across restart: %s → %s", id, s1.Core.MyID())
	}
	if !discovered(s1, 2, 2) {
		c.Fatalf("restarted s1 does not know its replicas and sentinels at once: %+v", s1.Core.View().MasterSummaries())
	}
	c.Run(20 * time.Second)
	for _, typ := range []event.Type{"+slave", "+sentinel", "+sentinel-address-switch", "+sentinel-invalid-addr", "+sdown"} {
		if ev := c.EventsSince(restart, "", typ); len(ev) != 0 {
			c.Fatalf("after restart: unexpected %s events %v", typ, ev)
		}
	}
	if got := len(c.EventsSince(restart, "s1", "+monitor")); got != 1 {
		c.Fatalf("restart: %d +monitor events", got)
	}
	for _, n := range c.Nodes() {
		if !discovered(n, 2, 2) {
			c.Fatalf("%s lost peers after s1's restart: %+v", n.Name, n.Core.View().MasterSummaries())
		}
		for _, kv := range sentinelsOf(t, n) {
			if f := Field(kv, "flags"); f != "sentinel" {
				c.Fatalf("%s: sentinel %s flags %q after restart", n.Name, Field(kv, "runid"), f)
			}
		}
	}
}

func equal(a, b []string) bool {
	sort.Strings(a)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameSpec compares the persisted parts that discovery changes.
func sameSpec(a, b settings.MasterSpec) bool {
	if a.Addr != b.Addr || a.ConfigEpoch != b.ConfigEpoch || len(a.KnownReplicas) != len(b.KnownReplicas) ||
		len(a.KnownSentinels) != len(b.KnownSentinels) {
		return false
	}
	for i := range a.KnownReplicas {
		if a.KnownReplicas[i] != b.KnownReplicas[i] {
			return false
		}
	}
	for i := range a.KnownSentinels {
		if a.KnownSentinels[i] != b.KnownSentinels[i] {
			return false
		}
	}
	return true
}
