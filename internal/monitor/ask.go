package monitor

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// askOthers asks the other Sentinels whether they think m is down, and
// for their vote when we run a failover (§7.3). Without force it asks each
// at most once per ASK period.
func (s *Sentinel) askOthers(m *master, now int64, force bool) {
	asking := m.asking()
	if !asking && m.answersClear {
		return // nothing to ask, nothing held to clear
	}
	ask := s.timing.AskPeriodMs
	held := false
	for _, si := range m.sortedSentinels() {
		elapsed := now - si.lastMasterDownReplyTime
		if gossip.AnswerStale(elapsed, ask) && (si.has(object.MasterDown) || si.leader != "") {
			si.flags &^= object.MasterDown
			si.leader = ""
			s.views.changed(m) // without an event
		}
		held = held || si.has(object.MasterDown) || si.leader != ""
		if !asking || si.link.disconnected(si.kind) {
			continue
		}
		period := ask
		if fast := s.opts.Accel.ODownAskPeriodMs; fast > 0 && (!m.has(object.ODown) || m.awaitsVote(si, s.currentEpoch)) {
			if !force && si.askPending {
				continue // asked already; a silent peer gets no pile of asks
			}
			period = s.opts.Accel.Scaled(fast, ask, s.troubled)
		}
		if !force && elapsed < period {
			continue
		}
		req := gossip.AskRequest{IP: s.addrs.announceHost(m.addr), Port: m.addr.Port,
			CurrentEpoch: s.currentEpoch, RunID: gossip.NoVote}
		if m.failoverState > failover.None {
			req.RunID = s.myID
		}
		s.links.sendPending(pending{kind: sentAsk, inst: si, about: m.addrGen}, req.Args()...)
	}
	m.answersClear = !held
}

// awaitsVote reports whether this Sentinel, electing itself to fail m
// over, got an answer from si since the election began but no vote of
// the current epoch (currentEpoch): a go-sentinel holding its vote back for the leases
// it granted (lease.go) answers "*" until they lapse, and is asked again
// at the fast period so that the vote comes as soon as it is free.
func (m *master) awaitsVote(si *instance, currentEpoch uint64) bool {
	return m.failoverState == failover.WaitStart && si.leaderEpoch < currentEpoch &&
		si.lastMasterDownReplyTime >= m.failoverStateChangeTime
}

// asking reports whether this Sentinel asks its peers about m: while it
// thinks m is down, and, for a coordinated failover (whose master is up),
// while its election runs.
func (m *master) asking() bool {
	return m.has(object.SDown) || (m.has(object.CoordFailover) && m.failoverState == failover.WaitStart)
}

// askReply records in si another Sentinel's answer (§7.4): exactly an
// integer, a bulk string and an integer, or it is ignored. An answer about
// an earlier address of the master (about, its addrGen when asked) is
// ignored too. A vote in another epoch than si's last one is logged to o.
func (si *instance) askReply(r msg.Reply, about uint64, now int64, o *outbox) {
	rep, ok := gossip.ParseAskReply(askElems(r))
	if !ok || si.master == nil || si.master.addrGen != about {
		return
	}
	si.lastMasterDownReplyTime = now
	si.answered = true
	si.master.answersClear = false
	if rep.Down {
		si.flags |= object.MasterDown
	} else {
		si.flags &^= object.MasterDown
	}
	if rep.Leader != gossip.NoVote {
		if si.leaderEpoch != rep.LeaderEpoch {
			o.log(event.LevelWarning, fmt.Sprintf("%s voted for %s %d", si.name, rep.Leader, rep.LeaderEpoch))
		}
		si.leader = rep.Leader
		si.leaderEpoch = rep.LeaderEpoch
	}
}

// askElems gives the elements of an array reply to gossip.ParseAskReply:
// integers as int64, strings as string, anything else as nil. A reply that
// is not an array has no elements.
func askElems(r msg.Reply) []any {
	if r.Kind != msg.ReplyArray {
		return nil
	}
	out := make([]any, len(r.Elems))
	for i, e := range r.Elems {
		switch e.Kind {
		case msg.ReplyInt:
			out[i] = e.Int
		case msg.ReplyString:
			out[i] = e.Str
		}
	}
	return out
}

// answerAsk answers another Sentinel's IsMasterDownByAddr (§7.5): whether
// we think the master at req.IP:req.Port is down (never while in TILT)
// and, when req asks for a vote, our vote for the leader of
// req.CurrentEpoch.
func (s *Sentinel) answerAsk(now int64, req gossip.AskRequest) gossip.AskReply {
	rep := gossip.NoVoteReply()
	var m *master
	for _, name := range s.names {
		if cand := s.masters[name]; view.AsksAbout(req, s.addrs.resolved, cand.addr) {
			m = cand
			break
		}
	}
	if m == nil {
		return rep
	}
	rep.Down = gossip.AnswerDown(m.has(object.SDown), s.tilt)
	if req.AsksVote() {
		if s.opts.Accel.ElectionBusyHoldMs > 0 {
			s.voteAsks.note(m, req.RunID, now)
		}
		s.views.changed(m) // a vote changes m, though no query shows it today
		leader, le := s.vote(m, req.CurrentEpoch, req.RunID, now)
		if leader != "" {
			rep.Leader = leader
		}
		rep.LeaderEpoch = le
	}
	return rep
}
