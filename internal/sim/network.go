package sim

import "strings"

// reachable reports whether packets from endpoint a get to endpoint b.
func (c *Cluster) reachable(a, b string) bool { return !c.blocked[[2]string{a, b}] }

// Partition cuts the network between every endpoint (node or server name)
// of groupA and every endpoint of groupB, both ways. Established
// connections across the cut stall (nothing is lost: what is sent waits
// until Heal, as TCP retransmits), new connections across it are refused.
// Replication links across it go down.
func (c *Cluster) Partition(groupA, groupB []string) {
	for _, a := range groupA {
		c.mustKnow(a)
		for _, b := range groupB {
			c.mustKnow(b)
			c.blocked[[2]string{a, b}] = true
			c.blocked[[2]string{b, a}] = true
		}
	}
	c.tracef("--", "partition [%s] | [%s]", strings.Join(groupA, " "), strings.Join(groupB, " "))
}

// Block cuts the network one way only: packets from every endpoint of
// from to every endpoint of to stall.
func (c *Cluster) Block(from, to []string) {
	for _, a := range from {
		c.mustKnow(a)
		for _, b := range to {
			c.mustKnow(b)
			c.blocked[[2]string{a, b}] = true
		}
	}
	c.tracef("--", "block [%s] -> [%s]", strings.Join(from, " "), strings.Join(to, " "))
}

// Isolate partitions one endpoint from every other (Sentinel nodes,
// servers and Clients).
func (c *Cluster) Isolate(name string) {
	var rest []string
	for _, n := range c.nodes {
		if n.Name != name {
			rest = append(rest, n.Name)
		}
	}
	for _, s := range c.servers {
		if s.Name != name {
			rest = append(rest, s.Name)
		}
	}
	for _, cl := range c.clients {
		if cl.Name != name {
			rest = append(rest, cl.Name)
		}
	}
	c.Partition([]string{name}, rest)
}

// Heal removes every partition and block; stalled connections deliver what
// they held, in order.
func (c *Cluster) Heal() {
	c.blocked = map[[2]string]bool{}
	c.tracef("--", "heal")
	for _, cn := range c.conns {
		for d := range cn.pipes {
			if len(cn.pipes[d].q) > 0 && !cn.pipes[d].wake {
				c.wakePipe(cn, direction(d), c.now.Add(c.latency()))
			}
		}
	}
	c.healClients()
}
