package monitor

// startFailoverIfNeeded starts a failover of an ODOWN master when allowed
// (§8.3). Leader election and failover arrive with the failover issue; until
// then a Sentinel only detects and agrees on failures.
func (s *Sentinel) startFailoverIfNeeded(m *master, now int64) bool { return false }

// failoverStateMachine advances a running failover (§10).
func (s *Sentinel) failoverStateMachine(m *master, now int64) {}

// promotionConfirmed is called when the replica we promoted reports itself
// master (§4.2 step 4).
func (s *Sentinel) promotionConfirmed(m *master, r *instance, now int64) {}

// clientReconfigScript queues the master's client-reconfig-script.
func (s *Sentinel) clientReconfigScript(m *master, role string, from, to Addr) {}
