package sim

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Client is a simulated Redis client, an application or redis-cli: an
// endpoint of its own (partitions can cut it off) with at most one
// connection at a time to a modelled server, on which it sends commands
// and receives their replies in order.
type Client struct {
	c *Cluster
	// Name is the client's endpoint name.
	Name string

	cn      *clientConn
	replies []ClientReply

	// onReply and onClose, when set, are told of each reply and of the
	// end of a connection (a Writer drives its client with them); a
	// client with onReply set keeps no replies of its own (a Writer
	// sends for the whole run, and Replies is for transcripts).
	onReply func(ClientReply)
	onClose func(reason string)
}

// ClientReply is one reply a Client received, stamped with the cluster
// time and the server that sent it, or the end of its connection (Closed
// is the reason; Command the first command left unanswered, if any).
type ClientReply struct {
	At      time.Time
	Server  string
	Command []string
	Reply   msg.Reply
	Closed  string
}

// String renders the reply as the trace does: "+OK", "-ERR ...", or
// "closed: <reason>".
func (r ClientReply) String() string {
	if r.Closed != "" {
		return "closed: " + r.Closed
	}
	return traceReply(r.Reply)
}

// clientConn is one connection of a Client to a server.
type clientConn struct {
	cl  *Client
	srv *Server

	up         bool
	dead       bool // closed; nothing more is delivered
	peerClosed bool // the server closed it; the reset is on its way

	queued   [][]string // sent before the connect completed
	inflight [][]string // sent, not yet answered, oldest first
	pipes    [2]pipe

	session // the server's state of the connection
}

// AddClient adds a Client called name, not connected yet.
func (c *Cluster) AddClient(name string) *Client {
	c.register(name)
	cl := &Client{c: c, Name: name}
	c.clients = append(c.clients, cl)
	return cl
}

// Client returns the Client called name, or nil.
func (c *Cluster) Client(name string) *Client {
	for _, cl := range c.clients {
		if cl.Name == name {
			return cl
		}
	}
	return nil
}

// Clients returns every Client (those of the Writers included), in the
// order they were added.
func (c *Cluster) Clients() []*Client { return append([]*Client(nil), c.clients...) }

// Connect closes the client's connection, if any, and opens one to the
// server called name; the connect completes after two one-way delays.
func (cl *Client) Connect(name string) {
	cl.c.mustKnow(name)
	s := cl.c.Server(name)
	if s == nil {
		cl.c.Fatalf("Connect: %q is not a server", name)
		return
	}
	cl.ConnectAddr(s.Addr)
}

// ConnectAddr is Connect to an address (nothing may listen there).
func (cl *Client) ConnectAddr(a settings.Addr) {
	c := cl.c
	cl.Close()
	cn := &clientConn{cl: cl, srv: c.serverAt(a)}
	cl.cn = cn
	c.clientConns = append(c.clientConns, cn)
	c.tracef(cl.Name, "connect %s:%d", a.Host, a.Port)
	c.sched.at(c.now.Add(c.latency()+c.latency()), func() { c.clientConnect(cn) })
}

// Connected reports whether the client has a connection up.
func (cl *Client) Connected() bool { return cl.cn != nil && cl.cn.up && !cl.cn.peerClosed }

// Server returns the server the client is connected or connecting to, or
// nil.
func (cl *Client) Server() *Server {
	if cl.cn == nil {
		return nil
	}
	return cl.cn.srv
}

// Close closes the client's connection at once, on both sides: what it
// sent and was not answered, held commands included, is dropped.
func (cl *Client) Close() {
	if cl.cn == nil {
		return
	}
	cl.c.dropClientConn(cl.cn)
	cl.c.tracef(cl.Name, "close")
}

// Send sends one command on the client's connection (queued until the
// connect completes); Fatalf without a connection.
func (cl *Client) Send(args ...string) {
	cn := cl.cn
	if cn == nil || len(args) == 0 {
		cl.c.Fatalf("Send %q: %s has no connection", args, cl.Name)
		return
	}
	if !cn.up {
		cn.queued = append(cn.queued, args)
		return
	}
	cl.c.clientTransmit(cn, args)
}

// Replies returns every reply the client received so far, in order.
func (cl *Client) Replies() []ClientReply { return append([]ClientReply(nil), cl.replies...) }

// Pending returns how many commands sent on the current connection are
// not answered yet (held by a pause, or on their way).
func (cl *Client) Pending() int {
	if cl.cn == nil {
		return 0
	}
	return len(cl.cn.queued) + len(cl.cn.inflight)
}

// clientConnect completes or refuses a Client's connect.
func (c *Cluster) clientConnect(cn *clientConn) {
	if cn.dead {
		return
	}
	s := cn.srv
	switch {
	case s == nil || s.crashed:
		c.clientClosed(cn, "Connection refused")
		return
	case !c.linkOK(cn.cl.Name, s.Name):
		c.clientClosed(cn, "No route to host")
		return
	}
	cn.up = true
	c.tracef(cn.cl.Name, "connected to %s", s.Name)
	q := cn.queued
	cn.queued = nil
	for _, a := range q {
		if cn.dead {
			return
		}
		c.clientTransmit(cn, a)
	}
}

// clientTransmit puts a command on the wire; the server runs it when it
// arrives (or holds it while paused) and its reply travels back.
func (c *Cluster) clientTransmit(cn *clientConn, args []string) {
	cn.inflight = append(cn.inflight, args)
	c.clientPush(cn, upstream, traceArgs(args), func() {
		s := cn.srv
		if cn.peerClosed || s.crashed {
			return
		}
		c.serve(s, &cn.session, args, func(r msg.Reply) {
			c.clientPush(cn, downstream, traceReply(r), func() { c.clientDeliver(cn, r) })
		})
	})
}

