package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// linkTable owns the connections the core asks the adapter for: it numbers
// them (LinkID) and the commands sent on them (tags), finds the link an id
// belongs to, counts the objects sharing a link, and turns opening,
// closing and sending into actions in the outbox. An id is in refs
// exactly while it is the cc or the pc of its link; every change to a
// link it makes is recorded in views.
type linkTable struct {
	nextID  msg.LinkID
	nextTag uint64
	refs    map[msg.LinkID]linkRef
	out     *outbox
	views   *viewState
}

// linkRef finds the link a connection id belongs to.
type linkRef struct {
	link *link
	kind msg.LinkKind
	inst *instance // an object using the link (for logging)
}

// clientName is the CLIENT SETNAME a Sentinel with run id myID uses on
// its connections of kind k.
func clientName(myID string, k msg.LinkKind) string {
	if len(myID) > 8 {
		myID = myID[:8]
	}
	return "sentinel-" + myID + "-" + k.String()
}

// open asks for a new connection of kind k to i, authenticating with
// auth and naming itself name, and returns its id.
func (t *linkTable) open(i *instance, k msg.LinkKind, auth msg.Auth, name string) msg.LinkID {
	t.nextID++
	id := t.nextID
	t.refs[id] = linkRef{link: i.link, kind: k, inst: i}
	a := msg.OpenLink{
		ID:         id,
		Kind:       k,
		Addr:       i.addr,
		Auth:       auth,
		ClientName: name,
		Renames:    i.master.renameMap(),
	}
	if k == msg.PubSubLink {
		a.Channel = gossip.Channel
	}
	t.out.act(a)
	return id
}

// closeCC drops the command connection; pending commands are forgotten.
func (t *linkTable) closeCC(l *link) {
	if l.cc == 0 {
		return
	}
	t.out.act(msg.CloseLink{ID: l.cc})
	delete(t.refs, l.cc)
	l.cc = 0
	l.ccUp = false
	l.dropPending()
	t.views.linkChanged(l)
}

// closePC drops the pub/sub connection.
func (t *linkTable) closePC(l *link) {
	if l.pc == 0 {
		return
	}
	t.out.act(msg.CloseLink{ID: l.pc})
	delete(t.refs, l.pc)
	l.pc = 0
	l.pcUp = false
	t.views.linkChanged(l)
}

// closeLinks drops both connections of an instance (they are reopened by
// the next ticks).
func (t *linkTable) closeLinks(i *instance) {
	t.closeCC(i.link)
	t.closePC(i.link)
	t.views.linkChanged(i.link)
}

// closeData closes the connections to a master and its replicas so that
// new credentials are used.
func (t *linkTable) closeData(m *master) {
	t.closeLinks(&m.instance)
	for _, r := range m.sortedReplicas() {
		t.closeLinks(r)
	}
}

// release drops an object's use of its link, closing the connections if
// it was the last user.
func (t *linkTable) release(i *instance) {
	i.link.refcount--
	t.views.linkChanged(i.link)
	if i.link.refcount <= 0 {
		t.closeLinks(i)
	}
}

// send queues a command of kind k on i's command connection (sendPending).
func (t *linkTable) send(i *instance, k pendingKind, args ...string) bool {
	return t.sendPending(pending{kind: k, inst: i}, args...)
}

// sendPending queues a command on the command connection of p.inst and
// keeps p for its reply; it reports false, sending nothing, when there is
// no command connection. The first word goes through the master's
// rename-command map. An ASK or an INFO marks the instance as waiting
// for its reply.
func (t *linkTable) sendPending(p pending, args ...string) bool {
	i := p.inst
	l := i.link
	if l.cc == 0 {
		return false
	}
	args[0] = i.master.rename(args[0])
	t.nextTag++
	l.pending[t.nextTag] = p
	t.views.linkChanged(l)
	switch p.kind {
	case sentAsk:
		i.askPending = true
	case sentInfo:
		i.infoPending = true
	}
	t.out.act(msg.Send{ID: l.cc, Tag: t.nextTag, Args: args})
	return true
}

// sendPing sends i a PING at now, which starts its unanswered-PING clock
// if it was not running.
func (t *linkTable) sendPing(i *instance, now int64) bool {
	if !t.sendPending(pending{kind: sentPing, inst: i, at: now}, "PING") {
		return false
	}
	l := i.link
	l.lastPingTime = now
	if l.actPingTime == 0 {
		l.actPingTime = now
	}
	return true
}

// connected marks a connection live once its dial succeeded.
func (t *linkTable) connected(in msg.LinkConnected) {
	ref, ok := t.refs[in.ID]
	if !ok {
		return
	}
	l := ref.link
	if ref.kind == msg.CmdLink && l.cc == in.ID {
		l.ccUp = true
	} else if ref.kind == msg.PubSubLink && l.pc == in.ID {
		l.pcUp = true
	}
	t.views.linkChanged(l)
}

// pingReply applies a PING reply (§3.5): PONG, LOADING and MASTERDOWN are
// valid; anything else only counts as a reply. A BUSY reply from an
// instance in SDOWN gets SCRIPT KILL, once.
func (t *linkTable) pingReply(i *instance, r msg.Reply, now int64) {
	l := i.link
	if r.Kind == msg.ReplyString || r.Kind == msg.ReplyError {
		str := r.Str
		if hasPrefix(str, "PONG") || hasPrefix(str, "LOADING") || hasPrefix(str, "MASTERDOWN") {
			l.lastAvailTime = now
			l.actPingTime = 0
			if hasPrefix(str, "PONG") {
				i.flags &^= object.MasterReboot
			}
		} else if hasPrefix(str, "BUSY") && i.has(object.SDown) && !i.has(object.ScriptKillSent) {
			if t.send(i, sentOther, "SCRIPT", "KILL") {
				i.flags |= object.ScriptKillSent
			}
		}
	}
	l.lastPongTime = now
}

// hasPrefix reports whether s begins with p.
func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// killClients sends i the transaction that makes its clients reconnect
// and lifts the pause: CONFIG REWRITE, CLIENT KILL TYPE normal and
// pubsub, CLIENT UNPAUSE.
func (t *linkTable) killClients(i *instance) {
	if i.link.cc == 0 {
		return
	}
	t.send(i, sentOther, "MULTI")
	t.send(i, sentOther, "CONFIG", "REWRITE")
	t.send(i, sentOther, "CLIENT", "KILL", "TYPE", "normal")
	t.send(i, sentOther, "CLIENT", "KILL", "TYPE", "pubsub")
	t.send(i, sentOther, "CLIENT", "UNPAUSE")
	t.send(i, sentExec, "EXEC")
}
