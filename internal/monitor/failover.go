package monitor

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/failover"
)

// Errors of SENTINEL FAILOVER; the RESP layer spells them as Redis does
// (-INPROG, -NOGOODSLAVE).
var (
	ErrFailoverInProgress = errors.New("failover already in progress")
	ErrNoGoodReplica      = failover.ErrNoGoodReplica
)

// startFailoverIfNeeded starts a failover of an ODOWN master unless one
// runs or the last one started less than 2 × failover-timeout ago (§8.3).
func (s *Sentinel) startFailoverIfNeeded(m *master, now int64) bool {
	if !m.has(flagODown) || m.has(flagFailoverInProgress) {
		return false
	}
	if now-m.failoverStartTime < 2*m.failoverTimeout {
		if m.failoverDelayLogged != m.failoverStartTime {
			m.failoverDelayLogged = m.failoverStartTime
			at := time.UnixMilli(m.failoverStartTime + 2*m.failoverTimeout)
			s.log(LevelWarning, "Next failover delay: I will not start a failover before "+at.Format("Mon Jan _2 15:04:05 2006"))
		}
		return false
	}
	if s.currentEpoch == math.MaxUint64 {
		// Redis would wrap to epoch 0 here and every peer would ignore
		// the failover (and our epochs would go back): a hello from any
		// client of an open port can set this epoch. Never start one.
		if !m.epochExhaustedLogged {
			m.epochExhaustedLogged = true
			s.log(LevelWarning, "Failover of '"+m.name+"' not started: the current epoch is 18446744073709551615 and cannot grow (a peer or a client announced it)")
		}
		return false
	}
	if a := s.opts.Accel; a.ElectionStep > 0 || a.ElectionJitter > 0 {
		// The election ladder: this Sentinel's rank among those that
		// could lead delays its start and holds it back while one
		// with a smaller run id reports the master down.
		step := a.ElectionStep.Milliseconds()
		rank, lowerDown := election.Rank(s.myID, m.peers())
		if m.electionAt == 0 {
			jitter := s.rnd.Int63n(a.ElectionJitter.Milliseconds() + 1)
			m.electionAt, m.electionHoldUntil = election.Ladder(now, rank, step, a.ElectionHold.Milliseconds(), jitter)
		}
		if wait, until := election.Wait(now, m.electionAt, m.electionHoldUntil, step, lowerDown); wait {
			s.deadline(until)
			return false
		}
	}
	m.electionAt = 0
	s.startFailover(m, now)
	return true
}

// startFailover enters wait_start with a new epoch; the self-vote of the
// next election step persists it.
func (s *Sentinel) startFailover(m *master, now int64) {
	m.failoverState = failWaitStart
	m.flags |= flagFailoverInProgress
	s.currentEpoch++
	m.failoverEpoch = s.currentEpoch
	s.eventFor(LevelWarning, EventNewEpoch, m, strconv.FormatUint(s.currentEpoch, 10))
	s.event(LevelWarning, EventTryFailover, &m.instance, "")
	m.failoverStartTime = now + int64(s.rnd.Intn(1000))
	m.failoverStateChangeTime = now
	m.beginTimeline(true)
	m.mark(PhaseStart, now, "epoch "+strconv.FormatUint(m.failoverEpoch, 10))
}

// Failover starts a failover without asking the other Sentinels
// (SENTINEL FAILOVER).
func (s *Sentinel) Failover(at time.Time, name string) error {
	m, err := s.master(name)
	if err != nil {
		return err
	}
	now := ms(at)
	if m.has(flagFailoverInProgress) {
		return ErrFailoverInProgress
	}
	if s.selectReplica(m, now) == nil {
		return ErrNoGoodReplica
	}
	s.log(LevelWarning, "Executing user requested FAILOVER of '"+m.name+"'")
	s.startFailover(m, now)
	m.flags |= flagForceFailover
	return nil
}

// leader runs the election tally for epoch (§8.4): the other Sentinels'
// votes in the current epoch plus our own, which goes to the leading
// candidate or to ourselves.
func (s *Sentinel) leader(m *master, epoch uint64, now int64) string {
	t := election.PeerVotes(m.peers(), s.currentEpoch)
	myVote, myEpoch := s.vote(m, epoch, t.Candidate(s.myID), now)
	t.AddVote(myVote, myEpoch, epoch)
	return t.Winner(len(m.sentinels)+1, m.quorum)
}

