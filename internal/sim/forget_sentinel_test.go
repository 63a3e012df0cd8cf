package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
)

// forgetAfter is the forget-sentinel-after of the churn scenarios:
// shorter than down-after, so that a Sentinel cut off with a minority
// has forgotten the others before it sees the master down.
const forgetAfter = 3 * time.Second

// forgetStats counts what a churn scenario exercised.
type forgetStats struct {
	churns, newIDs, partitions int
	minorityTries              int // +try-failover by a Sentinel cut off with a minority
	elected                    int // +elected-leader, any Sentinel
	forgotten                  int // -sentinel, any Sentinel
}

// forgetFleet builds the fleet of a churn scenario: a master r0 with two
// replicas, size Sentinels with quorum 2 (1 for 3 Sentinels: below the
// majority, so that detection never holds a minority back and only the
// majority rule does), voters and forget-sentinel-after.
func forgetFleet(tb TB, seed int64, size, voters int) *Cluster {
	c := New(tb, Options{Seed: seed, ViewCheckEvery: 10, NoTrace: tb == nil})
	m := c.AddServer("r0", ServerAddr(0))
	c.AddReplica("r1", ServerAddr(1), m)
	c.AddReplica("r2", ServerAddr(2), m)
	quorum := 2
	if size < 5 {
		quorum = 1
	}
	for k := 0; k < size; k++ {
		p := MonitorConfig("m", m.Addr, quorum, 5*time.Second)
		p.Masters[0].FailoverTimeoutMs = 20000
		p.Masters[0].Voters = voters
		p.Masters[0].ForgetSentinelAfterMs = forgetAfter.Milliseconds()
		c.AddSentinel(p)
	}
	return c
}

// runForgetChurn churns the Sentinels of a fleet (restarts with a new
// address, a new run id or both) and partitions it, each partition
// longer than forget-sentinel-after, with the master's host on either
// side. With tb the invariants fail the test; without, the first broken
// one is returned. It returns what the run exercised.
func runForgetChurn(tb TB, seed int64, size, voters int) (forgetStats, *Cluster, error) {
	c := forgetFleet(tb, seed, size, voters)
	rnd := c.Rand()
	var st forgetStats
	names := c.NodeNames()
	servers := c.ServerNames()
	c.Run(15 * time.Second)
	for round := 1; round <= 4 && c.Err() == nil; round++ {
		// A pod comes back: a new address, a new run id, or both.
		who := names[rnd.Intn(len(names))]
		ip := ""
		mode := rnd.Intn(3)
		if mode != 2 {
			ip = fmt.Sprintf("10.0.%d.%s", 10+round, strings.TrimPrefix(who, "s"))
		}
		newID := mode != 0
		c.Churn(who, ip, newID)
		st.churns++
		if newID {
			st.newIDs++
		}
		c.Run(time.Duration(3000+rnd.Intn(7000)) * time.Millisecond)

		// A partition longer than forget-sentinel-after: a minority of
		// the Sentinels, with or without the master's host.
		perm := rnd.Perm(len(names))
		cut := 1 + rnd.Intn((len(names)-1)/2)
		var minority, majority []string
		for k, p := range perm {
			if k < cut {
				minority = append(minority, names[p])
			} else {
				majority = append(majority, names[p])
			}
		}
		cutOff := minority // the Sentinels that lose the master
		if rnd.Intn(2) == 0 {
			majority = append(majority, servers...)
		} else {
			cutOff = majority
			minority = append(minority, servers...)
		}
		before := len(c.EventsOf("", event.TryFailover))
		c.Partition(minority, majority)
		st.partitions++
		c.Run(forgetAfter + time.Duration(5000+rnd.Intn(15000))*time.Millisecond)
		if len(cutOff) < len(names)/2+1 {
			for _, e := range c.EventsOf("", event.TryFailover)[before:] {
				for _, n := range cutOff {
					if e.Node == n {
						st.minorityTries++
					}
				}
			}
		}
		c.Heal()
		c.Run(time.Duration(10000+rnd.Intn(10000)) * time.Millisecond)
	}
	st.elected = len(c.EventsOf("", event.ElectedLeader))
	st.forgotten = len(c.EventsOf("", event.SentinelForgotten))
	return st, c, c.Err()
}

