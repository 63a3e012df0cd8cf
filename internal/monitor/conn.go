package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// pendingKind tells what a command sent on a link was, so its reply can be
// routed.
type pendingKind int

const (
	sentPing pendingKind = iota
	sentInfo
	sentHello
	sentAsk
	sentExec // the EXEC of a SLAVEOF transaction
	// sentPauseExec is the EXEC of the transaction that pauses a
	// master's writes (handover.go).
	sentPauseExec
	// sentLease is a SENTINEL LEASE (lease.go).
	sentLease
	sentOther
)

// pending is one command awaiting its reply.
type pending struct {
	kind pendingKind
	inst *instance // the object the command was sent for
	// at is when a PING was sent (Unix ms), or for an INFO the last
	// tick before it was sent; 0 for other commands.
	at int64
	// about is, for an IS-MASTER-DOWN-BY-ADDR, the master's addrGen when
	// it was asked.
	about uint64
	// slaveOfAt is, for the EXEC of a SLAVEOF transaction, where the
	// SLAVEOF's reply is in the EXEC reply, counting from 1; 0 for
	// every other command.
	slaveOfAt int
	// leaseMs and lease are, for a SENTINEL LEASE (whose at is its send
	// time), the lease's length and the masters asked about.
	leaseMs int64
	lease   []leaseTarget
}

// link is the connection state to one instance: a command connection and,
// for masters and replicas, a pub/sub one. Sentinel objects with the same
// run id under several masters share one link (refcount). Times are Unix
// ms, 0 = never.
type link struct {
	refcount int

	cc msg.LinkID // 0 when there is no command connection
	pc msg.LinkID // 0 when there is no pub/sub connection

	// ccUp and pcUp say that cc and pc are connected: a connection still
	// being dialled is not a live link (LinkConnected sets them).
	ccUp bool
	pcUp bool

	ccConnTime     int64
	pcConnTime     int64
	pcLastActivity int64
	lastReconnTime int64

	// actPingTime is when the instance stopped answering as far as we
	// know: the oldest PING without a valid reply, or the moment a
	// connection to it was lost or refused, whichever came first; 0 while
	// it answers. Reconnect attempts never move it; only a valid PING
	// reply clears it.
	actPingTime   int64
	lastPingTime  int64 // last PING sent
	lastAvailTime int64 // last valid PING reply
	lastPongTime  int64 // last PING reply of any kind

	// rtt is the round trip of the last PING answered, in ms, from its own
	// send time (a PING sent after it does not shorten it); hasRTT is
	// false until one was answered on this link.
	rtt    int64
	hasRTT bool

	localAddr settings.Addr // local address of the command connection, for hellos

	pending map[uint64]pending // commands sent on cc, by tag
	// leasePending: a SENTINEL LEASE sent on cc waits for its reply.
	leasePending bool
	// leaseRefusedOn is the command connection on which the peer
	// answered SENTINEL LEASE with an error (a redis-sentinel, which
	// never grants); 0: none.
	leaseRefusedOn msg.LinkID

	// cell is what the Views show of the link; viewDirty: it changed
	// since the last View stored it there (view_state.go).
	cell      view.LinkCell
	viewDirty bool
}

// dropPending forgets the commands awaiting replies (the connection they
// were sent on is gone).
func (l *link) dropPending() {
	for _, p := range l.pending {
		switch p.kind {
		case sentAsk:
			p.inst.askPending = false
		case sentInfo:
			p.inst.infoPending = false
		}
	}
	l.pending = map[uint64]pending{}
	l.leasePending = false
}

func newLink(now int64) *link {
	l := &link{
		refcount:      1,
		actPingTime:   now,
		lastAvailTime: now,
		lastPongTime:  now,
		pending:       map[uint64]pending{},
	}
	l.cell.Store(viewOfLink(l))
	return l
}

// refusesLeases reports whether the peer on the link's current command
// connection answered SENTINEL LEASE with an error: a redis-sentinel,
// which is not asked again for a conversion's leases (it never grants,
// and no redis-sentinel sends it one).
func (l *link) refusesLeases() bool { return l.cc != 0 && l.leaseRefusedOn == l.cc }

// unanswered is how long, in ms at now, the instance has not answered as
// far as this link knows (since actPingTime: the oldest PING without a
// valid reply, or the connection's loss); 0 while it answers.
func (l *link) unanswered(now int64) int64 {
	if l.actPingTime == 0 {
		return 0
	}
	return max(0, now-l.actPingTime)
}

// disconnected reports whether the link lacks a live connection it needs:
// the command one, or for masters and replicas the pub/sub one. A
// connection that is still being dialled does not count as live.
func (l *link) disconnected(k object.Kind) bool { return object.Disconnected(k, l.ccUp, l.pcUp) }

// missing reports whether a connection the link needs does not exist at
// all (not even being dialled), so that reconnect must open it.
func (l *link) missing(k object.Kind) bool {
	return l.cc == 0 || (k != object.Sentinel && l.pc == 0)
}
