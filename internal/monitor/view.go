package monitor

// MasterStatus is a master's health as INFO sentinel reports it.
type MasterStatus string

// The statuses of INFO sentinel's masterN lines.
const (
	StatusOK    MasterStatus = "ok"
	StatusSDown MasterStatus = "sdown"
	StatusODown MasterStatus = "odown"
)

// MasterSummary is the per-master line of INFO sentinel.
type MasterSummary struct {
	Name string
	Addr Addr
	// Status is odown if the master is ODOWN, else sdown if SDOWN, else ok.
	Status       MasterStatus
	NumReplicas  int
	NumSentinels int // known other Sentinels, not counting this one
}

// MasterSummaries returns one summary per master in name order.
func (s *Sentinel) MasterSummaries() []MasterSummary {
	out := make([]MasterSummary, 0, len(s.names))
	for _, name := range s.names {
		m := s.masters[name]
		out = append(out, MasterSummary{
			Name:   name,
			Addr:   m.spec.Addr,
			Status: StatusOK,
		})
	}
	return out
}

// MasterNames returns the monitored masters' names in order.
func (s *Sentinel) MasterNames() []string {
	return append([]string(nil), s.names...)
}
