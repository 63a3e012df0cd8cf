package monitor

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// maxPendingPerRef bounds the commands waiting for a reply on a link, per
// object sharing it; periodic commands are skipped beyond it.
const maxPendingPerRef = 100

// clientName is the CLIENT SETNAME Sentinel uses on its connections.
func (s *Sentinel) clientName(k LinkKind) string {
	id := s.myID
	if len(id) > 8 {
		id = id[:8]
	}
	return fmt.Sprintf("sentinel-%s-%s", id, k)
}

// authFor returns the credentials to send to inst: the master's auth-pass
// and auth-user for masters and replicas; sentinel-user/sentinel-pass, or
// else requirepass, for other Sentinels.
func (s *Sentinel) authFor(i *instance) Auth {
	if i.kind == object.Sentinel {
		if s.global.SentinelPass != "" {
			return Auth{User: s.global.SentinelUser, Pass: s.global.SentinelPass}
		}
		if s.opts.RequirePass != "" {
			return Auth{Pass: s.opts.RequirePass}
		}
		return Auth{}
	}
	m := i.master
	if m.settings.AuthPass == "" {
		return Auth{}
	}
	return Auth{User: m.settings.AuthUser, Pass: m.settings.AuthPass}
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
		period = min(period, s.opts.Accel.scaled(fast, period, s.troubled))
	}
	if since(now, l.lastReconnTime) < period {
		return
	}
	l.lastReconnTime = now
	if l.cc == 0 {
		l.cc = s.openLink(i, CmdLink)
		l.ccConnTime = now
		l.dropPending()
		s.views.linkChanged(l)
		s.sendPing(i, now)
	}
	if i.kind != object.Sentinel && l.pc == 0 {
		l.pc = s.openLink(i, PubSubLink)
		l.pcConnTime = now
	}
}

func (s *Sentinel) openLink(i *instance, k LinkKind) LinkID {
	s.nextLinkID++
	id := s.nextLinkID
	s.links[id] = linkRef{link: i.link, kind: k, inst: i}
	a := OpenLink{
		ID:         id,
		Kind:       k,
		Addr:       i.addr,
		Auth:       s.authFor(i),
		ClientName: s.clientName(k),
		Renames:    i.master.renameMap(),
	}
	if k == PubSubLink {
		a.Channel = gossip.Channel
	}
	s.out.act(a)
	return id
}

// closeCC drops the command connection; pending commands are forgotten.
func (s *Sentinel) closeCC(l *link) {
	if l.cc == 0 {
		return
	}
	s.out.act(CloseLink{ID: l.cc})
	delete(s.links, l.cc)
	l.cc = 0
	l.ccUp = false
	l.dropPending()
	s.views.linkChanged(l)
}

func (s *Sentinel) closePC(l *link) {
	if l.pc == 0 {
		return
	}
	s.out.act(CloseLink{ID: l.pc})
	delete(s.links, l.pc)
	l.pc = 0
	l.pcUp = false
	s.views.linkChanged(l)
}

// closeLinks drops both connections of an instance (they are reopened by
// the next ticks).
func (s *Sentinel) closeLinks(i *instance) {
	s.closeCC(i.link)
	s.closePC(i.link)
	s.views.linkChanged(i.link)
}

// send queues a command on an instance's command connection. The first
// word goes through the master's rename-command map.
func (s *Sentinel) send(i *instance, k pendingKind, args ...string) bool {
	l := i.link
	if l.cc == 0 {
		return false
	}
	args[0] = i.master.rename(args[0])
	s.nextTag++
	l.pending[s.nextTag] = pending{kind: k, inst: i}
	s.views.linkChanged(l)
	switch k {
	case sentAsk:
		i.askPending = true
	case sentInfo:
		i.infoPending = true
		l.pending[s.nextTag] = pending{kind: k, inst: i, at: s.lastTick}
	}
	s.out.act(Send{ID: l.cc, Tag: s.nextTag, Args: args})
	return true
}

func (s *Sentinel) sendPing(i *instance, now int64) bool {
	if !s.send(i, sentPing, "PING") {
		return false
	}
	l := i.link
	p := l.pending[s.nextTag]
	p.at = now
	l.pending[s.nextTag] = p
	l.lastPingTime = now
	if l.actPingTime == 0 {
		l.actPingTime = now
	}
	return true
}

