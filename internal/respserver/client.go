package respserver

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// replyBacklog is how much reply output a normal client may have waiting
// before its reader stops reading its next command until the writer caught
// up. Redis sets no limit on normal clients (class normal 0 0 0) and lets
// the output grow; stopping to read keeps the memory of a client that sends
// without reading bounded, and changes nothing else it can see. Pub/sub
// clients are read on and closed at their class's limits, as in Redis.
const replyBacklog = 1 << 20

// replyBuffer is the size of the reply buffer every Redis client has and
// of the blocks of its reply list (PROTO_REPLY_CHUNK_BYTES). Redis's
// checkClientOutputBufferLimits counts only the list, in whole blocks: a
// client-output-buffer-limit below 16 KiB does not close a client for one
// INFO reply, and closes it as soon as its output overflows the buffer
// (limitUsage).
const replyBuffer = 16 << 10

// limitUsage is the output a client-output-buffer-limit is checked
// against when queued bytes wait to be written: what overflows Redis's
// reply buffer, rounded up to its list's 16 KiB blocks.
func limitUsage(queued int64) int64 {
	over := queued - replyBuffer
	if over <= 0 {
		return 0
	}
	return (over + replyBuffer - 1) / replyBuffer * replyBuffer
}

// writeChunk is how many bytes of small replies are gathered into one
// write.
const writeChunk = 64 << 10

// Client is one connection to the Sentinel's port. Its reader goroutine
// runs commands in order; its output (replies and pub/sub pushes) is
// queued in order and written by a writer goroutine that runs while there
// is something to write.
type Client struct {
	ID    int64
	srv   *Server
	conn  net.Conn
	addr  string
	laddr string
	// born and lastActive (under mu) are unix nanoseconds of the server's
	// clock: 16 bytes where two time.Time take 48.
	born int64

	// done is closed when the client closes; made on first use (doneChan),
	// under outMu: an idle client does not pay for it.
	done   chan struct{}
	closer sync.Once
	// outMu guards the output queue. A nil entry in out means "close the
	// connection once what comes before it is written".
	outMu      sync.Mutex
	outCond    sync.Cond // on outMu; signalled when output was written or the client closed
	out        [][]byte
	outBytes   int64 // queued or being written
	writing    bool  // a writer goroutine, or the reader inline, is writing
	held       bool  // the reader is running commands: it writes their replies itself (hold, release)
	closing    bool  // a close marker is queued: nothing more is queued
	closed     bool
	softSince  int64 // unix second the pub/sub soft limit was first reached, 0 if not
	pubsubMode atomic.Bool

	// parkable is set when the connection can be parked (canPark);
	// parkArmed when its socket is registered in the server's epoll
	// instance (guarded by the server's parker.mu).
	parkable  bool
	parkArmed bool
	// raw is the socket under conn for tryWrite, set on its first use.
	raw syscall.RawConn
	// group holds what the core answered to the asks and hellos being
	// run as a group (loopGroup); only the reader goroutine uses it.
	group *loopGroup

	// loop is the state of a client served by an event loop (loop.go);
	// nil for a client served by goroutines.
	loop *loopState

	mu            sync.Mutex
	proto         int
	name          string
	libName       string // CLIENT SETINFO LIB-NAME
	libVer        string // CLIENT SETINFO LIB-VER
	user          string
	authenticated bool
	lastCmd       string
	lastActive    int64
	// channels and patterns are the subscriptions, nil until the first
	// (an idle client costs less); they change under both mu and the
	// hub's lock.
	channels map[string]bool
	patterns map[string]bool

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
		born:       now.UnixNano(),
		proto:      2,
		user:       "default",
		lastCmd:    "NULL",
		lastActive: now.UnixNano(),
		parkable:   canPark(conn),
	}
	c.outCond.L = &c.outMu
	c.authenticated = srv.users.DefaultOpen()
	return c
}

// send queues v for writing, encoded for the client's protocol.
func (c *Client) send(v Value) {
	c.mu.Lock()
	proto := c.proto
	c.mu.Unlock()
	c.srv.stats.countErrors(v)
	if c.loop != nil {
		c.sendValue(v, proto)
		return
	}
	c.sendRaw(Encode(nil, v, proto))
}

// sendRaw queues already encoded bytes (nil: the close marker) and starts
// the writer if it is not running. A client of the pub/sub class whose
// queue goes over its output buffer limits is closed, as Redis closes it.
func (c *Client) sendRaw(b []byte) {
	if b != nil && len(b) == 0 {
		return
	}
	c.outMu.Lock()
	if c.closed || c.closing {
		c.outMu.Unlock()
		return
	}
	c.out = append(c.out, b)
	if c.loop != nil {
		c.loop.open = false // b is not the client's to extend
	}
	c.queuedLocked(int64(len(b)), b == nil)
}