// knownTruth checks that every Sentinel of the fleet knows exactly the
// others, by their current run ids: no stale entry is left.
func knownTruth(c *Cluster) error {
	ids := map[string]string{}
	for _, n := range c.Nodes() {
		ids[n.Name] = strings.ToLower(n.Core.MyID())
	}
	for _, n := range c.Nodes() {
		var want, got []string
		for name, id := range ids {
			if name != n.Name {
				want = append(want, id)
			}
		}
		kvs, err := n.Core.View().Sentinels(n.Now(), "m")
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			got = append(got, strings.ToLower(Field(kv, "runid")))
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, ",") != strings.Join(got, ",") {
			return fmt.Errorf("%s knows %v, the others are %v", n.Name, got, want)
		}
	}
	return nil
}

// TestForgetSentinelsUnderPartitions is the safety proof of the voters
// floor (issue 21): fleets of 3 and 5 Sentinels with voters set to their
// real size and a short forget-sentinel-after, whose Sentinels come back
// with new addresses and new run ids while partitions longer than
// forget-sentinel-after split them, never authorise a failover with the
// votes of fewer than a majority of the Sentinels that run (the
// invariant checkMajorityVotes, checked after every step), and every
// Sentinel ends up knowing exactly the others, no stale entry left.
func TestForgetSentinelsUnderPartitions(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for _, size := range []int{3, 5} {
		var total forgetStats
		for seed := int64(1); seed <= int64(seeds); seed++ {
			st, c, err := runForgetChurn(t, seed, size, size)
			if err != nil {
				t.Fatalf("%d Sentinels, seed %d: %v", size, seed, err)
			}
			c.Heal()
			c.Run(60 * time.Second)
			if err := knownTruth(c); err != nil {
				t.Fatalf("%d Sentinels, seed %d, after the churn: %v", size, seed, err)
			}
			total.churns += st.churns
			total.newIDs += st.newIDs
			total.partitions += st.partitions
			total.minorityTries += st.minorityTries
			total.elected += st.elected
			total.forgotten += st.forgotten
		}
		t.Logf("%d Sentinels, voters %d, %d seeds: %d churns (%d new run ids), %d partitions, %d failover tries by a cut-off minority, %d leaders elected, %d entries forgotten; no leader without a real majority, no stale entry left",
			size, size, seeds, total.churns, total.newIDs, total.partitions, total.minorityTries, total.elected, total.forgotten)
		if total.forgotten == 0 || total.newIDs == 0 {
			t.Errorf("%d Sentinels: the scenario forgot %d entries over %d new run ids: it proves nothing", size, total.forgotten, total.newIDs)
		}
	}
}

// TestForgetSentinelsWithoutFloorBreaks is the counterfactual: the same
// churn and partitions with voters 1 (a floor below the real size, which
// counts the majority over the known Sentinels as Redis does, as if
// forgetting had no floor) let a minority cut off from the others forget
// them and elect a leader with its own votes: the invariant fires.
func TestForgetSentinelsWithoutFloorBreaks(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for _, size := range []int{3, 5} {
		broken, first := 0, ""
		for seed := int64(1); seed <= int64(seeds); seed++ {
			_, _, err := runForgetChurn(nil, seed, size, 1)
			if err == nil {
				continue
			}
			if !errors.Is(err, ErrInvariant) {
				t.Fatalf("%d Sentinels, seed %d: %v", size, seed, err)
			}
			if !strings.Contains(err.Error(), "elected leader") {
				t.Fatalf("%d Sentinels, seed %d: another invariant broke: %v", size, seed, err)
			}
			if broken == 0 {
				first = fmt.Sprintf("seed %d: %v", seed, err)
			}
			broken++
		}
		t.Logf("%d Sentinels, voters 1: a minority authorised a failover in %d of %d seeds (first, %s)", size, broken, seeds, first)
		if broken == 0 {
			t.Errorf("%d Sentinels, voters 1: the invariant never fired in %d seeds: the test would not catch a missing floor", size, seeds)
		}
	}
}
