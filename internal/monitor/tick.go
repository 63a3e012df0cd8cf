package monitor

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/fence"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/readroute"
)

// Tick advances the core's timers to now. It must be called every
// NextTickIn(); like one run of Redis's sentinelTimer it checks for TILT,
// then handles every master, its replicas and its Sentinels. What it
// changes is recorded for the View as it goes (see Sentinel.changed).
//
// now is the node's monotonic clock, as every Step's is (see clock.go);
// wall is the wall clock read at the same instant, which only TILT's
// trigger reads, as Redis reads mstime(): a step of the wall clock enters
// TILT as in Redis but moves no timer, lease or vote hold.
func (s *Sentinel) Tick(now, wall time.Time) {
	if s.out.crashed {
		return
	}
	t := ms(now)
	s.checkTilt(t, ms(wall))
	s.nextDeadline = 0
	var switching []*master
	troubled := 0
	for _, name := range s.names {
		m := s.masters[name]
		if m.troubled() {
			troubled++
		}
		s.handleInstance(&m.instance, t)
		for _, r := range m.sortedReplicas() {
			s.handleInstance(r, t)
		}
		for _, si := range m.sortedSentinels() {
			s.handleInstance(si, t)
		}
		s.checkProxy(m, t)
		if !s.tilt {
			s.checkRejoins(m, t)
		}
		readPort{s, m, t}.check()
		s.forgetReplicas(m, t)
		s.forgetSentinels(m, t)
		if m.switchDue() {
			switching = append(switching, m)
		}
		if m.has(object.FailoverInProgress) {
			s.busy(t)
		}
	}
	s.troubled = troubled
	for _, m := range switching {
		s.switchMaster(m, t)
	}
	s.askLeases(t)
	s.runScripts(t)
}

// troubled reports whether m counts against Accel.Budget: its link is
// down, it is SDOWN or ODOWN, or a failover of it is in progress.
func (m *master) troubled() bool {
	return m.link.disconnected(object.Master) || m.has(object.SDown|object.ODown|object.FailoverInProgress)
}

// Quiet reports whether the last tick found nothing happening: no master
// in trouble (see troubled), no fast ticks asked for (Accel.BusyTick) and
// no TILT. The loop uses it to pace the process, never the protocol.
func (s *Sentinel) Quiet() bool {
	return s.lastTick != 0 && s.troubled == 0 && s.lastTick >= s.busyUntil && !s.tilt
}

// checkTilt enters TILT, as Redis does, when the wall-clock time since
// the previous tick (wall, Unix ms) is negative or longer than
// TiltTrigger: the process was stopped, the machine was busy or the
// clock jumped. TILT's period is measured from now, on the monotonic
// clock. What safety rests on (the leases and the votes they hold back)
// is measured on the monotonic clock alone, which a step of the wall
// clock does not move and a stall advances by the real time that
// passed, so TILT changes nothing there (docs/proxy.md).
func (s *Sentinel) checkTilt(now, wall int64) {
	if s.lastTick != 0 {
		delta := wall - s.lastWall
		if delta < 0 || delta > s.timing.TiltTriggerMs {
			s.tilt = true
			s.tiltStart = now
			s.tilts++
			s.event(event.LevelWarning, event.Tilt, nil, "#tilt mode entered")
		}
	}
	s.lastTick, s.lastWall = now, wall
}

// handleInstance is one object's share of a tick (§2.3).
func (s *Sentinel) handleInstance(i *instance, now int64) {
	if !i.alive() {
		return // removed earlier in this tick
	}
	s.reconnect(i, now)
	s.sendPeriodic(i, now)
	if s.tilt {
		if now-s.tiltStart < s.timing.TiltPeriodMs {
			return
		}
		s.tilt = false
		s.event(event.LevelWarning, event.TiltEnd, nil, "#tilt mode exited")
	}
	s.checkSDown(i, now)
	if i.kind == object.Master {
		m := i.master
		s.checkODown(m, now)
		if s.startFailoverIfNeeded(m, now) {
			s.askOthers(m, now, true)
		}
		failoverStep{s, m, now}.run()
		s.askOthers(m, now, false)
	}
}

// sendPeriodic sends the INFO, PING and hello an instance is due (§2.2).
func (s *Sentinel) sendPeriodic(i *instance, now int64) {
	l := i.link
	if l.disconnected(i.kind) {
		return
	}
	if len(l.pending) >= maxPendingPerRef*l.refcount {
		return
	}
	infoPeriod := s.timing.InfoPeriodMs
	if i.kind == object.Replica && (i.master.has(object.ODown|object.FailoverInProgress) || i.masterLinkDownTime != 0) {
		infoPeriod = 1000
		if fast := s.opts.Accel.FailoverInfoPeriodMs; fast > 0 && i.master.has(object.FailoverInProgress) {
			if i.infoPending {
				infoPeriod = 1000 // the fast period counts from the last reply
			} else {
				infoPeriod = s.opts.Accel.Scaled(fast, infoPeriod, s.troubled)
			}
		}
	}
	if i.kind == object.Master && i.master.hasReadPort() {
		infoPeriod = min(infoPeriod, readroute.InfoPeriodMs) // the read port's lag samples
	}
	pingPeriod := s.timing.PingPeriodMs
	if i.downAfter < pingPeriod {
		pingPeriod = i.downAfter
	}
	if i.kind == object.Master && i.master.lease.lapseAt > now {
		pingPeriod = min(pingPeriod, fence.LeasePingPeriodMs) // a lease it granted binds it
	}
	if i.kind != object.Sentinel && (i.infoRefresh == 0 || now-i.infoRefresh > infoPeriod || i.idsStale && !i.infoPending) {
		s.links.sendPending(pending{kind: sentInfo, inst: i, at: s.lastTick}, "INFO")
	}
	if now-l.lastPongTime > pingPeriod && now-l.lastPingTime > pingPeriod/2 {
		s.links.sendPing(i, now)
	}
	if now-i.lastPubTime > s.timing.PublishPeriodMs && !i.helloPaused(now) {
		s.sendHello(i, now)
	}
}

// NextTickIn returns how long to wait before the next Tick: a random
// duration between TickMinInterval and TickMaxInterval, like Redis's
// 10 + rand()%10 Hz timer; with the accelerations (Accel) at most
// BusyTick while busy, and no later than the next deadline the last tick
// found.
func (s *Sentinel) NextTickIn() time.Duration {
	hz := 10 + s.rnd.Intn(10)
	d := time.Second / time.Duration(hz)
	a := s.opts.Accel
	if a.BusyTickMs > 0 && s.lastTick < s.busyUntil && d > msDuration(a.BusyTickMs) {
		busy := msDuration(a.Scaled(a.BusyTickMs, d.Milliseconds(), s.troubled))
		d = busy/2 + time.Duration(s.rnd.Int63n(int64(busy/2)+1))
	}
	if a.DeadlineTicks && s.nextDeadline > 0 {
		if until := msDuration(s.nextDeadline - s.lastTick); until < d {
			d = max(until, time.Millisecond)
		}
	}
	return d
}

// busy keeps the timer fast for Accel.BusyFor from now.
func (s *Sentinel) busy(now int64) {
	if s.opts.Accel.BusyTickMs > 0 {
		s.busyUntil = max(s.busyUntil, now+s.opts.Accel.BusyForMs)
	}
}

// deadline records that a timer-driven decision falls due at t.
func (s *Sentinel) deadline(t int64) {
	if s.opts.Accel.DeadlineTicks && (s.nextDeadline == 0 || t < s.nextDeadline) {
		s.nextDeadline = t
	}
}