// handleLinkConnected marks a connection live once its dial succeeded.
func (s *Sentinel) handleLinkConnected(in LinkConnected) {
	ref, ok := s.links[in.ID]
	if !ok {
		return
	}
	l := ref.link
	if ref.kind == CmdLink && l.cc == in.ID {
		l.ccUp = true
	} else if ref.kind == PubSubLink && l.pc == in.ID {
		l.pcUp = true
	}
	s.views.linkChanged(l)
}

// handleLinkClosed forgets a connection the adapter lost or could not
// open. The instance counts as unreachable from now on, unless it already
// was (a lost connection is evidence, like an unanswered PING; the SDOWN
// clock it starts is stopped only by a valid PING reply).
func (s *Sentinel) handleLinkClosed(in LinkClosed, now int64) {
	ref, ok := s.links[in.ID]
	if !ok {
		return
	}
	delete(s.links, in.ID)
	l := ref.link
	typ := event.CmdLinkReconnection
	if ref.kind == CmdLink && l.cc == in.ID {
		l.cc = 0
		l.ccUp = false
		l.dropPending()
	} else if ref.kind == PubSubLink && l.pc == in.ID {
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
	if ref.kind == PubSubLink && l.cc != 0 && l.ccUp && ref.inst.alive() {
		s.sendPing(ref.inst, now)
	}
}

// reply routes a CommandReply to what the command was for.
func (s *Sentinel) reply(now int64, in CommandReply) {
	ref, ok := s.links[in.ID]
	if !ok || ref.kind != CmdLink || ref.link.cc != in.ID {
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
		s.pingReply(i, in.Reply, now)
		if p.at != 0 && now >= p.at {
			ref.link.rtt, ref.link.hasRTT = now-p.at, true
		}
	case sentInfo:
		if in.Reply.Kind == ReplyString && i.alive() {
			i.infoSentAt = p.at
			s.refreshFromInfo(i, in.Reply.Str, now)
		}
	case sentHello:
		if in.Reply.Kind != ReplyError {
			i.lastPubTime = now
		}
	case sentAsk:
		s.askReply(i, in.Reply, p.about, now)
	case sentExec:
		// The instance acknowledged a SLAVEOF transaction: ask at once
		// what it now is, rather than at the next INFO period. Not when
		// the SLAVEOF was refused: nothing changed, and the INFO would
		// only bring the same SLAVEOF again at once, each transaction
		// killing the instance's clients (a server-side FAILOVER
		// refuses SLAVEOF, yet runs the CLIENT KILL after it).
		if s.opts.Accel.InfoAfterExec && i.alive() && slaveOfTook(in.Reply, p.slaveOfAt) {
			s.send(i, sentInfo, "INFO")
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
func slaveOfTook(r Reply, at int) bool {
	switch {
	case r.Kind == ReplyError:
		return false
	case r.Kind != ReplyArray || at == 0 || at > len(r.Elems):
		return true
	}
	return r.Elems[at-1].Kind != ReplyError
}

// alive reports whether an object is still part of the state (a
// reply may arrive after it was removed).
func (i *instance) alive() bool {
	return !i.removed && !i.master.removed
}

// pingReply applies a PING reply (§3.5): PONG, LOADING and MASTERDOWN are
// valid; anything else only counts as a reply.
func (s *Sentinel) pingReply(i *instance, r Reply, now int64) {
	l := i.link
	if r.Kind == ReplyString || r.Kind == ReplyError {
		str := r.Str
		if hasPrefix(str, "PONG") || hasPrefix(str, "LOADING") || hasPrefix(str, "MASTERDOWN") {
			l.lastAvailTime = now
			l.actPingTime = 0
			if hasPrefix(str, "PONG") {
				i.flags &^= object.MasterReboot
			}
		} else if hasPrefix(str, "BUSY") && i.has(object.SDown) && !i.has(object.ScriptKillSent) {
			if s.send(i, sentOther, "SCRIPT", "KILL") {
				i.flags |= object.ScriptKillSent
			}
		}
	}
	l.lastPongTime = now
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
