package sim

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/election"
)

// checkMajorityVotes is the invariant of the voters floor and the
// forgetting of known Sentinels (issue 21): no failover is authorised by
// fewer than a majority of the Sentinels that really run. When n is
// elected leader of epoch of master, the Sentinel nodes that voted for
// n's run id in that epoch (each node counted once, whatever run ids it
// had) must be a majority of the nodes whose configuration monitors the
// master — the real fleet, however many entries any Sentinel knows or
// forgot.
//
// A failover SENTINEL FAILOVER forces is not authorised by votes (the
// Sentinel elects itself, as in Redis: an operator's decision), and is
// not checked; nor is an event that no failover of the node emitted (the
// invariants' own tests inject some).
func (c *Cluster) checkMajorityVotes(n *Node, master string, epoch uint64) {
	if p, ok := n.Core.FailoverProgress(master); !ok || !p.InProgress {
		return
	}
	if kv, err := n.Core.View().Master(n.Now(), master); err != nil || strings.Contains(Field(kv, "flags"), "force_failover") {
		return
	}
	fleet := 0
	for _, o := range c.nodes {
		for _, m := range o.Disk.Masters {
			if m.Name == master {
				fleet++
				break
			}
		}
	}
	me := n.Core.MyID()
	votes := 0
	k := epochKey{master, epoch}
	for _, o := range c.nodes {
		if v, ok := c.inv.votes[o.Name][k]; ok && strings.EqualFold(v, me) {
			votes++
		}
	}
	if need := election.Majority(fleet); votes < need {
		c.fail("%s elected leader of epoch %d of %s with the votes of %d of the %d Sentinels that run (%d needed)",
			n.Name, epoch, master, votes, fleet, need)
	}
}
