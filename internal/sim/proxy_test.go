package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// proxyCluster is Standard's fleet with a master-following proxy on every
// Sentinel (fence-after at its default, 2 s; down-after 5 s).
func proxyCluster(tb TB, seed int64) *Cluster {
	c := New(tb, Options{Seed: seed})
	m := c.AddServer("r0", ServerAddr(0))
	for k := 1; k <= 2; k++ {
		c.AddReplica(fmt.Sprintf("r%d", k), ServerAddr(k), m)
	}
	for range 3 {
		p := MonitorConfig("m", m.Addr, 2, 5*time.Second)
		p.Masters[0].Proxy = []monitor.Addr{{Host: "127.0.0.1", Port: 6380}}
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
		if rt, ok := n.Core.View().ProxyRoute("m"); ok && !rt.Fenced {
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

// TestProxyAsymmetricWindow measures the window the README names: the
// master is cut off from two Sentinels only, the third still reaches it,
// sees it healthy and keeps forwarding to it while the two fail over. The
// window ends when that Sentinel adopts the new configuration from a
// peer's hello; it must stay within a hello period and its jitter.
func TestProxyAsymmetricWindow(t *testing.T) {
	t.Parallel()
	var longest time.Duration
	seen := 0
	for seed := int64(1); seed <= 20; seed++ {
		c := proxyCluster(t, seed)
		settle(t, c, 2)
		c.Run(10 * time.Second)
		c.Partition([]string{"r0"}, []string{"s2", "s3"})
		var start, end time.Time
		watch := func() bool {
			f := forwarding(c)
			addrs := map[string]bool{}
			for _, a := range f {
				addrs[a] = true
			}
			switch {
			case len(addrs) > 1 && start.IsZero():
				start = c.Now()
			case len(addrs) <= 1 && !start.IsZero() && end.IsZero():
				end = c.Now()
			}
			return false
		}
		c.RunUntil(watch, 40*time.Second)
		if start.IsZero() {
			continue
		}
		if end.IsZero() {
			c.Fatalf("seed %d: two masters forwarded from +%v on, and still at the end", seed, start)
		}
		seen++
		longest = max(longest, end.Sub(start))
	}
	t.Logf("two masters forwarded in %d of 20 seeds, for at most %v", seen, longest)
	if longest > 3*time.Second {
		t.Errorf("the window lasted %v, more than a hello period and its jitter", longest)
	}
}
