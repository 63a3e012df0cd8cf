package sim

// checkProxies checks the invariant of the master-following proxy (issue
// 20): at no step do the proxies of two running Sentinels forward to two
// different servers that would both take the writes: each in the master
// role, running, and reachable from the Sentinel whose proxy forwards to
// it (a proxy runs beside its Sentinel, so the Sentinel's network is the
// proxy's): the requests of a connection the proxy opens to it arrive
// (no partition, Block or CutOneWay stops them; a Block of the replies
// alone still lets writes in). A proxy that forwards to a dead, demoted
// or unreachable server loses no write, however stale its address.
func (c *Cluster) checkProxies() {
	for _, name := range c.proxied() {
		var first *Node
		var firstSrv *Server
		for _, n := range c.nodes {
			if n.crashed {
				continue
			}
			rt, ok := n.Core.View().ProxyRoute(name)
			if !ok || !rt.Forwards(n.Now()) {
				continue
			}
			s := c.serverAt(rt.Addr)
			if s == nil || s.crashed || s.Role != RoleMaster || !c.forwards(n.Name, s.Name) {
				continue
			}
			if first == nil {
				first, firstSrv = n, s
			} else if s != firstSrv {
				c.fail("the proxies of %s forward to two masters: %s to %s (%s:%d), %s to %s (%s:%d)", name,
					first.Name, firstSrv.Name, firstSrv.Addr.Host, firstSrv.Addr.Port, n.Name, s.Name, s.Addr.Host, s.Addr.Port)
				return
			}
		}
	}
}

// proxied returns the names of the masters that some Sentinel's proxy
// follows, as its configuration at boot gave them.
func (c *Cluster) proxied() []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range c.nodes {
		for _, m := range n.Disk.Masters {
			if len(m.Proxy) > 0 && !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m.Name)
			}
		}
	}
	return out
}
