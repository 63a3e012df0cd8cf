package proxy

import (
	"slices"
	"sync/atomic"
	"time"
)

// counters are one master's running totals.
type counters struct {
	accepted    atomic.Int64
	refused     atomic.Int64 // beyond MaxClients or by protected mode
	held        atomic.Int64 // waited for an unfenced route
	holdExpired atomic.Int64 // closed after waiting the hold out
	cut         atomic.Int64 // closed when their master changed or fenced
	toMaster    atomic.Int64 // bytes
	toClient    atomic.Int64 // bytes

	// fenced is the route's state at the last check, fencedNanos the
	// time spent fenced, summed at each check (lastCheck, under the
	// Server's mu).
	fenced      atomic.Bool
	fencedNanos atomic.Int64
	lastCheck   time.Time
}

// Stats is a snapshot of one master's proxy figures.
type Stats struct {
	Master string
	// Open is the number of its client connections open now;
	// OpenByTarget those joined, by the address they forward to.
	Open         int
	OpenByTarget map[string]int
	// Accepted counts client connections accepted; Refused those closed
	// at once (MaxClients, protected mode); Held those that waited for
	// an unfenced route, HoldExpired those closed after waiting the hold
	// out; Cut those closed when their master changed or fenced.
	Accepted, Refused, Held, HoldExpired, Cut int64
	// BytesToMaster and BytesToClient count the bytes forwarded each way
	// (those of a connection still open: up to its last copy).
	BytesToMaster, BytesToClient int64
	// Fenced is the state at the last check (every Config.Poll), Fenced
	// the time spent fenced while listening.
	Fenced     bool
	FencedTime time.Duration
}

// Stats returns the figures of every master that had a proxy, by name.
func (s *Server) Stats() []Stats {
	s.mu.Lock()
	open := make(map[string]int)
	byTarget := make(map[string]map[string]int)
	for j := range s.conns {
		open[j.master]++
		if j.target != "" && !j.dead.Load() {
			if byTarget[j.master] == nil {
				byTarget[j.master] = make(map[string]int)
			}
			byTarget[j.master][j.target]++
		}
	}
	names := make([]string, 0, len(s.stats))
	for m := range s.stats {
		names = append(names, m)
	}
	slices.Sort(names)
	out := make([]Stats, 0, len(names))
	for _, m := range names {
		c := s.stats[m]
		out = append(out, Stats{
			Master:        m,
			Open:          open[m],
			OpenByTarget:  byTarget[m],
			Accepted:      c.accepted.Load(),
			Refused:       c.refused.Load(),
			Held:          c.held.Load(),
			HoldExpired:   c.holdExpired.Load(),
			Cut:           c.cut.Load(),
			BytesToMaster: c.toMaster.Load(),
			BytesToClient: c.toClient.Load(),
			Fenced:        c.fenced.Load(),
			FencedTime:    time.Duration(c.fencedNanos.Load()),
		})
	}
	s.mu.Unlock()
	return out
}

// MasterStats returns master's figures (zero when it never had a proxy).
func (s *Server) MasterStats(master string) Stats {
	for _, st := range s.Stats() {
		if st.Master == master {
			return st
		}
	}
	return Stats{Master: master}
}
