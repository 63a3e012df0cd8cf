package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// proxyCluster is Standard's fleet with a master-following proxy on every
// Sentinel (fence-after at its default, 2 s; down-after 5 s).
func proxyCluster(tb TB, seed int64) *Cluster {
	return proxyClusterWith(tb, seed, false)
}

// proxyClusterWith is proxyCluster, with proxy-fencing no when noFencing.
func proxyClusterWith(tb TB, seed int64, noFencing bool) *Cluster {
	c := New(tb, Options{Seed: seed})
	m := c.AddServer("r0", ServerAddr(0))
	for k := 1; k <= 2; k++ {
		c.AddReplica(fmt.Sprintf("r%d", k), ServerAddr(k), m)
	}
	for range 3 {
		p := MonitorConfig("m", m.Addr, 2, 5*time.Second)
		p.Masters[0].Proxy = []settings.Addr{{Host: "127.0.0.1", Port: 6380}}
		p.Masters[0].ProxyNoFencing = noFencing
		c.AddSentinel(p)
	}
	return c
}

// forwarding returns the master address each Sentinel's proxy forwards
// to now, by Sentinel ("" while fenced or crashed).
func forwarding(c *Cluster) map[string]string {
	out := map[string]string{}
	for _, n := range c.Nodes() {
		if n.Crashed() {
			continue
		}
		if rt, ok := n.Core.View().ProxyRoute("m"); ok && rt.Forwards(n.Now()) {
			out[n.Name] = rt.Addr.Host
		}
	}
	return out
}

// twoMasters reports the first moment the proxies forward to two
// addresses.
type twoMasters struct {
	at    time.Time
	where map[string]string
}

func (w *twoMasters) check(c *Cluster) func() bool {
	return func() bool {
		f := forwarding(c)
		seen := map[string]bool{}
		for _, a := range f {
			seen[a] = true
		}
		if len(seen) > 1 && w.at.IsZero() {
			w.at, w.where = c.Now(), f
		}
		return false
	}
}

// TestProxyFencesTheCutOffSide: the master's host and one Sentinel are cut
// off from the two other Sentinels and the replicas. The isolated
// Sentinel's proxy fences within fence-after, before the others can even
// see the master down; they fail over and their proxies forward to the
// promoted replica; at no step during the partition do two proxies
// forward to two masters. After the heal every proxy forwards to the new
// master; the heal window (README) is measured, not asserted.
func TestProxyFencesTheCutOffSide(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 20; seed++ {
		c := proxyCluster(t, seed)
		settle(t, c, 2)
		c.Run(10 * time.Second)
		if f := forwarding(c); len(f) != 3 {
			c.Fatalf("seed %d: proxies forwarding before the cut: %v", seed, f)
		}
		cut := c.Now()
		c.Partition([]string{"s1", "r0"}, []string{"s2", "s3", "r1", "r2"})
		var w twoMasters
		fenced := func() bool { _, ok := forwarding(c)["s1"]; return !ok }
		if !c.RunUntil(fenced, 5*time.Second) {
			c.Fatalf("seed %d: the cut-off Sentinel's proxy never fenced", seed)
		}
		if d := c.Now().Sub(cut); d > 2500*time.Millisecond {
			c.Fatalf("seed %d: fenced %v after the cut, fence-after is 2 s", seed, d)
		}
		c.RunUntil(w.check(c), 30*time.Second)
		if !w.at.IsZero() {
			c.Fatalf("seed %d: two masters forwarded %v after the cut: %v", seed, w.at.Sub(cut), w.where)
		}
		f := forwarding(c)
		if len(f) != 2 || f["s2"] == ServerAddr(0).Host || f["s2"] != f["s3"] {
			c.Fatalf("seed %d: after the failover the majority's proxies forward to %v", seed, f)
		}
		healed := c.Now()
		c.Heal()
		var hw twoMasters
		c.RunUntil(hw.check(c), 30*time.Second)
		f = forwarding(c)
		if len(f) != 3 || f["s1"] != f["s2"] {
			c.Fatalf("seed %d: after the heal the proxies forward to %v", seed, f)
		}
		if !hw.at.IsZero() {
			t.Logf("seed %d: after the heal, two masters forwarded at +%v: %v", seed, hw.at.Sub(healed), hw.where)
		}
	}
}

// TestProxyAsymmetricPartition: the master is cut off from two Sentinels
// only; the third still reaches it and sees it healthy, with a majority
// of its peers answering, while the two fail it over. That Sentinel's
// proxy fences when the candidate asks for its vote, before the
// candidate promotes: at no step do two proxies forward to two masters,
// and at the end every proxy forwards to the promoted replica.
func TestProxyAsymmetricPartition(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 40; seed++ {
		c := proxyCluster(t, seed)
		settle(t, c, 2)
		c.Run(10 * time.Second)
		c.Partition([]string{"r0"}, []string{"s2", "s3"})
		var w twoMasters
		c.RunUntil(w.check(c), 40*time.Second)
		if !w.at.IsZero() {
			c.Fatalf("seed %d: two masters forwarded at +%v: %v", seed, w.at.Sub(c.start), w.where)
		}
		f := forwarding(c)
		if len(f) != 3 || f["s1"] != f["s2"] || f["s2"] != f["s3"] || f["s1"] == "10.0.1.1" {
			c.Fatalf("seed %d: at the end the proxies forward to %v", seed, f)
		}
	}
}

// TestProxyInvariantCatchesNoFencing: with proxy-fencing no (the majority
// and vote rules off), the asymmetric partition of
// TestProxyAsymmetricPartition leaves the Sentinel that still reaches the
// old master forwarding to it after the others promoted a replica; the
// campaign's proxy invariant must report it.
func TestProxyInvariantCatchesNoFencing(t *testing.T) {
	t.Parallel()
	c := proxyClusterWith(nil, 1, true)
	settle(t, c, 2)
	c.Run(10 * time.Second)
	c.Partition([]string{"r0"}, []string{"s2", "s3"})
	c.RunUntil(func() bool { return c.Err() != nil }, 40*time.Second)
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "forward to two masters") {
		t.Fatalf("want the proxy invariant broken, got %v", err)
	}
}
