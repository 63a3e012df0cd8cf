package respserver

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// outQueueLen bounds the replies and pushes waiting to be written to one
// client; a client that lets it fill up is disconnected, like Redis's
// pub/sub output buffer limit.
const outQueueLen = 4096

// Client is one connection to the Sentinel's port. Its reader goroutine
// runs commands in order; its writer goroutine writes replies and pushes in
// the order they were queued.
type Client struct {
	ID    int64
	srv   *Server
	conn  net.Conn
	addr  string
	laddr string
	born  time.Time

	out    chan []byte
	done   chan struct{}
	closer sync.Once
	// pending counts the bytes queued on out and not yet written
	// (INFO's client_recent_max_output_buffer samples it).
	pending atomic.Int64

	mu            sync.Mutex
	proto         int
	name          string
	libName       string // CLIENT SETINFO LIB-NAME
	libVer        string // CLIENT SETINFO LIB-VER
	user          string
	authenticated bool
	lastCmd       string
	lastActive    time.Time
	channels      map[string]bool
	patterns      map[string]bool

	// state is CLIENT REPLY/TRACKING/NO-EVICT state, used by the
	// connection's own reader goroutine.
	state clientState
}

func newClient(srv *Server, id int64, conn net.Conn, now time.Time) *Client {
	c := &Client{
		ID:         id,
		srv:        srv,
		conn:       conn,
		addr:       conn.RemoteAddr().String(),
		laddr:      conn.LocalAddr().String(),
		born:       now,
		out:        make(chan []byte, outQueueLen),
		done:       make(chan struct{}),
		proto:      2,
		user:       "default",
		lastCmd:    "NULL",
		lastActive: now,
		channels:   map[string]bool{},
		patterns:   map[string]bool{},
	}
	c.authenticated = srv.users.DefaultOpen()
	go c.writeLoop()
	return c
}

// send queues v for writing, encoded for the client's protocol.
func (c *Client) send(v Value) {
	c.mu.Lock()
	proto := c.proto
	c.mu.Unlock()
	c.srv.stats.countErrors(v)
	c.sendRaw(Encode(nil, v, proto))
}

// sendRaw queues already encoded bytes; if the queue is full the client is
// too slow and is closed.
func (c *Client) sendRaw(b []byte) {
	if b != nil && len(b) == 0 {
		return
	}
	select {
	case <-c.done:
	case c.out <- b:
		c.pending.Add(int64(len(b)))
	default:
		c.close()
	}
}

func (c *Client) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case b := <-c.out:
			// Batch what is already queued into one write; a nil entry
			// means "close after what came before it".
			closing := b == nil
			for !closing {
				select {
				case nb := <-c.out:
					if nb == nil {
						closing = true
					} else {
						b = append(b, nb...)
					}
					continue
				default:
				}
				break
			}
			if len(b) > 0 {
				_, err := c.conn.Write(b)
				c.pending.Add(-int64(len(b)))
				if err != nil {
					c.close()
					return
				}
			}
			if closing {
				c.close()
				return
			}
		}
	}
}

// closeAfterReplies closes the connection once everything queued so far
// has been written.
func (c *Client) closeAfterReplies() { c.sendRaw(nil) }

// close ends the connection once; both goroutines stop.
func (c *Client) close() {
	c.closer.Do(func() {
		close(c.done)
		c.conn.Close()
	})
}

func (c *Client) subscriptions() int {
	return len(c.channels) + len(c.patterns)
}

// validClientName reports whether name is acceptable for CLIENT SETNAME
// and CLIENT SETINFO (Redis's validateClientAttr): no spaces, newlines or
// other characters outside '!'..'~'.
func validClientName(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] < '!' || name[i] > '~' {
			return false
		}
	}
	return true
}

// info is the CLIENT LIST / CLIENT INFO line of c, in Redis 7.2's field
// order: 7.0's, then lib-name and lib-ver (fields Sentinel has no use for
// have Redis's idle values).
func (c *Client) info(now time.Time) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	flags := "N"
	if c.subscriptions() > 0 {
		flags = "P"
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=0 sub=%d psub=%d ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=16384 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=%s redir=-1 resp=%d lib-name=%s lib-ver=%s\n",
		c.ID, c.addr, c.laddr, c.ID+7, c.name, int(now.Sub(c.born).Seconds()), int(now.Sub(c.lastActive).Seconds()),
		flags, len(c.channels), len(c.patterns), strings.ToLower(c.lastCmd), c.user, c.proto, c.libName, c.libVer)
}