// queuedLocked is the rest of queueing n bytes (a close marker when
// marker is set) that the caller has just added to c's output under
// outMu, which it releases: it starts the writer (or submits a flush to
// c's loop) unless a reader holds the output, and closes c when its
// output is over its class's limits.
func (c *Client) queuedLocked(n int64, marker bool) {
	c.outBytes += n
	c.closing = marker
	var start bool
	if c.loop != nil {
		start = !c.held && !c.loop.flushQueued
		c.loop.flushQueued = c.loop.flushQueued || start
	} else {
		start = !c.writing && !c.held
		c.writing = c.writing || start
	}
	var now int64
	if lim := c.limitLocked(); lim.Soft > 0 && limitUsage(c.outBytes) >= lim.Soft {
		now = c.srv.now().Unix() // only the soft limit needs the clock
	}
	over := c.overLimitLocked(now)
	c.outMu.Unlock()
	if over {
		c.srv.log.Warningf("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", c.infoLine())
		c.close()
		return
	}
	if start {
		if c.loop != nil {
			c.submitFlush()
		} else {
			c.startWriter()
		}
	}
}

// limitLocked is the output limit of c's class. Callers hold outMu.
func (c *Client) limitLocked() OutputLimit {
	if c.pubsubMode.Load() {
		return c.srv.outputLimits.PubSub
	}
	return c.srv.outputLimits.Normal
}

// overLimitLocked is Redis's checkClientOutputBufferLimits for the
// client's class at the unix second now, keeping the soft limit's start
// time up to date. Callers hold outMu.
func (c *Client) overLimitLocked(now int64) bool {
	lim := c.limitLocked()
	used := limitUsage(c.outBytes)
	hard := lim.Hard > 0 && used >= lim.Hard
	soft := false
	if lim.Soft > 0 && used >= lim.Soft {
		if c.softSince == 0 {
			c.softSince = now
		} else {
			soft = now-c.softSince > int64(lim.SoftSeconds)
		}
	} else {
		c.softSince = 0
	}
	return hard || soft
}

// checkOutputLimits is the once-a-second check of the soft limit, for a
// client whose queue stopped growing: it closes the client and returns
// true when a limit is reached.
func (c *Client) checkOutputLimits(now int64) bool {
	c.outMu.Lock()
	over := !c.closed && c.outBytes > 0 && c.overLimitLocked(now)
	c.outMu.Unlock()
	if over {
		c.srv.log.Warningf("Client %s closed for overcoming of output buffer limits.", c.infoLine())
		c.close()
	}
	return over
}

// hold is called by c's reader before it runs a command: what is queued
// from then on waits for release instead of starting the writer
// goroutine, so a request/response client's replies are written by its
// reader, in one write per read, without a goroutine and a wake-up per
// reply. A pub/sub client is not held: pushes reach it from other
// goroutines at any time.
func (c *Client) hold() {
	if c.pubsubMode.Load() {
		return
	}
	c.outMu.Lock()
	c.held = true
	c.outMu.Unlock()
}

// release ends a hold and writes what is queued. For a normal client on
// a TCP or unix socket the reader first writes it itself, without
// blocking (tryWrite): a request/response client's reply then costs no
// goroutine and no wake-up. What the socket does not take at once, a
// pub/sub client's output and a TLS client's go to the writer goroutine,
// so the reader goes on reading as before (backpressure at replyBacklog).
// The reader calls release before every read and before it waits for its
// output, so nothing queued waits for the client's next request.
func (c *Client) release() {
	c.outMu.Lock()
	if !c.held {
		c.outMu.Unlock()
		return
	}
	c.held = false
	if c.loop != nil {
		// Written by the client's loop (releaseToLoop).
		c.releaseToLoopLocked()
		return
	}
	if c.writing || c.closed || len(c.out) == 0 {
		c.outMu.Unlock()
		return
	}
	c.writing = true
	if !c.parkable || c.pubsubMode.Load() {
		c.outMu.Unlock()
		c.startWriter()
		return
	}
	batch := c.out
	c.out = nil
	c.outMu.Unlock()

	buf, ok := joinReplies(batch)
	n := 0
	if ok {
		n = c.tryWrite(buf)
	}
	c.outMu.Lock()
	if n > 0 {
		c.outBytes -= int64(n)
		c.outCond.Broadcast()
	}
	switch {
	case !ok:
		c.out = append(batch, c.out...)
	case n < len(buf):
		c.out = append([][]byte{buf[n:]}, c.out...)
	}
	if len(c.out) == 0 || c.closed {
		c.writing = false
		c.outMu.Unlock()
		return
	}
	c.outMu.Unlock()
	c.startWriter()
}

// joinReplies returns the queued replies of batch as one buffer to write
// inline, and false when batch holds the close marker or more than
// writeChunk bytes (those go to the writer goroutine as they are).
func joinReplies(batch [][]byte) ([]byte, bool) {
	if len(batch) == 1 {
		return batch[0], batch[0] != nil
	}
	size := 0
	for _, b := range batch {
		if b == nil {
			return nil, false
		}
		size += len(b)
	}
	if size > writeChunk {
		return nil, false
	}
	buf := make([]byte, 0, size)
	for _, b := range batch {
		buf = append(buf, b...)
	}
	return buf, true
}

