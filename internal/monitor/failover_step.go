package monitor

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// failoverStep is one step of the failover of m at now (§10.1): the
// handlers of the states a tick advances. It lives for one call of run;
// s is the Sentinel the failover belongs to, whose events, epoch, vote
// and links the handlers use. m.failoverRun is the run it advances.
type failoverStep struct {
	s   *Sentinel
	m   *master
	now int64
}

// run advances a running failover one step. update_config is not handled
// here: the switch to the promoted replica happens at the end of the tick
// (switchDue, switchMaster), as Redis defers it out of its loop over the
// masters.
func (f failoverStep) run() {
	if !f.m.has(object.FailoverInProgress) {
		return
	}
	switch f.m.failoverState {
	case failover.WaitStart:
		f.waitStart()
	case failover.SelectSlave:
		f.selectSlave()
	case failover.SendSlaveofNoone:
		f.sendSlaveofNoone()
	case failover.WaitPromotion:
		if f.expired() || f.m.pauseLapsed(f.now) {
			f.s.abortFailover(f.m, f.now, event.AbortSlaveTimeout, "")
		}
	case failover.ReconfSlaves:
		f.reconfNextSlave()
	}
}

// expired reports whether the failover has passed its state's deadline.
func (f failoverStep) expired() bool {
	return f.m.expired(f.now, f.s.timing.ElectionTimeoutMs)
}

// waitStart counts the votes: elected, or forced, it goes on to
// select_slave; otherwise it gives up once the election timed out.
func (f failoverStep) waitStart() {
	s, m, now := f.s, f.m, f.now
	winner := s.leader(m, now)
	isLeader := winner != "" && strings.EqualFold(winner, s.myID)
	if !isLeader && !m.has(object.ForceFailover) {
		if f.expired() {
			s.abortFailover(m, now, event.AbortNotElected, "")
		}
		return
	}
	s.event(event.LevelWarning, event.ElectedLeader, &m.instance, "")
	s.enter(m, failover.SelectSlave, now, "")
}

// selectSlave chooses the replica to promote, or gives up.
func (f failoverStep) selectSlave() {
	s, m, now := f.s, f.m, f.now
	r := m.selectReplica(now, &s.timing)
	if r == nil {
		s.abortFailover(m, now, event.AbortNoGoodSlave, "")
		return
	}
	s.event(event.LevelWarning, event.SelectedSlave, r, "")
	r.flags |= object.Promoted
	m.promoted = r
	s.enter(m, failover.SendSlaveofNoone, now, r.name)
}

// sendSlaveofNoone sends SLAVEOF NO ONE to the chosen replica once it can
// be reached, or gives up when that took too long.
func (f failoverStep) sendSlaveofNoone() {
	s, m, now := f.s, f.m, f.now
	if m.has(object.CoordFailover) {
		f.handOver()
		return
	}
	r := m.promoted
	if r.link.disconnected(r.kind) {
		if f.expired() {
			s.abortFailover(m, now, event.AbortSlaveTimeout, "")
		}
		return
	}
	m.pauseWrites(&s.links, now)
	if !s.sendSlaveOf(r, nil) {
		return
	}
	s.enter(m, failover.WaitPromotion, now, "")
}

// reconfNextSlave points up to parallel-syncs replicas at a time to the
// promoted one (§10.3), then checks for the end (§10.4).
func (f failoverStep) reconfNextSlave() {
	s, m, now := f.s, f.m, f.now
	plan := failover.PlanReconf(m.reconfReplicas(now), m.settings.ParallelSyncs, s.timing.SlaveReconfTimeoutMs)
	for _, a := range plan {
		r := m.replicas[a.ID]
		if a.TimedOut {
			s.event(event.LevelNotice, event.SlaveReconfSentTimeout, r, "")
			r.flags &^= object.ReconfSent
			r.flags |= object.ReconfDone
		}
		if a.Send && s.sendSlaveOf(r, &m.promoted.addr) {
			r.flags |= object.ReconfSent
			r.slaveReconfSentTime = now
			s.event(event.LevelNotice, event.SlaveReconfSent, r, "")
		}
	}
	f.detectEnd()
}

// detectEnd ends reconf_slaves when every replica was reconfigured, or
// when it timed out (then the replicas left get SLAVEOF once more, best
// effort).
func (f failoverStep) detectEnd() {
	s, m, now := f.s, f.m, f.now
	p := m.promoted
	end, again := failover.PlanEnd(m.reconfReplicas(now), p == nil || p.has(object.SDown), f.expired())
	if end == failover.NotYet {
		return
	}
	if end == failover.EndedForTimeout {
		s.event(event.LevelWarning, event.FailoverEndForTimeout, &m.instance, "")
	}
	s.enter(m, failover.UpdateConfig, now, "")
	for _, id := range again {
		r := m.replicas[id]
		if s.sendSlaveOf(r, &p.addr) {
			s.event(event.LevelNotice, event.SlaveReconfSentBE, r, "")
			r.flags |= object.ReconfSent
		}
	}
}
