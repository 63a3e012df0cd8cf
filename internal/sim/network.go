package sim

import "strings"

// reachable reports whether packets from endpoint a get to endpoint b.
func (c *Cluster) reachable(a, b string) bool { return !c.blocked[[2]string{a, b}] }

// linkOK reports whether a connection that endpoint from opens to
// endpoint to carries packets both ways: no partition or Block between
// them either way, and no CutOneWay of from's connections to to. A new
// connection is established only if linkOK holds when its connect
// completes.
func (c *Cluster) linkOK(from, to string) bool {
	return c.reachable(from, to) && c.reachable(to, from) && !c.cut[[2]string{from, to}]
}

// forwards reports whether packets sent from endpoint from on a
// connection it opened to endpoint to arrive: the request half of such a
// connection is open.
func (c *Cluster) forwards(from, to string) bool {
	return c.reachable(from, to) && !c.cut[[2]string{from, to}]
}

// eachPair calls fn for every endpoint a of from and b of to, after
// checking that both are known.
func (c *Cluster) eachPair(from, to []string, fn func(a, b string)) {
	for _, a := range from {
		c.mustKnow(a)
		for _, b := range to {
			c.mustKnow(b)
			fn(a, b)
		}
	}
}

// Partition cuts the network between every endpoint (node or server name)
// of groupA and every endpoint of groupB, both ways. Established
// connections across the cut stall (nothing is lost: what is sent waits
// until Heal, as TCP retransmits), new connections across it are refused.
// Replication links across it go down.
func (c *Cluster) Partition(groupA, groupB []string) {
	c.eachPair(groupA, groupB, func(a, b string) {
		c.blocked[[2]string{a, b}] = true
		c.blocked[[2]string{b, a}] = true
	})
	c.tracef("--", "partition [%s] | [%s]", strings.Join(groupA, " "), strings.Join(groupB, " "))
}

// Block cuts the network one way at the packet level: packets from every
// endpoint of from to every endpoint of to stall, on every connection,
// while the packets of the other direction keep flowing, and no new
// connection between them is established either way (a handshake needs
// both directions). Real TCP does not keep the other direction flowing
// for long: its sender gets no acknowledgements and stops after one
// retransmission timeout (a fraction of a second), so for TCP a
// stateless `iptables -A INPUT -s A -j DROP` on B is, after that
// timeout, a Partition of A and B; Block is the idealised packet cut, for
// scenarios that want it. CutOneWay is the one-way cut TCP connections
// see for good.
func (c *Cluster) Block(from, to []string) {
	c.eachPair(from, to, func(a, b string) { c.blocked[[2]string{a, b}] = true })
	c.tracef("--", "block [%s] -> [%s]", strings.Join(from, " "), strings.Join(to, " "))
}

// CutOneWay cuts, for every endpoint A of from and B of to, the
// connections A opens to B, and only those: A no longer reaches B, while
// B still reaches A. It models a firewall on B that drops every packet A
// sends to B's listening port (`iptables -A INPUT -s A -p tcp --dport
// <B's port> -j DROP`, B's Redis or Sentinel port): a connection A opens
// to B cannot be established, and one A opened before the cut stalls
// both ways (A's requests and acknowledgements are dropped, so B's
// replies stop after one retransmission timeout; here at once), while
// the connections B opens to A, whose packets from A come from A's
// listening port to B's ephemeral one, carry everything both ways. So
// CutOneWay("s2", "s1") stops s2's PINGs, hellos and vote requests to s1
// while s1 still PINGs s2, asks it for votes and gets its answers; and
// CutOneWay("r1", "r0") takes replica r1's replication link from r0 down
// (a replica opens it), while CutOneWay("r0", "s1") changes nothing (a
// server opens no connection to a Sentinel).
//
// What it does not model: a dropped SYN makes a real connect hang until
// its timeout (or a REJECT rule refuses it at once); here, as across a
// Partition, the connect fails "No route to host" when it would have
// completed. A stalled connection never times out in the kernel (real
// TCP gives up after tcp_retries2, about 15 minutes); the cores close
// stale links themselves long before. A stateless rule on every port of
// B (`iptables -A INPUT -s A -j DROP`) also breaks the connections B
// opens to A, after one retransmission timeout: that is CutOneWay both
// ways, a Partition, and Block models the packets alone.
func (c *Cluster) CutOneWay(from, to []string) {
	c.eachPair(from, to, func(a, b string) {
		if a != b {
			c.cut[[2]string{a, b}] = true
		}
	})
	c.tracef("--", "cut-oneway [%s] -> [%s]", strings.Join(from, " "), strings.Join(to, " "))
}

// HealOneWay removes the CutOneWay of the connections every endpoint of
// from opens to every endpoint of to (and nothing else: partitions and
// Blocks stay); their stalled connections deliver what they held, in
// order.
func (c *Cluster) HealOneWay(from, to []string) {
	c.eachPair(from, to, func(a, b string) { delete(c.cut, [2]string{a, b}) })
	c.tracef("--", "heal-oneway [%s] -> [%s]", strings.Join(from, " "), strings.Join(to, " "))
	c.wakeStalled()
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

// Heal removes every partition, block and one-way cut; stalled
// connections deliver what they held, in order.
func (c *Cluster) Heal() {
	c.blocked = map[[2]string]bool{}
	c.cut = map[[2]string]bool{}
	c.tracef("--", "heal")
	c.wakeStalled()
}

// wakeStalled schedules the delivery of every pipe that holds packets
// and has no wake-up scheduled; a pipe whose path is still cut stalls
// again when it runs.
func (c *Cluster) wakeStalled() {
	for _, cn := range c.conns {
		for d := range cn.pipes {
			if len(cn.pipes[d].q) > 0 && !cn.pipes[d].wake {
				c.wakePipe(cn, direction(d), c.now.Add(c.latency()))
			}
		}
	}
	c.healClients()
}
