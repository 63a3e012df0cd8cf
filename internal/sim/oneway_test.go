package sim

import (
	"testing"
	"time"
)

// TestCutOneWayLinks: a CutOneWay stops the connections its from side
// opens to its to side, and those alone; HealOneWay and Heal lift it.
func TestCutOneWayLinks(t *testing.T) {
	t.Parallel()
	type pair struct{ from, to string }
	for _, tc := range []struct {
		name   string
		cut    func(c *Cluster)
		closed []pair // linkOK false; every other pair of s1, s2, r0, r1 is true
		replUp map[string]bool
	}{
		{"none", func(c *Cluster) {}, nil, map[string]bool{"r1": true, "r2": true}},
		{"sentinel to sentinel", func(c *Cluster) { c.CutOneWay([]string{"s2"}, []string{"s1"}) },
			[]pair{{"s2", "s1"}}, map[string]bool{"r1": true, "r2": true}},
		{"replica to master", func(c *Cluster) { c.CutOneWay([]string{"r1"}, []string{"r0"}) },
			[]pair{{"r1", "r0"}}, map[string]bool{"r1": false, "r2": true}},
		{"master to replica", func(c *Cluster) { c.CutOneWay([]string{"r0"}, []string{"r1"}) },
			[]pair{{"r0", "r1"}}, map[string]bool{"r1": true, "r2": true}},
		{"groups", func(c *Cluster) { c.CutOneWay([]string{"s1", "s2"}, []string{"r0"}) },
			[]pair{{"s1", "r0"}, {"s2", "r0"}}, map[string]bool{"r1": true, "r2": true}},
		{"healed one way", func(c *Cluster) {
			c.CutOneWay([]string{"s1", "s2"}, []string{"r0"})
			c.HealOneWay([]string{"s1"}, []string{"r0"})
		}, []pair{{"s2", "r0"}}, map[string]bool{"r1": true, "r2": true}},
		{"healed", func(c *Cluster) {
			c.CutOneWay([]string{"s2"}, []string{"s1"})
			c.CutOneWay([]string{"r1"}, []string{"r0"})
			c.Heal()
		}, nil, map[string]bool{"r1": true, "r2": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Standard(t, 80, Topology{})
			tc.cut(c)
			closed := map[pair]bool{}
			for _, p := range tc.closed {
				closed[p] = true
			}
			ends := []string{"s1", "s2", "r0", "r1"}
			for _, a := range ends {
				for _, b := range ends {
					if a == b {
						continue
					}
					if got, want := c.linkOK(a, b), !closed[pair{a, b}]; got != want {
						t.Errorf("linkOK(%s, %s) = %v, want %v", a, b, got, want)
					}
					if got, want := c.forwards(a, b), !closed[pair{a, b}]; got != want {
						t.Errorf("forwards(%s, %s) = %v, want %v", a, b, got, want)
					}
				}
			}
			for r, want := range tc.replUp {
				if got := c.replLinkUp(c.Server(r)); got != want {
					t.Errorf("%s's replication link up = %v, want %v", r, got, want)
				}
			}
		})
	}
}

// TestCutOneWaySentinels: with s2's connections to s1 cut, s2's links
// to s1 stall and its new ones are refused, so s2 sees s1 SDOWN, while
// s1 still PINGs s2 and sees it up. HealOneWay delivers what stalled and
// s2 sees s1 again.
func TestCutOneWaySentinels(t *testing.T) {
	t.Parallel()
	c := Standard(t, 81, Topology{DownAfter: downAfter})
	settle(t, c, 2)
	c.Run(20 * time.Second) // every link is now older than 15 s
	s1, s2 := c.Node("s1"), c.Node("s2")
	cut := c.Now()
	c.CutOneWay([]string{"s2"}, []string{"s1"})
	c.Run(2 * time.Second)
	stalled := 0
	for _, cn := range c.conns {
		if cn.from == s2 && cn.toNode == s1 {
			stalled += len(cn.pipes[upstream].q)
		}
		if cn.from == s1 && cn.toNode == s2 && len(cn.pipes[upstream].q)+len(cn.pipes[downstream].q) > 0 && !cn.pipes[upstream].wake && !cn.pipes[downstream].wake {
			c.Fatalf("s1's connection to s2 stalled: %s", cn.label)
		}
	}
	if stalled == 0 {
		c.Fatalf("nothing stalled on s2's connections to s1")
	}
	c.Run(2 * downAfter)
	if !c.HasEvent(cut, "s2", "+sdown", "sentinel "+s1.Core.MyID()) {
		c.Fatalf("s2 does not see s1 SDOWN with its connections to s1 cut")
	}
	if c.HasEvent(cut, "s1", "+sdown", "sentinel "+s2.Core.MyID()) {
		c.Fatalf("s1 sees s2 SDOWN although its own connections to s2 work")
	}
	healed := c.Now()
	c.HealOneWay([]string{"s2"}, []string{"s1"})
	if !c.RunUntil(func() bool { return c.HasEvent(healed, "s2", "-sdown", "sentinel "+s1.Core.MyID()) }, 10*time.Second) {
		c.Fatalf("s2 does not see s1 again after HealOneWay")
	}
}
