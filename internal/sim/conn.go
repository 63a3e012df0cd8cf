package sim

import (
	"fmt"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// direction names one half of a connection.
type direction int

const (
	upstream   direction = iota // node → target (requests)
	downstream                  // target → node (replies, messages, resets)
)

// packet is one message travelling on one half of a connection. fn runs
// when it arrives.
type packet struct {
	ready time.Time
	what  string
	fn    func()
}

// pipe is one direction of a connection: a FIFO, so packets arrive in the
// order they were sent. While the path is partitioned the pipe stalls and
// keeps its packets; Heal wakes it.
type pipe struct {
	q    []packet
	wake bool // a wake-up item is scheduled
}

// conn is one simulated TCP connection opened by a node's OpenLink, to a
// modelled Redis server or to another Sentinel node.
type conn struct {
	id    uint64
	label string // "s1>r0 L3 cmd", for the trace

	from *Node
	inc  int // the incarnation of from that opened it
	link msg.LinkID
	kind msg.LinkKind
	addr settings.Addr

	toSrv  *Server
	toNode *Node

	dead       bool // closed on the node's side; nothing more is delivered
	up         bool // connected
	peerClosed bool // the target closed or lost it; a reset is on its way
	// unnoticed is the reason of a reset of an idle command connection
	// that the node has not noticed yet: like the daemon's link adapter,
	// it notices only when it next sends on it.
	unnoticed string

	outstanding map[uint64]bool // tags sent, not yet answered
	queued      []msg.Send      // sent before the connect completed

	pipes [2]pipe

	// Server side.
	channel    string // what the pub/sub link subscribes to
	subscribed bool
	session    // a Redis server's state of the connection
}

// target is the endpoint name of the other side ("" if nothing listens).
func (cn *conn) target() string {
	switch {
	case cn.toSrv != nil:
		return cn.toSrv.Name
	case cn.toNode != nil:
		return cn.toNode.Name
	}
	return ""
}

// connsSnapshot returns the open connections in id order, safe to iterate
// while closing them.
func (c *Cluster) connsSnapshot() []*conn { return append([]*conn(nil), c.conns...) }

// openConn starts a connection for an OpenLink; the connect completes
// after two one-way delays.
func (c *Cluster) openConn(n *Node, a msg.OpenLink) {
	if n.conns[a.ID] != nil {
		c.fail("%s: OpenLink reuses live link id %d", n.Name, a.ID)
		return
	}
	c.nextConn++
	cn := &conn{
		id:          c.nextConn,
		from:        n,
		inc:         n.inc,
		link:        a.ID,
		kind:        a.Kind,
		addr:        a.Addr,
		toSrv:       c.serverAt(a.Addr),
		toNode:      c.nodeAt(a.Addr),
		channel:     a.Channel,
		outstanding: map[uint64]bool{},
	}
	to := cn.target()
	if to == "" {
		to = fmt.Sprintf("%s:%d", a.Addr.Host, a.Addr.Port)
	}
	cn.label = fmt.Sprintf("%s>%s L%d %s", n.Name, to, a.ID, a.Kind)
	n.conns[a.ID] = cn
	c.conns = append(c.conns, cn)
	c.tracef(n.Name, "open %s", cn.label)
	c.sched.at(c.now.Add(c.latency()+c.latency()), func() { c.connect(cn) })
}

// connect completes or refuses a connection attempt.
func (c *Cluster) connect(cn *conn) {
	if cn.dead {
		return
	}
	name := cn.target()
	switch {
	case name == "" || cn.peerClosed || (cn.toSrv != nil && cn.toSrv.crashed) || (cn.toNode != nil && cn.toNode.crashed):
		c.closeFromPeer(cn, "Connection refused")
		return
	case !c.linkOK(cn.from.Name, name):
		c.closeFromPeer(cn, "No route to host")
		return
	}
	cn.up = true
	cn.from.nextPort++
	c.tracef(cn.from.Name, "connected %s", cn.label)
	c.step(cn.from, msg.LinkConnected{ID: cn.link})
	if cn.dead {
		return
	}
	if cn.kind == msg.CmdLink {
		c.step(cn.from, msg.LinkLocalAddr{ID: cn.link, Addr: settings.Addr{Host: cn.from.IP, Port: cn.from.nextPort}})
	} else if cn.toSrv != nil {
		cn.subscribed = true
		c.push(cn, downstream, "subscribe confirmation", func() {
			c.step(cn.from, msg.PubSubActivity{ID: cn.link})
		})
	}
	q := cn.queued
	cn.queued = nil
	for _, s := range q {
		if cn.dead {
			return
		}
		c.transmit(cn, s)
	}
}

// sendOn carries out a Send: queued until the connect completes, then
// transmitted.
func (c *Cluster) sendOn(cn *conn, s msg.Send) {
	if cn.kind != msg.CmdLink {
		c.fail("%s: Send on a pub/sub link: %q", cn.label, s.Args)
		return
	}
	if cn.outstanding[s.Tag] {
		c.fail("%s: tag %d sent twice", cn.label, s.Tag)
		return
	}
	cn.outstanding[s.Tag] = true
	if !cn.up {
		cn.queued = append(cn.queued, s)
		return
	}
	if reason := cn.unnoticed; reason != "" {
		cn.unnoticed = ""
		c.push(cn, downstream, "reset: "+reason, func() { c.closeFromPeer(cn, reason) })
		return
	}
	c.transmit(cn, s)
}

// transmit puts a request on the wire; the target answers when it arrives.
func (c *Cluster) transmit(cn *conn, s msg.Send) {
	args := s.Args
	c.push(cn, upstream, fmt.Sprintf("#%d %s", s.Tag, traceArgs(args)), func() {
		if cn.peerClosed {
			return // the target is gone; its reset follows
		}
		tag := s.Tag
		answer := func(r msg.Reply) {
			c.push(cn, downstream, fmt.Sprintf("#%d %s", tag, traceReply(r)), func() {
				c.deliverReply(cn, tag, r)
			})
		}
		switch {
		case cn.toSrv != nil:
			if cn.toSrv.crashed {
				return
			}
			c.serve(cn.toSrv, &cn.session, args, answer)
		case cn.toNode != nil:
			if cn.toNode.crashed {
				return
			}
			answer(c.sentinelCommand(cn.toNode, args))
		default:
			answer(msg.Reply{})
		}
	})
}

// deliverReply hands a reply to the node that sent the command.
func (c *Cluster) deliverReply(cn *conn, tag uint64, r msg.Reply) {
	if !cn.outstanding[tag] {
		c.fail("%s: reply to tag %d that is not outstanding (duplicate or unknown)", cn.label, tag)
		return
	}
	delete(cn.outstanding, tag)
	c.step(cn.from, msg.CommandReply{ID: cn.link, Tag: tag, Reply: r})
}

// enqueue appends a packet to p, after a random delay but never before
// the packets ahead of it, and returns when p's head packet is due.
func (c *Cluster) enqueue(p *pipe, what string, fn func()) time.Time {
	ready := c.now.Add(c.latency())
	if n := len(p.q); n > 0 && ready.Before(p.q[n-1].ready) {
		ready = p.q[n-1].ready
	}
	p.q = append(p.q, packet{ready: ready, what: what, fn: fn})
	return p.q[0].ready
}

// arm schedules run, which delivers p's due packets, at t (or now),
// unless a wake-up is scheduled already.
func (c *Cluster) arm(p *pipe, t time.Time, run func()) {
	if p.wake {
		return
	}
	if t.Before(c.now) {
		t = c.now
	}
	p.wake = true
	c.sched.at(t, run)
}

// push sends a packet on one half of cn, after a random delay but never
// before the packets ahead of it.
func (c *Cluster) push(cn *conn, d direction, what string, fn func()) {
	c.wakePipe(cn, d, c.enqueue(&cn.pipes[d], what, fn))
}

// wakePipe schedules the delivery of a pipe's head packets at t (or now).
func (c *Cluster) wakePipe(cn *conn, d direction, t time.Time) {
	c.arm(&cn.pipes[d], t, func() { c.runPipe(cn, d) })
}

// runPipe delivers the packets of a pipe that are due, unless the path is
// partitioned (then the pipe stalls until Heal).
func (c *Cluster) runPipe(cn *conn, d direction) {
	p := &cn.pipes[d]
	p.wake = false
	if cn.dead || !c.pathOpen(cn, d) {
		return
	}
	if r := cn.receiver(d); r != nil && r.stalled() {
		c.wakePipe(cn, d, r.stallEnd) // the kernel holds it for the stopped process
		return
	}
	for len(p.q) > 0 && !p.q[0].ready.After(c.now) {
		pk := p.q[0]
		p.q = p.q[1:]
		if d == upstream {
			c.tracef(cn.target(), "<- %s %s", cn.label, pk.what)
		} else {
			c.tracef(cn.from.Name, "-> %s %s", cn.label, pk.what)
		}
		pk.fn()
		if cn.dead {
			return
		}
	}
	if len(p.q) > 0 {
		c.wakePipe(cn, d, p.q[0].ready)
	}
}

// receiver is the Sentinel node that takes what travels on half d of
// cn, or nil when a server does.
func (cn *conn) receiver(d direction) *Node {
	if d == upstream {
		return cn.toNode
	}
	return cn.from
}

// pathOpen reports whether packets can currently travel on that half: a
// CutOneWay of the node's connections to the target stalls both.
func (c *Cluster) pathOpen(cn *conn, d direction) bool {
	to := cn.target()
	if c.cut[[2]string{cn.from.Name, to}] {
		return false
	}
	if d == upstream {
		return c.reachable(cn.from.Name, to)
	}
	return c.reachable(to, cn.from.Name)
}

// dropConn forgets a connection at once, on both sides (the node closed
// it, or the node died). Nothing more is delivered on it.
func (c *Cluster) dropConn(cn *conn) {
	if cn.dead {
		return
	}
	cn.dead = true
	cn.subscribed = false
	cn.session.close()
	cn.outstanding = nil
	cn.queued = nil
	cn.pipes = [2]pipe{}
	if cn.from.conns[cn.link] == cn {
		delete(cn.from.conns, cn.link)
	}
	for i, x := range c.conns {
		if x == cn {
			c.conns = append(c.conns[:i], c.conns[i+1:]...)
			break
		}
	}
}

// resetConn is the target closing or losing a connection: it stops
// serving it, and the node learns it (LinkClosed) after the replies already
// on their way, like a FIN or RST would.
func (c *Cluster) resetConn(cn *conn, reason string) {
	if cn.dead || cn.peerClosed {
		return
	}
	cn.peerClosed = true
	cn.subscribed = false
	cn.session.close()
	if !cn.up {
		return // the connect itself fails when it completes
	}
	if cn.kind == msg.CmdLink && len(cn.outstanding) == 0 {
		cn.unnoticed = reason
		return
	}
	c.push(cn, downstream, "reset: "+reason, func() { c.closeFromPeer(cn, reason) })
}

// closeFromPeer ends a connection from the far side: pending commands are
// lost and the node gets LinkClosed.
func (c *Cluster) closeFromPeer(cn *conn, reason string) {
	if cn.dead {
		return
	}
	n := cn.from
	c.tracef(n.Name, "link closed %s: %s", cn.label, reason)
	c.dropConn(cn)
	if n.crashed || n.inc != cn.inc {
		return
	}
	if n.stalled() {
		if n.closing == nil {
			n.closing = map[msg.LinkID]bool{}
		}
		n.closing[cn.link] = true
	}
	c.step(n, msg.LinkClosed{ID: cn.link, Err: reason})
}