// failoverStateMachine advances a running failover one step (§10.1).
func (s *Sentinel) failoverStateMachine(m *master, now int64) {
	if !m.has(flagFailoverInProgress) {
		return
	}
	switch m.failoverState {
	case failWaitStart:
		s.failoverWaitStart(m, now)
	case failSelectSlave:
		s.failoverSelectSlave(m, now)
	case failSendSlaveofNoone:
		s.failoverSendSlaveofNoone(m, now)
	case failWaitPromotion:
		if now-m.failoverStateChangeTime > m.failoverTimeout {
			s.event(LevelWarning, EventAbortSlaveTimeout, &m.instance, "")
			s.abortFailover(m, now, "slave-timeout")
		}
	case failReconfSlaves:
		s.failoverReconfNextSlave(m, now)
	}
}

func (s *Sentinel) failoverWaitStart(m *master, now int64) {
	winner := s.leader(m, m.failoverEpoch, now)
	isLeader := winner != "" && strings.EqualFold(winner, s.myID)
	if !isLeader && !m.has(flagForceFailover) {
		timeout := s.timing.ElectionTimeout.Milliseconds()
		if timeout > m.failoverTimeout {
			timeout = m.failoverTimeout
		}
		if now-m.failoverStartTime > timeout {
			s.event(LevelWarning, EventAbortNotElected, &m.instance, "")
			s.abortFailover(m, now, "not-elected")
		}
		return
	}
	s.event(LevelWarning, EventElectedLeader, &m.instance, "")
	m.mark(PhaseElected, now, "")
	if s.simFailure&SimCrashAfterElection != 0 {
		s.crash()
		return
	}
	m.failoverState = failSelectSlave
	m.failoverStateChangeTime = now
	s.event(LevelWarning, EventStateSelectSlave, &m.instance, "")
}

// crash is SIMULATE-FAILURE: log and ask the process to exit with 99.
// Like Redis's exit(99) where the flag is checked, nothing the core does
// after it produces output: Ready ends with the Exit.
func (s *Sentinel) crash() {
	s.log(LevelWarning, "Sentinel CRASH because of SENTINEL simulate-failure")
	s.act(Exit{Code: 99})
	s.crashed = true
}

// selectReplica picks the replica to promote (§9).
func (s *Sentinel) selectReplica(m *master, now int64) *instance {
	cands, limits := s.replicaCandidates(m, now)
	best, err := failover.Select(cands, limits)
	if err != nil {
		return nil
	}
	return m.replicas[best.ID]
}

// replicaCandidates describes m's replicas for replica selection, in
// name order, with the limits in force at now.
func (s *Sentinel) replicaCandidates(m *master, now int64) ([]failover.Candidate, failover.Limits) {
	maxLinkDown := m.downAfter * 10
	if m.has(flagSDown) {
		maxLinkDown += now - m.sdownSince
	}
	infoValidity := 3 * s.timing.InfoPeriod.Milliseconds()
	if m.has(flagSDown) {
		infoValidity = 5 * s.timing.PingPeriod.Milliseconds()
	}
	limits := failover.Limits{
		MaxSinceOKPing:    msDuration(5 * s.timing.PingPeriod.Milliseconds()),
		MaxSinceInfo:      msDuration(infoValidity),
		MaxMasterLinkDown: msDuration(maxLinkDown),
	}
	var cands []failover.Candidate
	for _, r := range m.sortedReplicas() {
		cands = append(cands, failover.Candidate{
			ID:             r.name,
			RunID:          r.runID,
			Down:           r.has(flagSDown | flagODown),
			Disconnected:   r.link.disconnected(r.kind),
			Priority:       r.priority,
			ReplOffset:     r.replOffset,
			SinceOKPing:    msDuration(now - r.link.lastAvailTime),
			SinceInfo:      msDuration(now - r.infoRefresh),
			MasterLinkDown: msDuration(r.masterLinkDownTime),
		})
	}
	return cands, limits
}

func (s *Sentinel) failoverSelectSlave(m *master, now int64) {
	r := s.selectReplica(m, now)
	if r == nil {
		s.event(LevelWarning, EventAbortNoGoodSlave, &m.instance, "")
		s.abortFailover(m, now, "no-good-slave")
		return
	}
	s.event(LevelWarning, EventSelectedSlave, r, "")
	m.mark(PhaseSelected, now, r.name)
	r.flags |= flagPromoted
	m.promoted = r
	m.failoverState = failSendSlaveofNoone
	m.failoverStateChangeTime = now
	s.event(LevelNotice, EventStateSendSlaveofNoone, r, "")
}

func (s *Sentinel) failoverSendSlaveofNoone(m *master, now int64) {
	r := m.promoted
	if r.link.disconnected(r.kind) {
		if now-m.failoverStateChangeTime > m.failoverTimeout {
			s.event(LevelWarning, EventAbortSlaveTimeout, &m.instance, "")
			s.abortFailover(m, now, "slave-timeout")
		}
		return
	}
	if !s.sendSlaveOf(r, nil) {
		return
	}
	s.event(LevelNotice, EventStateWaitPromotion, r, "")
	m.failoverState = failWaitPromotion
	m.failoverStateChangeTime = now
}

