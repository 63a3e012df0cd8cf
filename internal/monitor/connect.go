package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// maxPendingPerRef bounds the commands waiting for a reply on a link, per
// object sharing it; periodic commands are skipped beyond it.
const maxPendingPerRef = 100

// authFor returns the credentials to send to inst: the master's auth-pass
// and auth-user for masters and replicas; sentinel-user/sentinel-pass, or
// else requirepass, for other Sentinels.
func (s *Sentinel) authFor(i *instance) msg.Auth {
	if i.kind == object.Sentinel {
		if s.global.SentinelPass != "" {
			return msg.Auth{User: s.global.SentinelUser, Pass: s.global.SentinelPass}
		}
		if s.opts.RequirePass != "" {
			return msg.Auth{Pass: s.opts.RequirePass}
		}
		return msg.Auth{}
	}
	m := i.master
	if m.settings.AuthPass == "" {
		return msg.Auth{}
	}
	return msg.Auth{User: m.settings.AuthUser, Pass: m.settings.AuthPass}
}

// reconnect opens the connections an instance is missing, at most once per
// PING period (§3.4). A new command connection gets a PING at once.
func (s *Sentinel) reconnect(i *instance, now int64) {
	l := i.link
	if i.addr.Port == 0 || !l.missing(i.kind) {
		return
	}
	period := s.timing.PingPeriodMs
	if fast := s.opts.Accel.MasterReconnectPeriodMs; fast > 0 && i.kind == object.Master {
		period = min(period, s.opts.Accel.Scaled(fast, period, s.troubled))
	}
	if since(now, l.lastReconnTime) < period {
		return
	}
	l.lastReconnTime = now
	if l.cc == 0 {
		l.cc = s.links.open(i, msg.CmdLink, s.authFor(i), clientName(s.myID, msg.CmdLink))
		l.ccConnTime = now
		l.dropPending()
		s.views.linkChanged(l)
		s.links.sendPing(i, now)
	}
	if i.kind != object.Sentinel && l.pc == 0 {
		l.pc = s.links.open(i, msg.PubSubLink, s.authFor(i), clientName(s.myID, msg.PubSubLink))
		l.pcConnTime = now
	}
}

// handleLinkClosed forgets a connection the adapter lost or could not
// open. The instance counts as unreachable from now on, unless it already
// was (a lost connection is evidence, like an unanswered PING; the SDOWN
// clock it starts is stopped only by a valid PING reply).
func (s *Sentinel) handleLinkClosed(in msg.LinkClosed, now int64) {
	ref, ok := s.links.refs[in.ID]
	if !ok {
		return
	}
	delete(s.links.refs, in.ID)
	l := ref.link
	typ := event.CmdLinkReconnection
	if ref.kind == msg.CmdLink && l.cc == in.ID {
		l.cc = 0
		l.ccUp = false
		l.dropPending()
	} else if ref.kind == msg.PubSubLink && l.pc == in.ID {
		l.pc = 0
		l.pcUp = false
		typ = event.PubSubLinkReconnection
	}
	if l.actPingTime == 0 {
		l.actPingTime = now
	}
	s.views.linkChanged(l)
	s.event(event.LevelDebug, typ, ref.inst, " #"+in.Err)
	// The instance probably went away: probe the command connection at
	// once, so that if it is dead too it is found closed now (the link
	// adapter notices a closed idle connection only when it next sends),
	// not when the periodic PINGs resume after the pub/sub link is back.
	if ref.kind == msg.PubSubLink && l.cc != 0 && l.ccUp && ref.inst.alive() {
		s.links.sendPing(ref.inst, now)
	}
}

// reply routes a CommandReply to what the command was for.
func (s *Sentinel) reply(now int64, in msg.CommandReply) {
	ref, ok := s.links.refs[in.ID]
	if !ok || ref.kind != msg.CmdLink || ref.link.cc != in.ID {
		return
	}
	p, ok := ref.link.pending[in.Tag]
	if !ok {
		return
	}
	delete(ref.link.pending, in.Tag)
	i := p.inst
	s.views.linkChanged(ref.link)
	flags := i.flags
	switch p.kind {
	case sentAsk:
		i.askPending = false
	case sentInfo:
		i.infoPending = false
	}
	switch p.kind {
	case sentPing:
		s.links.pingReply(i, in.Reply, now)
		if p.at != 0 && now >= p.at {
			ref.link.rtt, ref.link.hasRTT = now-p.at, true
		}
	case sentInfo:
		if in.Reply.Kind == msg.ReplyString && i.alive() {
			i.infoSentAt = p.at
			s.refreshFromInfo(i, in.Reply.Str, now)
		}
	case sentHello:
		if in.Reply.Kind != msg.ReplyError {
			i.lastPubTime = now
		}
	case sentAsk:
		i.askReply(in.Reply, p.about, now, &s.out)
	case sentExec:
		// The instance acknowledged a SLAVEOF transaction: ask at once
		// what it now is, rather than at the next INFO period. Not when
		// the SLAVEOF was refused: nothing changed, and the INFO would
		// only bring the same SLAVEOF again at once, each transaction
		// killing the instance's clients (a server-side FAILOVER
		// refuses SLAVEOF, yet runs the CLIENT KILL after it).
		if s.opts.Accel.InfoAfterExec && i.alive() && slaveOfTook(in.Reply, p.slaveOfAt) {
			s.links.sendPending(pending{kind: sentInfo, inst: i, at: s.lastTick}, "INFO")
		}
	case sentPauseExec:
		if i.alive() {
			i.master.pauseReply(in.Reply)
		}
	case sentLease:
		ref.link.leasePending = false
		s.leaseReply(p, in.Reply, now)
	}
	// A hello's or a PING's reply changes the link, and maybe the
	// flags; any other may change anything of the master.
	if (p.kind != sentHello && p.kind != sentPing) || i.flags != flags {
		s.views.changed(i.master)
	}
}

// slaveOfTook reports whether the EXEC reply r of a transaction that holds
// a SLAVEOF at place at (from 1; 0: none) ran it: no only when the
// transaction was refused (EXECABORT, an error reply) or the SLAVEOF's
// place in the reply array holds an error.
func slaveOfTook(r msg.Reply, at int) bool {
	switch {
	case r.Kind == msg.ReplyError:
		return false
	case r.Kind != msg.ReplyArray || at == 0 || at > len(r.Elems):
		return true
	}
	return r.Elems[at-1].Kind != msg.ReplyError
}

// alive reports whether an object is still part of the state (a
// reply may arrive after it was removed).
func (i *instance) alive() bool {
	return !i.removed && !i.master.removed
}
