package fakeredis

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"time"
)

// writeTimeout bounds a write to a client, so that one that stopped reading
// cannot stall its publishers for long.
const writeTimeout = time.Second

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
	for {
		nc, err := i.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		c := &client{inst: i, nc: nc, wr: bufio.NewWriterSize(nc, 4096)}
		i.fleet.mu.Lock()
		alive := i.alive
		if alive {
			i.clients[c] = struct{}{}
		}
		i.fleet.mu.Unlock()
		if !alive {
			_ = nc.Close()
			continue
		}
		go c.serve()
	}
}

// client is one connection to an instance, served by its own goroutine.
type client struct {
	inst *Instance
	nc   net.Conn

	wmu sync.Mutex // guards wr: the connection's goroutine and publishers write
	wr  *bufio.Writer

	// Owned by the connection's goroutine.
	inMulti bool
	queued  [][][]byte
	out     reply

	// Guarded by fleet.mu; non-nil once the client subscribed.
	channels map[string]struct{}
	// resp3 is set by HELLO 3 (guarded by fleet.mu): pub/sub confirmations
	// and messages then come as push frames, any command may be sent
	// while subscribed, and INFO is a verbatim string, as Redis 7.0 does.
	resp3 bool
}

// serve reads and answers commands until the connection ends.
func (c *client) serve() {
	defer c.drop()
	rd := bufio.NewReaderSize(c.nc, 4096)
	for {
		args, err := readCommand(rd)
		if err != nil {
			if errors.Is(err, errProtocol) {
				var r reply
				r.err("ERR " + err.Error())
				c.write(r, true)
			}
			return
		}
		if len(args) == 0 {
			continue // Redis skips an empty multibulk
		}
		c.out = c.out[:0]
		quit := c.inst.dispatch(c, args)
		if !c.write(c.out, rd.Buffered() == 0) || quit {
			return
		}
	}
}

// write appends b to the connection's output and flushes it when asked;
// it reports false when the connection failed.
func (c *client) write(b []byte, flush bool) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := c.wr.Write(b); err != nil {
		return false
	}
	if flush {
		return c.wr.Flush() == nil
	}
	return true
}

// drop closes the connection and forgets it.
func (c *client) drop() {
	_ = c.nc.Close()
	i := c.inst
	i.fleet.mu.Lock()
	defer i.fleet.mu.Unlock()
	delete(i.clients, c)
	for ch := range c.channels {
		delete(i.subs[ch], c)
		if len(i.subs[ch]) == 0 {
			delete(i.subs, ch)
		}
	}
}
