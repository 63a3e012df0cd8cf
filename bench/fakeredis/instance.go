package fakeredis

import (
	"net"
	"time"

	"github.com/tidwall/redcon"
)

// Instance is one fake Redis server listening on its own port.
type Instance struct {
	fleet  *Fleet
	host   string
	port   int
	runID  string
	replID string
	ln     net.Listener

	// Guarded by fleet.mu.
	alive   bool
	diedAt  time.Time
	master  string // host:port of the master it replicates from; "" for a master
	clients map[*client]struct{}
	subs    map[string]map[*client]struct{} // subscribers by channel
}

// Addr is the instance's host:port.
func (i *Instance) Addr() string { return joinHostPort(i.host, i.port) }

// Host is the IP address the instance listens on.
func (i *Instance) Host() string { return i.host }

// Port is the TCP port the instance listens on.
func (i *Instance) Port() int { return i.port }

// RunID is the instance's 40-character run id.
func (i *Instance) RunID() string { return i.runID }

// Alive reports whether the instance has not been killed.
func (i *Instance) Alive() bool {
	i.fleet.mu.Lock()
	defer i.fleet.mu.Unlock()
	return i.alive
}

// Master returns the host:port the instance replicates from, "" for a
// master.
func (i *Instance) Master() string {
	i.fleet.mu.Lock()
	defer i.fleet.mu.Unlock()
	return i.master
}

// serve accepts connections until the instance is killed.
func (i *Instance) serve() {
	_ = redcon.Serve(i.ln, i.handle, i.accept, i.closed)
}

// accept registers a new connection; it refuses one that races with Kill.
func (i *Instance) accept(conn redcon.Conn) bool {
	c := &client{inst: i, nc: conn.NetConn()}
	i.fleet.mu.Lock()
	defer i.fleet.mu.Unlock()
	if !i.alive {
		return false
	}
	i.clients[c] = struct{}{}
	conn.SetContext(c)
	return true
}

// closed forgets a connection redcon has finished with, unless it was
// handed to a subscriber loop (which forgets it itself).
func (i *Instance) closed(conn redcon.Conn, _ error) {
	c, ok := conn.Context().(*client)
	if !ok || c.subscribed {
		return
	}
	i.forget(c)
}

// forget removes c from the instance's tables.
func (i *Instance) forget(c *client) {
	i.fleet.mu.Lock()
	defer i.fleet.mu.Unlock()
	delete(i.clients, c)
	for ch, set := range i.subs {
		delete(set, c)
		if len(set) == 0 {
			delete(i.subs, ch)
		}
	}
}

// client is one connection to an instance.
type client struct {
	inst *Instance
	nc   net.Conn

	// Owned by the connection's goroutine.
	inMulti    bool
	queued     []redcon.Command
	subscribed bool // set before the connection is detached
	sub        *subscriber
}
