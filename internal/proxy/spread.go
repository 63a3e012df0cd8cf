package proxy

// open reports whether rt forwards: not fenced, and somewhere to go.
func (rt Route) open() bool {
	return !rt.Fenced && (rt.Addr != "" || len(rt.Addrs) > 0)
}

// serves reports whether a connection to target may stay open on rt.
func (rt Route) serves(target string) bool {
	if len(rt.Addrs) == 0 {
		return rt.Addr == target
	}
	for _, a := range rt.Addrs {
		if a == target {
			return true
		}
	}
	return false
}

// pick chooses where j goes on rt: Addr, or among Addrs the one with the
// fewest of j's master's connections open or being dialled, ties taken
// in turn (least connections; with connections that all last as long,
// it is round robin).
func (s *Server) pick(j *joined, rt Route) string {
	if len(rt.Addrs) == 0 {
		return rt.Addr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	open := make(map[string]int, len(rt.Addrs))
	for o := range s.conns {
		if o.master != j.master || o.dead.Load() {
			continue
		}
		if o.target != "" {
			open[o.target]++
		} else if o.picked != "" {
			open[o.picked]++
		}
	}
	s.turn++
	best := ""
	for k := range rt.Addrs {
		a := rt.Addrs[(k+s.turn)%len(rt.Addrs)]
		if best == "" || open[a] < open[best] {
			best = a
		}
	}
	j.picked = best
	return best
}
