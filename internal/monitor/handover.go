package monitor

import (
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// This file holds how a reachable old master hands its role over, so that
// it stops acknowledging writes that the promotion would throw away:
//
//   - a coordinated failover (SENTINEL FAILOVER <name> COORDINATED, as
//     Valkey 9) sends the old master CLIENT PAUSE WRITE and FAILOVER TO
//     the chosen replica in one transaction: the server waits until the
//     replica has every byte, then swaps the roles; once the promotion is
//     confirmed, both kill their clients (which reconnect and rediscover)
//     and lift the pause;
//   - every other failover pauses the old master's writes, when it can
//     be reached and runs Redis 6.2 or later, right before SLAVEOF NO ONE
//     goes to the replica, and demotes it (SLAVEOF the promoted one,
//     clients killed, pause lifted) as soon as the promotion is
//     confirmed, instead of seconds after the switch (+convert-to-slave);
//   - an aborted failover ends the server-side FAILOVER, if its INFO shows
//     one, and lifts the pause at once (Valkey leaves writes paused until
//     the pause's deadline, up to the whole failover-timeout).

// pauses reports whether this Sentinel can pause m's writes: the master
// is reachable and runs Redis 6.2 or later (its INFO shows
// master_failover_state), which has CLIENT PAUSE WRITE and UNPAUSE.
func (m *master) pauses() bool {
	return m.failoverReported != "" && !m.link.disconnected(object.Master)
}

// maxHandover is, in ms, how long a pause lasts at least (when the
// failover-timeout leaves that much): a replica in sync has every write
// as soon as the master hears its next REPLCONF ACK, which replicas send
// every second.
const maxHandover = 5000

// pauseLength is how long, in ms, a pause (and FAILOVER TO) may last: the
// failover-timeout left in m's current state (Valkey's choice), but no
// more than maxHandover or half of down-after-milliseconds, whichever is
// longer. A longer pause only keeps writes waiting for a handover that is
// not coming (the failover is then aborted and writes resume), and the
// other Sentinels, whose hellos to the master (PUBLISH is a write) are
// held by it with every command behind them, would see the master down.
func (m *master) pauseLength(now int64) int64 {
	left := m.settings.FailoverTimeoutMs - (now - m.failoverStateChangeTime)
	return min(left, max(m.downAfter/2, maxHandover))
}

// pauseLapsed reports whether the pause this Sentinel sent m has ended
// without a promotion: the server gave the handover up as well.
func (m *master) pauseLapsed(now int64) bool {
	return m.has(object.CoordFailover) && m.pauseUntil != 0 && now > m.pauseUntil
}

// pauseWrites pauses the old master's writes for the rest of the
// failover-timeout before a plain failover sends SLAVEOF NO ONE, when it
// can (pauses), once per failover, sending on t.
func (m *master) pauseWrites(t *linkTable, now int64) {
	if m.pauseUntil != 0 || !m.pauses() {
		return
	}
	left := strconv.FormatInt(m.pauseLength(now), 10)
	t.send(&m.instance, sentOther, "MULTI")
	t.send(&m.instance, sentOther, "CLIENT", "PAUSE", left, "WRITE")
	t.send(&m.instance, sentPauseExec, "EXEC")
	m.notePause(now, m.pauseLength(now))
}

// pauseReply reads the EXEC reply of a plain failover's pause: a
// transaction the server refused (an ACL without +client|pause, an
// unknown command) paused nothing, and the demotion then goes without
// CLIENT UNPAUSE, which would fail it the same way.
func (m *master) pauseReply(r msg.Reply) {
	failed := r.Kind != msg.ReplyArray || len(r.Elems) != 1 || r.Elems[0].Kind == msg.ReplyError
	if failed && !m.has(object.CoordFailover) {
		m.pauseUntil = 0
	}
}

// notePause records that m's writes are paused from now for d ms.
func (m *master) notePause(now, d int64) {
	m.pauseUntil, m.pausedAt = now+d, now
	m.mark(event.PhasePaused, now, "")
}

// handOver is send_slaveof_noone of a coordinated failover: once the old
// master is reachable and the promoted replica reports its link to it
// up, the master is sent CLIENT PAUSE WRITE and FAILOVER TO the replica,
// both for pauseLength; with less than failover.MinHandover of
// failover-timeout left the failover is aborted.
func (f failoverStep) handOver() {
	s, m, now := f.s, f.m, f.now
	if f.expired() {
		s.abortFailover(m, now, event.AbortMasterTimeout, "")
		return
	}
	if m.link.disconnected(object.Master) || !m.promoted.masterLinkUp {
		return // FAILOVER TO needs the master and a replica in sync with it
	}
	left := m.pauseLength(now)
	ms := strconv.FormatInt(left, 10)
	to := m.promoted.addr
	s.links.send(&m.instance, sentOther, "MULTI")
	s.links.send(&m.instance, sentOther, "CLIENT", "PAUSE", ms, "WRITE")
	s.links.send(&m.instance, sentOther, "FAILOVER", "TO", s.addrs.announceHost(to), strconv.Itoa(to.Port), "TIMEOUT", ms)
	s.links.send(&m.instance, sentExec, "EXEC")
	m.notePause(now, left)
	s.enter(m, failover.WaitPromotion, now, "")
}

// handOverDone runs when the promotion of r is confirmed: a coordinated
// failover has the old master and r kill their clients and lift the
// pause; any other failover demotes the old master now if it has a live
// connection to it (lifting the pause it sent, if the pause took), where
// Redis converts it only seconds after the switch. A demotion lost on
// the way is made up by the usual +convert-to-slave later.
func (s *Sentinel) handOverDone(m *master, r *instance) {
	switch {
	case m.has(object.CoordFailover):
		s.links.killClients(&m.instance)
		s.links.killClients(r)
	case m.link.disconnected(object.Master):
		// Nothing reaches it now; it is converted when it is back.
	case m.pauseUntil != 0:
		m.demoted = s.sendSlaveOf(&m.instance, &r.addr, "CLIENT", "UNPAUSE")
	default:
		m.demoted = s.sendSlaveOf(&m.instance, &r.addr)
	}
	m.pauseUntil = 0
}

// resumeWrites, at an abort, ends the old master's server-side FAILOVER
// if its INFO shows one and lifts this Sentinel's pause, so that it takes
// writes again at once, sending on t.
func (m *master) resumeWrites(t *linkTable) {
	if m.pauseUntil == 0 {
		return
	}
	m.pauseUntil = 0
	if m.link.cc == 0 {
		return // the pause ends at its deadline
	}
	t.send(&m.instance, sentOther, "MULTI")
	if failover.ServerFailing(m.failoverReported) {
		t.send(&m.instance, sentOther, "FAILOVER", "ABORT")
	}
	t.send(&m.instance, sentOther, "CLIENT", "UNPAUSE")
	t.send(&m.instance, sentExec, "EXEC")
}

// helloPaused reports whether hellos to i must wait: PUBLISH is a write,
// held while this Sentinel paused the master's writes or while a
// server-side FAILOVER runs, and a held PUBLISH would stall every command
// queued behind it on the link.
func (i *instance) helloPaused(now int64) bool {
	if failover.ServerFailing(i.failoverReported) {
		return true
	}
	return i.kind == object.Master && i.master.pauseUntil > now
}
