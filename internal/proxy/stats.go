package proxy

import "sync/atomic"

// counters are the Server's running totals.
type counters struct {
	accepted    atomic.Int64
	refused     atomic.Int64 // beyond MaxClients or by protected mode
	held        atomic.Int64 // waited for an unfenced route
	holdExpired atomic.Int64 // closed after waiting the hold out
	cut         atomic.Int64 // closed when their master changed or fenced
	toMaster    atomic.Int64 // bytes
	toClient    atomic.Int64 // bytes
}

// Stats is a snapshot of a Server's counters.
type Stats struct {
	// Open is the number of client connections open now.
	Open int
	// Accepted counts client connections accepted; Refused those closed
	// at once (MaxClients, protected mode); Held those that waited for
	// an unfenced route, HoldExpired those closed after waiting the hold
	// out; Cut those closed when their master changed or fenced.
	Accepted, Refused, Held, HoldExpired, Cut int64
	// BytesToMaster and BytesToClient count the bytes forwarded each way
	// by connections that ended.
	BytesToMaster, BytesToClient int64
}

// Stats returns the counters now.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	open := len(s.conns)
	s.mu.Unlock()
	return Stats{
		Open:          open,
		Accepted:      s.stats.accepted.Load(),
		Refused:       s.stats.refused.Load(),
		Held:          s.stats.held.Load(),
		HoldExpired:   s.stats.holdExpired.Load(),
		Cut:           s.stats.cut.Load(),
		BytesToMaster: s.stats.toMaster.Load(),
		BytesToClient: s.stats.toClient.Load(),
	}
}
