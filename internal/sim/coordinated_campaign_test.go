package sim

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// coordinatedChaos runs, on a standard fleet with a writer and replicas
// up to 50 ms behind, rounds of SENTINEL FAILOVER ... COORDINATED sent to
// a random Sentinel, with faults that touch only the Sentinels between
// and during them (one Sentinel cut off from the others or crashed and
// restarted, clock jumps). The invariant: whenever a coordinated
// failover completed (every Sentinel names one new master and the
// servers agree), no write the writer had acknowledged is missing from
// it. It returns the number of completed failovers.
func coordinatedChaos(t TB, seed int64, rounds int) int {
	c := StandardWith(t, Options{Seed: seed, NoTrace: true}, Topology{DownAfter: downAfter})
	rnd := c.Rand()
	for _, s := range c.Servers()[1:] {
		s.ReplLag = time.Duration(rnd.Intn(50)) * time.Millisecond
	}
	settle(t, c, 2)
	nodes := c.NodeNames()
	w := c.AddWriter("w", WriterOptions{Sentinel: nodes[rnd.Intn(len(nodes))]})
	c.Run(time.Second)
	completed := 0
	for k := 0; k < rounds && c.Err() == nil; k++ {
		old := c.Master()
		switch f := rnd.Intn(4); f {
		case 0:
			cut := nodes[rnd.Intn(len(nodes))]
			var rest []string
			for _, n := range nodes {
				if n != cut {
					rest = append(rest, n)
				}
			}
			c.Partition([]string{cut}, rest)
		case 1:
			c.Crash(nodes[rnd.Intn(len(nodes))])
		case 2:
			c.ClockJump(nodes[rnd.Intn(len(nodes))], time.Duration(rnd.Intn(3000)-1000)*time.Millisecond)
		}
		by := nodes[rnd.Intn(len(nodes))]
		if n := c.Node(by); n != nil && !n.Crashed() {
			_, _ = c.Command(by, msg.Failover{Name: masterName, Coordinated: true})
		}
		c.Run(time.Duration(rnd.Intn(2000)) * time.Millisecond)
		c.Heal()
		for _, n := range c.Nodes() {
			if n.Crashed() {
				c.Restart(n.Name)
			}
		}
		moved := func() bool { m := c.Master(); return m != nil && agreement(c) == nil && converged(c) }
		if !c.RunUntil(moved, 2*time.Minute) {
			c.Fatalf("round %d: the fleet did not converge: %v", k, agreement(c))
			break
		}
		if c.Master() != old {
			completed++
		}
		if err := c.CheckNoLostWrites(w); err != nil {
			c.Fatalf("round %d (from %s to %s): %v", k, old.Name, c.Master().Name, err)
		}
		c.Run(3 * time.Second) // a Sentinel just restarted learns the new config
	}
	return completed
}

// TestCoordinatedCampaign runs coordinatedChaos for COORD_SEEDS seeds
// (20 by default), 5 rounds each.
func TestCoordinatedCampaign(t *testing.T) {
	seeds := 20
	if n, err := strconv.Atoi(os.Getenv("COORD_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	start := time.Now()
	total := 0
	for seed := int64(1); seed <= int64(seeds); seed++ {
		total += coordinatedChaos(t, 5000+seed, 5)
	}
	t.Logf("%d seeds, %d coordinated failovers completed under Sentinel faults, no acknowledged write lost (%v)", seeds, total, time.Since(start).Round(time.Millisecond))
}