// clientDeliver hands a reply to the client: it answers the oldest
// command in flight.
func (c *Cluster) clientDeliver(cn *clientConn, r msg.Reply) {
	if len(cn.inflight) == 0 {
		c.fail("%s: reply %s to no command", cn.cl.Name, traceReply(r))
		return
	}
	cmd := cn.inflight[0]
	cn.inflight = cn.inflight[1:]
	cl := cn.cl
	rep := ClientReply{At: c.now, Server: cn.srv.Name, Command: cmd, Reply: r}
	if cl.onReply != nil {
		cl.onReply(rep)
		return
	}
	cl.replies = append(cl.replies, rep)
}

// resetClientConn is the server closing or losing a Client's connection:
// the client learns it after the replies already on their way.
func (c *Cluster) resetClientConn(cn *clientConn, reason string) {
	if cn.dead || cn.peerClosed {
		return
	}
	cn.peerClosed = true
	cn.session.close()
	if !cn.up {
		return // the connect itself fails when it completes
	}
	c.clientPush(cn, downstream, "reset: "+reason, func() { c.clientClosed(cn, reason) })
}

// clientClosed ends a Client's connection from the far side: what was
// not answered is lost, and the client is told.
func (c *Cluster) clientClosed(cn *clientConn, reason string) {
	if cn.dead {
		return
	}
	cl := cn.cl
	rep := ClientReply{At: c.now, Closed: reason}
	if cn.srv != nil {
		rep.Server = cn.srv.Name
	}
	if len(cn.inflight) > 0 {
		rep.Command = cn.inflight[0]
	} else if len(cn.queued) > 0 {
		rep.Command = cn.queued[0]
	}
	c.dropClientConn(cn)
	c.tracef(cl.Name, "connection closed: %s", reason)
	if cl.onReply == nil {
		cl.replies = append(cl.replies, rep)
	}
	if cl.onClose != nil {
		cl.onClose(reason)
	}
}

// dropClientConn forgets a Client's connection on both sides.
func (c *Cluster) dropClientConn(cn *clientConn) {
	if cn.dead {
		return
	}
	cn.dead = true
	cn.session.close()
	cn.pipes = [2]pipe{}
	if cn.cl.cn == cn {
		cn.cl.cn = nil
	}
	for i, x := range c.clientConns {
		if x == cn {
			c.clientConns = append(c.clientConns[:i], c.clientConns[i+1:]...)
			break
		}
	}
}

// clientPush sends a packet on one half of a Client's connection, after a
// random delay but never before the packets ahead of it.
func (c *Cluster) clientPush(cn *clientConn, d direction, what string, fn func()) {
	c.clientWake(cn, d, c.enqueue(&cn.pipes[d], what, fn))
}

// clientWake schedules the delivery of a pipe's head packets at t (or
// now).
func (c *Cluster) clientWake(cn *clientConn, d direction, t time.Time) {
	c.arm(&cn.pipes[d], t, func() { c.clientRun(cn, d) })
}

// clientRun delivers the due packets of a pipe, unless the path is cut
// (then the pipe stalls until Heal).
func (c *Cluster) clientRun(cn *clientConn, d direction) {
	p := &cn.pipes[d]
	p.wake = false
	from, to := cn.cl.Name, cn.srv.Name
	if d == downstream {
		from, to = to, from
	}
	if cn.dead || !c.reachable(from, to) || c.cut[[2]string{cn.cl.Name, cn.srv.Name}] {
		return
	}
	for len(p.q) > 0 && !p.q[0].ready.After(c.now) {
		pk := p.q[0]
		p.q = p.q[1:]
		c.tracef(to, "<- %s %s", from, pk.what)
		pk.fn()
		if cn.dead {
			return
		}
	}
	if len(p.q) > 0 {
		c.clientWake(cn, d, p.q[0].ready)
	}
}

// healClients wakes the stalled pipes of the Clients' connections.
func (c *Cluster) healClients() {
	for _, cn := range c.clientConns {
		for d := range cn.pipes {
			if len(cn.pipes[d].q) > 0 && !cn.pipes[d].wake {
				c.clientWake(cn, direction(d), c.now.Add(c.latency()))
			}
		}
	}
}

// AskMaster asks the Sentinel node called node for the address of master,
// as SENTINEL GET-MASTER-ADDR-BY-NAME on a fresh connection from the
// client: after the connect and a round trip, done gets the address and
// true, or false and why (no such master, node down, no route).
func (cl *Client) AskMaster(node, master string, done func(a settings.Addr, ok bool, why string)) {
	c := cl.c
	c.mustKnow(node)
	n := c.Node(node)
	if n == nil {
		c.Fatalf("AskMaster: %q is not a Sentinel node", node)
		return
	}
	reach := func() string {
		switch {
		case n.crashed:
			return "Connection refused"
		case !c.linkOK(cl.Name, n.Name):
			return "No route to host"
		}
		return ""
	}
	c.sched.at(c.now.Add(c.latency()+c.latency()+c.latency()), func() {
		if why := reach(); why != "" {
			c.tracef(cl.Name, "ask %s for %s: %s", node, master, why)
			done(settings.Addr{}, false, why)
			return
		}
		a, ok := n.Core.View().MasterAddr(master)
		c.sched.at(c.now.Add(c.latency()), func() {
			if !ok {
				done(settings.Addr{}, false, "no such master")
				return
			}
			c.tracef(cl.Name, "%s says %s is at %s:%d", node, master, a.Host, a.Port)
			done(a, true, "")
		})
	})
}
