package monitor

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
)

// checkSDown decides whether an instance is subjectively down (§7.1) and
// closes connections that look stale (§3.4).
func (s *Sentinel) checkSDown(i *instance, now int64) {
	l := i.link
	var elapsed int64
	if l.actPingTime != 0 {
		elapsed = now - l.actPingTime
	} else if l.disconnected(i.kind) {
		elapsed = now - l.lastAvailTime
	}
	minReconnect := s.timing.MinLinkReconnectPeriod.Milliseconds()
	if l.cc != 0 && now-l.ccConnTime > minReconnect && l.actPingTime != 0 &&
		now-l.actPingTime > i.downAfter/2 && now-l.lastPongTime > i.downAfter/2 {
		s.closeCC(l)
	}
	if l.pc != 0 && now-l.pcConnTime > minReconnect &&
		now-l.pcLastActivity > 3*s.timing.PublishPeriod.Milliseconds() {
		s.closePC(l)
	}
	down := elapsed > i.downAfter ||
		(i.kind == kindMaster && i.roleReported == InfoRoleSlave &&
			now-i.roleReportedTime > i.downAfter+2*s.timing.InfoPeriod.Milliseconds()) ||
		(i.has(flagMasterReboot) && now-i.rebootTime > i.master.rebootDownAfter)
	if down {
		if !i.has(flagSDown) {
			s.event(LevelWarning, EventSDown, i, "")
			i.sdownSince = now
			i.flags |= flagSDown
			if i.kind == kindMaster {
				s.busy(now)
			}
		}
	} else if !i.has(flagSDown) && l.actPingTime != 0 {
		s.deadline(l.actPingTime + i.downAfter + 1)
	} else if i.has(flagSDown) {
		i.flags &^= flagSDown | flagScriptKillSent
		s.event(LevelWarning, EventSDownEnd, i, "")
	}
}

// checkODown decides whether a master is objectively down (§7.2): we and
// enough other Sentinels think it is down.
func (s *Sentinel) checkODown(m *master, now int64) {
	votes := 0
	odown := false
	if m.has(flagSDown) {
		votes = 1
		for _, si := range m.sentinels {
			if si.has(flagMasterDown) {
				votes++
			}
		}
		odown = votes >= m.quorum
	}
	if odown {
		if !m.has(flagODown) {
			s.busy(now)
			m.flags |= flagODown
			m.odownSince = now
			s.event(LevelWarning, EventODown, &m.instance, fmt.Sprintf(" #quorum %d/%d", votes, m.quorum))
		}
	} else if m.has(flagODown) {
		m.electionAt = 0
		m.flags &^= flagODown
		s.event(LevelWarning, EventODownEnd, &m.instance, "")
	}
}

// askOthers asks the other Sentinels whether they think m is down, and
// for their vote when we run a failover (§7.3). Without force it asks each
// at most once per ASK period.
func (s *Sentinel) askOthers(m *master, now int64, force bool) {
	ask := s.timing.AskPeriod.Milliseconds()
	for _, si := range m.sortedSentinels() {
		elapsed := now - si.lastMasterDownReplyTime
		if elapsed > 5*ask {
			si.flags &^= flagMasterDown
			si.leader = ""
		}
		if !m.has(flagSDown) || si.link.disconnected(si.kind) {
			continue
		}
		period := ask
		if fast := s.opts.Accel.ODownAskPeriod.Milliseconds(); fast > 0 && !m.has(flagODown) {
			if !force && si.askPending {
				continue // asked already; a silent peer gets no pile of asks
			}
			period = fast
		}
		if !force && elapsed < period {
			continue
		}
		req := gossip.AskRequest{IP: s.announceHost(m.addr), Port: m.addr.Port,
			CurrentEpoch: s.currentEpoch, RunID: gossip.NoVote}
		if m.failoverState > failover.None {
			req.RunID = s.myID
		}
		s.send(si, sentAsk, req.Args()...)
	}
}

// askReply records another Sentinel's answer (§7.4): exactly an integer, a
// bulk string and an integer, or it is ignored.
func (s *Sentinel) askReply(si *instance, r Reply, now int64) {
	rep, ok := gossip.ParseAskReply(askElems(r))
	if !ok {
		return
	}
	si.lastMasterDownReplyTime = now
	if rep.Down {
		si.flags |= flagMasterDown
	} else {
		si.flags &^= flagMasterDown
	}
	if rep.Leader != gossip.NoVote {
		if si.leaderEpoch != rep.LeaderEpoch {
			s.log(LevelWarning, fmt.Sprintf("%s voted for %s %d", si.name, rep.Leader, rep.LeaderEpoch))
		}
		si.leader = rep.Leader
		si.leaderEpoch = rep.LeaderEpoch
	}
}

// askElems gives the elements of an array reply to gossip.ParseAskReply:
// integers as int64, strings as string, anything else as nil. A reply that
// is not an array has no elements.
func askElems(r Reply) []any {
	if r.Kind != ReplyArray {
		return nil
	}
	out := make([]any, len(r.Elems))
	for i, e := range r.Elems {
		switch e.Kind {
		case ReplyInt:
			out[i] = e.Int
		case ReplyString:
			out[i] = e.Str
		}
	}
	return out
}