// promotionConfirmed: the replica we promoted reports role master (§4.2
// step 4). Our epoch becomes the master's config epoch, which makes every
// other Sentinel adopt the new address from our hellos.
func (s *Sentinel) promotionConfirmed(m *master, r *instance, now int64) {
	m.configEpoch = m.failoverEpoch
	m.failoverState = failReconfSlaves
	m.failoverStateChangeTime = now
	s.persist("promotion")
	s.event(LevelWarning, EventPromotedSlave, r, "")
	m.mark(PhasePromoted, now, r.name)
	if s.simFailure&SimCrashAfterPromotion != 0 {
		s.crash()
		return
	}
	s.event(LevelWarning, EventStateReconfSlaves, &m.instance, "")
	s.clientReconfigScript(m, "leader", m.addr, r.addr)
	s.forceHello(m)
}

// forceHello makes the next tick send hellos to every instance of m.
func (s *Sentinel) forceHello(m *master) {
	back := s.timing.PublishPeriod.Milliseconds() + 1
	m.lastPubTime -= back
	for _, r := range m.replicas {
		r.lastPubTime -= back
	}
	for _, si := range m.sentinels {
		si.lastPubTime -= back
	}
}

// failoverReconfNextSlave points up to parallel-syncs replicas at a time
// to the promoted one (§10.3), then checks for the end (§10.4).
func (s *Sentinel) failoverReconfNextSlave(m *master, now int64) {
	inProgress := 0
	replicas := m.sortedReplicas()
	for _, r := range replicas {
		if r.has(flagReconfSent | flagReconfInprog) {
			inProgress++
		}
	}
	for _, r := range replicas {
		if inProgress >= m.parallelSyncs {
			break
		}
		if r.has(flagPromoted | flagReconfDone) {
			continue
		}
		if r.has(flagReconfSent) && now-r.slaveReconfSentTime > s.timing.SlaveReconfTimeout.Milliseconds() {
			s.event(LevelNotice, EventSlaveReconfSentTimeout, r, "")
			r.flags &^= flagReconfSent
			r.flags |= flagReconfDone
		}
		if r.has(flagReconfSent|flagReconfInprog) || r.link.disconnected(r.kind) {
			continue
		}
		if s.sendSlaveOf(r, &m.promoted.addr) {
			r.flags |= flagReconfSent
			r.slaveReconfSentTime = now
			s.event(LevelNotice, EventSlaveReconfSent, r, "")
			inProgress++
		}
	}
	s.failoverDetectEnd(m, now)
}

func (s *Sentinel) failoverDetectEnd(m *master, now int64) {
	p := m.promoted
	if p == nil || p.has(flagSDown) {
		return
	}
	notReconfigured := 0
	for _, r := range m.replicas {
		if r.has(flagPromoted|flagReconfDone) || r.has(flagSDown) {
			continue
		}
		notReconfigured++
	}
	timeout := false
	if now-m.failoverStateChangeTime > m.failoverTimeout {
		notReconfigured = 0
		timeout = true
		s.event(LevelWarning, EventFailoverEndForTimeout, &m.instance, "")
	}
	if notReconfigured == 0 {
		s.event(LevelWarning, EventFailoverEnd, &m.instance, "")
		m.mark(PhaseEnd, now, "")
		m.failoverState = failUpdateConfig
		m.failoverStateChangeTime = now
	}
	if timeout {
		for _, r := range m.sortedReplicas() {
			if r.has(flagPromoted|flagReconfDone|flagReconfSent) || r.link.disconnected(r.kind) {
				continue
			}
			if s.sendSlaveOf(r, &p.addr) {
				s.event(LevelNotice, EventSlaveReconfSentBE, r, "")
				r.flags |= flagReconfSent
			}
		}
	}
}

// abortFailover gives up a failover that has not promoted anything yet
// (or, superseded, one that has); reason goes to the timeline.
func (s *Sentinel) abortFailover(m *master, now int64, reason string) {
	m.endTimeline(PhaseAborted, now, reason)
	m.flags &^= flagFailoverInProgress | flagForceFailover
	m.failoverState = failNone
	m.failoverStateChangeTime = now
	if m.promoted != nil {
		m.promoted.flags &^= flagPromoted
		m.promoted = nil
	}
}

// clientReconfigScript queues the master's client-reconfig-script with
// `<master> <role> start <from-ip> <from-port> <to-ip> <to-port>`.
func (s *Sentinel) clientReconfigScript(m *master, role string, from, to Addr) {
	if m.clientReconfigScript == "" {
		return
	}
	s.scheduleScript(m.clientReconfigScript, m.name, role, "start",
		s.announceHost(from), strconv.Itoa(from.Port), s.announceHost(to), strconv.Itoa(to.Port))
}
