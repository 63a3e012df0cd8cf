package monitor

import (
	"errors"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Errors of SENTINEL FAILOVER; the RESP layer spells them as Redis and
// Valkey do (-INPROG, -NOGOODSLAVE, -NOGOODPRIMARY).
var (
	ErrFailoverInProgress = errors.New("failover already in progress")
	ErrNoGoodReplica      = failover.ErrNoGoodReplica
	// ErrNoGoodPrimary: a coordinated failover needs a master that runs
	// FAILOVER (Redis 6.2 or later: its INFO shows master_failover_state).
	ErrNoGoodPrimary = errors.New("primary does not support FAILOVER command")
)

// startFailover enters wait_start with a new epoch; the self-vote of the
// next election step persists it.
func (s *Sentinel) startFailover(m *master, now int64) {
	m.flags |= object.FailoverInProgress
	s.newEpoch(m, s.currentEpoch+1, false)
	m.failoverEpoch = s.currentEpoch
	m.failoverStartTime = now + int64(s.rnd.Intn(1000))
	m.beginTimeline(true)
	s.enter(m, failover.WaitStart, now, "epoch "+strconv.FormatUint(m.failoverEpoch, 10))
}

// forceFailover starts the failover SENTINEL FAILOVER asks for
// (Failover), checking as Valkey 9 does: the master exists, for the
// coordinated form it runs FAILOVER, no failover runs, a replica can be
// promoted. The plain form is forced (no votes); the coordinated form
// asks every peer for its vote at once and must win the election.
func (s *Sentinel) forceFailover(now int64, in msg.Failover) error {
	m, err := s.master(in.Name)
	if err != nil {
		return err
	}
	if in.Coordinated && m.failoverReported == "" {
		return ErrNoGoodPrimary
	}
	if m.has(object.FailoverInProgress) {
		return ErrFailoverInProgress
	}
	if m.selectReplica(now, &s.timing) == nil {
		return ErrNoGoodReplica
	}
	s.out.log(event.LevelWarning, "Executing user requested FAILOVER of '"+m.name+"'")
	s.startFailover(m, now)
	// The new epoch is on disk before the reply, not only with the next
	// tick's self-vote: a crash in between would take the epoch back
	// (Redis flushes it only with the vote).
	s.out.persist("failover")
	if in.Coordinated {
		m.flags |= object.CoordFailover
		m.timeline.Coordinated = true
		s.askOthers(m, now, true)
	} else {
		m.flags |= object.ForceFailover
	}
	return nil
}

// stateEntry is what entering a failover state does besides setting it:
// the timeline phase it marks, the SIMULATE-FAILURE crash it triggers,
// and the event announcing it, about the master or about the promoted
// replica, as Redis emits them.
type stateEntry struct {
	phase         event.Phase
	crash         failover.SimFailure
	event         event.Type
	level         event.Level
	aboutPromoted bool
}

// stateEntries lists, for every state but None, what enter does.
var stateEntries = [...]stateEntry{
	failover.WaitStart:        {phase: event.PhaseStart, event: event.TryFailover, level: event.LevelWarning},
	failover.SelectSlave:      {phase: event.PhaseElected, crash: failover.SimCrashAfterElection, event: event.StateSelectSlave, level: event.LevelWarning},
	failover.SendSlaveofNoone: {phase: event.PhaseSelected, event: event.StateSendSlaveofNoone, level: event.LevelNotice, aboutPromoted: true},
	failover.WaitPromotion:    {event: event.StateWaitPromotion, level: event.LevelNotice, aboutPromoted: true},
	failover.ReconfSlaves:     {phase: event.PhasePromoted, crash: failover.SimCrashAfterPromotion, event: event.StateReconfSlaves, level: event.LevelWarning},
	failover.UpdateConfig:     {phase: event.PhaseEnd, event: event.FailoverEnd, level: event.LevelWarning},
}

// enter is the one way a failover moves to another state (abort and
// reset aside, which end it): it sets the state and its change time,
// marks the timeline phase (with note), crashes here if SIMULATE-FAILURE
// asks for it, and emits the state's event. It reports false when the
// core crashed: the caller then does nothing more.
func (s *Sentinel) enter(m *master, st failover.State, now int64, note string) bool {
	e := stateEntries[st]
	m.failoverState = st
	m.failoverStateChangeTime = now
	if e.phase != "" {
		m.mark(e.phase, now, note)
	}
	if e.crash != 0 && s.simFailure&e.crash != 0 {
		s.out.crash()
		return false
	}
	about := &m.instance
	if e.aboutPromoted {
		about = m.promoted
	}
	s.event(e.level, e.event, about, "")
	return true
}

// timeouts are the limits m's failover runs under, with an election
// timeout of election ms.
func (m *master) timeouts(election int64) failover.Timeouts {
	return failover.Timeouts{Failover: m.settings.FailoverTimeoutMs, Election: election,
		Coordinated: m.has(object.CoordFailover)}
}

// expired reports whether m's failover has passed its state's deadline at
// now, with an election timeout of election ms.
func (m *master) expired(now, election int64) bool {
	return failover.Expired(m.failoverState, m.failoverStartTime, m.failoverStateChangeTime, now, m.timeouts(election))
}

// selectReplica picks the replica of m to promote at now under timing t
// (§9); nil when none qualifies.
func (m *master) selectReplica(now int64, t *settings.Timing) *instance {
	cands, limits := m.replicaCandidates(now, t)
	best, err := failover.Select(cands, limits)
	if err != nil {
		return nil
	}
	return m.replicas[best.ID]
}

// replicaCandidates describes m's replicas for replica selection at now
// under this Sentinel's timing (see master.replicaCandidates); the
// metrics view reads it.
func (s *Sentinel) replicaCandidates(m *master, now int64) ([]failover.Candidate, failover.Limits) {
	return m.replicaCandidates(now, &s.timing)
}

// replicaCandidates describes m's replicas for replica selection, in
// name order, with the limits in force at now under timing t.
func (m *master) replicaCandidates(now int64, t *settings.Timing) ([]failover.Candidate, failover.Limits) {
	maxLinkDown := m.downAfter * 10
	if m.has(object.SDown) {
		maxLinkDown += now - m.sdownSince
	}
	infoValidity := 3 * t.InfoPeriodMs
	if m.has(object.SDown) {
		infoValidity = 5 * t.PingPeriodMs
	}
	limits := failover.Limits{
		MaxSinceOKPing:    5 * t.PingPeriodMs,
		MaxSinceInfo:      infoValidity,
		MaxMasterLinkDown: maxLinkDown,
	}
	var cands []failover.Candidate
	for _, r := range m.sortedReplicas() {
		cands = append(cands, failover.Candidate{
			ID:             r.name,
			RunID:          r.runID,
			Down:           r.has(object.SDown | object.ODown),
			Disconnected:   r.link.disconnected(r.kind),
			Priority:       r.priority,
			ReplOffset:     r.replOffset,
			SinceOKPing:    now - r.link.lastAvailTime,
			SinceInfo:      now - r.infoRefresh,
			MasterLinkDown: r.masterLinkDownTime,
			MasterLinkUp:   r.masterLinkUp,
			NeverLinked:    !r.masterLinkUp && r.masterLinkDownTime < 0,
			FollowsReplica: m.followsReplica(r),
		})
	}
	return cands, limits
}

// followsReplica reports whether replica r says it follows another of
// m's replicas (by the address that replica is known at).
func (m *master) followsReplica(r *instance) bool {
	if r.roleReported != inforeply.RoleSlave || r.slaveMasterHost == "" {
		return false
	}
	for _, o := range m.replicas {
		if o != r && o.addr.Port == r.slaveMasterPort && strings.EqualFold(o.addr.Host, r.slaveMasterHost) {
			return true
		}
	}
	return false
}

// promotionReported handles a replica's INFO that reports role master
// and reports whether it was the replica this Sentinel is promoting
// (§4.2 step 4). Then the promotion is confirmed: our epoch becomes the
// master's config epoch, which makes every other Sentinel adopt the new
// address from our hellos.
func (s *Sentinel) promotionReported(m *master, r *instance, now int64) bool {
	if !r.has(object.Promoted) || !m.has(object.FailoverInProgress) || m.failoverState != failover.WaitPromotion {
		return false
	}
	m.configEpoch = m.failoverEpoch
	s.out.persist("promotion")
	s.event(event.LevelWarning, event.PromotedSlave, r, "")
	if !s.enter(m, failover.ReconfSlaves, now, r.name) {
		return true
	}
	s.handOverDone(m, r)
	s.clientReconfigScript(m, "leader", m.addr, r.addr)
	m.forceHello(s.timing.PublishPeriodMs)
	return true
}

// forceHello makes the next tick send hellos to every instance of m, by
// moving their last hello back more than the hello period (period ms).
func (m *master) forceHello(period int64) {
	back := period + 1
	m.lastPubTime -= back
	for _, r := range m.replicas {
		r.lastPubTime -= back
	}
	for _, si := range m.sentinels {
		si.lastPubTime -= back
	}
}

// reconfReplicas describes m's replicas, in name order, for planning
// their reconfiguration at now.
func (m *master) reconfReplicas(now int64) []failover.Replica {
	replicas := m.sortedReplicas()
	out := make([]failover.Replica, len(replicas))
	for k, r := range replicas {
		out[k] = failover.Replica{
			ID:           r.name,
			Promoted:     r.has(object.Promoted),
			Sent:         r.has(object.ReconfSent),
			InProgress:   r.has(object.ReconfInprog),
			Done:         r.has(object.ReconfDone),
			SinceSent:    now - r.slaveReconfSentTime,
			Disconnected: r.link.disconnected(r.kind),
			Down:         r.has(object.SDown),
		}
	}
	return out
}

// replicaReconfProgress follows a replica being reconfigured from its
// INFO (§4.2 steps 6 and 7): it follows the promoted replica
// (+slave-reconf-inprog), then its link to it is up (+slave-reconf-done).
func (s *Sentinel) replicaReconfProgress(i *instance) {
	m := i.master
	if !i.has(object.ReconfSent | object.ReconfInprog) {
		return
	}
	if i.has(object.ReconfSent) && i.slaveMasterHost != "" && m.promoted != nil &&
		s.addrs.addrMatchesHost(m.promoted.addr, i.slaveMasterHost) && i.slaveMasterPort == m.promoted.addr.Port {
		i.flags &^= object.ReconfSent
		i.flags |= object.ReconfInprog
		s.event(event.LevelNotice, event.SlaveReconfInprog, i, "")
	}
	if i.has(object.ReconfInprog) && i.masterLinkUp {
		i.flags &^= object.ReconfInprog
		i.flags |= object.ReconfDone
		s.event(event.LevelNotice, event.SlaveReconfDone, i, "")
	}
}

// switchDue reports whether m's failover reached update_config: the tick
// then ends with switchMaster. Redis picks the switch up after its loop
// over the masters, because the switch changes the dictionary it walks,
// and only one per tick (the last one found). go-sentinel switches every
// master that is due, in name order, after the walk: when a rack's 300
// masters fail over at once, one switch per tick, each with its own
// config rewrite, ended them at about one a second (issue 19). A switch
// is this Sentinel's own bookkeeping, announced by hellos; nothing on the
// wire changes.
func (m *master) switchDue() bool { return m.failoverState == failover.UpdateConfig }

// switchMaster ends a failover we led (§10.6): +switch-master, the
// timeline, and the master's new address.
func (s *Sentinel) switchMaster(m *master, now int64) {
	if m.promoted == nil {
		return
	}
	old, to := m.addr, m.promoted.addr
	demoted := m.demoted
	s.announceSwitch(m, old, s.addrs.announceAddr(to))
	m.endTimeline(event.PhaseSwitched, now, s.addrs.announceHost(to)+" "+strconv.Itoa(to.Port))
	s.emitTimeline(m)
	if s.resetMasterAndChangeAddress(m, to, now) && demoted {
		// The old master was demoted when the promotion was confirmed;
		// it is named here as the replica it now is, as Redis names it
		// when it converts it later.
		if r := m.findReplica(old); r != nil {
			s.event(event.LevelNotice, event.ConvertToSlave, r, "")
		}
	}
}

// announceSwitch emits +switch-master for m, from the address it had to
// the address to (as announced).
func (s *Sentinel) announceSwitch(m *master, from, to settings.Addr) {
	s.eventFor(event.LevelWarning, event.SwitchMaster, m, m.name+" "+s.addrs.announceHost(from)+" "+strconv.Itoa(from.Port)+
		" "+to.Host+" "+strconv.Itoa(to.Port))
}

// emitTimeline emits go-sentinel's extension +failover-timeline: the
// phases and durations of the failover of m that just ended, once per
// failover this Sentinel led (notice level: no notification script runs
// for it). The event carries a copy of the timeline.
func (s *Sentinel) emitTimeline(m *master) {
	tl := m.lastTimeline
	tl.Marks = append([]event.Mark(nil), tl.Marks...)
	s.emit(s.addrs.eventAbout(event.LevelNotice, event.FailoverTimeline, &m.instance, " "+tl.String()).WithTimeline(&tl))
}

// abortFailover gives up a failover (one that has not promoted anything
// yet or, superseded, one that has): it emits the abort event typ (with
// msg), closes the timeline with the reason, lifts the pause it sent and
// drops the run (dropRun). failoverStartTime stays: the next failover
// waits the retry delay from it.
func (s *Sentinel) abortFailover(m *master, now int64, typ event.Type, msg string) {
	s.event(event.LevelWarning, typ, &m.instance, msg)
	reason, _ := typ.AbortReason()
	m.endTimeline(event.PhaseAborted, now, reason)
	m.resumeWrites(&s.links)
	m.dropRun()
}

// clientReconfigScript queues the master's client-reconfig-script with
// `<master> <role> start <from-ip> <from-port> <to-ip> <to-port>`.
func (s *Sentinel) clientReconfigScript(m *master, role string, from, to settings.Addr) {
	if m.settings.ClientReconfigScript == "" {
		return
	}
	s.scripts.Schedule([]string{m.settings.ClientReconfigScript, m.name, role, "start",
		s.addrs.announceHost(from), strconv.Itoa(from.Port), s.addrs.announceHost(to), strconv.Itoa(to.Port)})
}