// releasingReader is the reader of a connection's requests: it releases
// the client's held replies before each read, which may block.
type releasingReader struct {
	r io.Reader
	c *Client
}

func (r releasingReader) Read(p []byte) (int, error) {
	r.c.release()
	return r.r.Read(p)
}

// startWriter starts the writer goroutine (writeLoop) of c; the caller
// has set c.writing.
func (c *Client) startWriter() {
	c.srv.stats.writerStarts.Add(1)
	go c.writeLoop()
}

// writeLoop writes the queue in order until it is empty, a close marker
// is reached or writing fails. Small replies waiting together are written
// in one call (up to writeChunk bytes).
func (c *Client) writeLoop() {
	var scratch []byte
	for {
		c.outMu.Lock()
		if len(c.out) == 0 || c.closed {
			c.writing = false
			c.outCond.Broadcast()
			c.outMu.Unlock()
			return
		}
		batch := c.out
		c.out = nil
		c.outMu.Unlock()

		closing := false
		var err error
		flush := func(b []byte) {
			if err != nil || len(b) == 0 {
				return
			}
			_, err = c.conn.Write(b)
			c.outMu.Lock()
			c.outBytes -= int64(len(b))
			c.outCond.Broadcast()
			c.outMu.Unlock()
		}
		for _, b := range batch {
			if b == nil {
				closing = true
				break
			}
			if len(b) >= writeChunk {
				flush(scratch)
				scratch = scratch[:0]
				flush(b)
				continue
			}
			scratch = append(scratch, b...)
			if len(scratch) >= writeChunk {
				flush(scratch)
				scratch = scratch[:0]
			}
		}
		flush(scratch)
		scratch = scratch[:0]
		if cap(scratch) > 4*writeChunk {
			scratch = nil
		}
		if err != nil || closing {
			c.close()
			c.outMu.Lock()
			c.writing = false
			c.outMu.Unlock()
			return
		}
	}
}

// waitOutput blocks while more than replyBacklog bytes wait to be written
// to c (see replyBacklog), and returns early when c closes.
func (c *Client) waitOutput() {
	c.outMu.Lock()
	over := c.outBytes > replyBacklog
	c.outMu.Unlock()
	if !over {
		return
	}
	c.release()
	c.outMu.Lock()
	for c.outBytes > replyBacklog && !c.closed {
		c.outCond.Wait()
	}
	c.outMu.Unlock()
}

// waitWritten blocks until everything queued has been written or c is
// closed, for at most d.
func (c *Client) waitWritten(d time.Duration) {
	c.release()
	t := time.AfterFunc(d, c.close)
	defer t.Stop()
	c.outMu.Lock()
	for (c.writing || len(c.out) > 0) && !c.closed {
		c.outCond.Wait()
	}
	c.outMu.Unlock()
}

// closeAfterReplies closes the connection once everything queued so far
// has been written.
func (c *Client) closeAfterReplies() { c.sendRaw(nil) }

// close ends the connection once: the reader stops at its next read, the
// writer at its next write, and queued output is dropped. A parked client,
// which no reader serves, is forgotten (unparkClosed).
func (c *Client) close() {
	c.closer.Do(func() {
		c.outMu.Lock()
		c.closed = true
		c.out, c.outBytes = nil, 0
		c.outCond.Broadcast()
		if c.done != nil {
			close(c.done)
		}
		c.outMu.Unlock()
		if c.loop != nil {
			c.loop.nc.Close()
			return
		}
		c.conn.Close()
		c.srv.unparkClosed(c)
	})
}

// doneChan returns a channel closed when c closes.
func (c *Client) doneChan() <-chan struct{} {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.closed {
			close(c.done)
		}
	}
	return c.done
}

// isClosed reports whether close was called.
func (c *Client) isClosed() bool {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return c.closed
}

// outputUsage returns the bytes and entries waiting to be written.
func (c *Client) outputUsage() (bytes int64, entries int) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return c.outBytes, len(c.out)
}

// infoLine is the client's CLIENT LIST line without its newline, as Redis
// logs clients.
func (c *Client) infoLine() string {
	return strings.TrimSuffix(c.info(c.srv.now()), "\n")
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
	omem, oll := c.outputUsage()
	c.mu.Lock()
	defer c.mu.Unlock()
	flags := "N"
	if c.subscriptions() > 0 {
		flags = "P"
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=0 sub=%d psub=%d ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=16384 rbp=0 obl=0 oll=%d omem=%d tot-mem=0 events=r cmd=%s user=%s redir=-1 resp=%d lib-name=%s lib-ver=%s\n",
		c.ID, c.addr, c.laddr, c.ID+7, c.name, int(time.Duration(now.UnixNano()-c.born).Seconds()), int(time.Duration(now.UnixNano()-c.lastActive).Seconds()),
		flags, len(c.channels), len(c.patterns), oll, omem, strings.ToLower(c.lastCmd), c.user, c.proto, c.libName, c.libVer)
}
