package respserver

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// Plain TCP clients are served by event loops (internal/netloop) instead
// of a goroutine each: their socket is taken out of its net.TCPConn and
// registered in one of the server's loops, which reads it, parses the
// requests and runs the commands that answer at once (loopCommand) on
// its own goroutine, and writes a client's replies of one batch of events
// in one write(2), once the batch is read (loopShard).
// An idle client is its descriptor in the loop, its Client and its
// loopState: no goroutine, no read buffer (its request reader goes back
// to the server's pool once it holds no partial request), no net.Conn.
//
// A command that may wait (one that steps the core, CLIENT PAUSE's hold,
// SHUTDOWN, file I/O) runs on a worker goroutine instead: the loop stops
// reading the client, hands it the request reader with what it has
// buffered, and the worker runs that command and every whole request
// buffered behind it, in order, its replies queued as any client's and
// written by the loop (submitFlush). When it is done it gives the client
// back to the loop (workDone), which reads it again. No client can stall
// a loop: its writes never block (what the kernel refuses waits in
// netloop's pending bytes, counted in the client's output), and nothing
// run on it waits for anything.
//
// TLS clients (their bytes may sit decrypted in crypto/tls), unix socket
// clients and, with Options.Loops < 0 or where epoll is missing, every
// client keep the goroutine path (serveCommands, park_linux.go).

// defaultLoops is how many loops serve the plain TCP clients when
// Options.Loops is 0. Measured on 2 cores with redis-benchmark -c 50
// (PING, GET-MASTER-ADDR-BY-NAME), two loops served no more than one
// (91.4k against 91.3k PING/s), and a loop parked in Go's netpoller
// (netloop.NewParking) took less CPU per request than one blocking in
// epoll_wait (4.9–5.6 µs against 5.7–6.2 µs, and less of the client's
// CPU: the blocking loop's yield wakes the other P): the port is idle
// most of the time, and a loop that parks costs nothing then.
const defaultLoops = 1

// loopLinger is how long a loop that served events waits for more in
// the kernel before it parks in Go's netpoller (netloop.Loop.SetLinger):
// redis-benchmark's 50 clients send their next requests within
// microseconds of their replies, which a loop that parks at once takes
// through the netpoller and the scheduler at every wake-up. Measured on
// 2 cores shared with other work (redis-benchmark -c 50 PING, two
// rounds, redis-sentinel in the same run at 133.3k and 135.0k/s): parking
// at once 132.9k and 132.8k/s at 4.25–4.95 µs of the Sentinel's CPU per
// request, lingering 20 µs 104.7k (a round disturbed by other work) and
// 146.3k, 100 µs 152.2k and 143.5k at 5.7 µs, 500 µs 146.3k and 145.5k
// at 5.45–5.75 µs. Lingering answers sooner, so each wake-up finds fewer
// requests, and costs more CPU per request; while it waits the loop's
// thread sleeps, holding its P for at most loopLinger.
const loopLinger = 100 * time.Microsecond

// useLoops is whether plain TCP clients are served by loops at all; the
// tests clear it to run every test on the goroutine path too (TestMain).
var useLoops = true

// loopState is what a client served by a loop has besides its Client.
type loopState struct {
	nc    *netloop.Conn
	shard *loopShard

	// flushQueued (under the client's outMu) is set while a flush of the
	// client's output is submitted to its loop and has not run.
	flushQueued bool
	// open (under outMu) is set while the last entry of the client's
	// output is a buffer of its own, which the next reply extends
	// (sendValue) instead of taking an entry of its own.
	open bool
	// spare (under outMu) is an empty buffer lent by the shard for the
	// client's next replies; it goes back to the shard when the client
	// is idle (loopResume).
	spare []byte
	// pending (under outMu) is how many bytes handed to nc it had not
	// written yet when last looked at; they stay counted in outBytes.
	pending int64

	// The rest belongs to the loop goroutine, and rd to the worker while
	// busy is set.
	rd *loopReader
	// busy: a worker runs the client's commands; the loop does not read
	// it. stopped: the client is closing, nothing more is read or run.
	// backpressured: reading paused until the output drains below
	// replyBacklog. dirty: the client is in its shard's list, its output
	// to be written at the end of the loop's batch.
	busy, stopped, backpressured, dirty bool
}

// loopShard is a loop and the clients whose replies it writes at the end
// of its current batch of events (endBatch): all the replies of one batch
// go out after all its requests were read, as Redis writes its clients'
// replies before it sleeps, so that a client running many connections
// (redis-benchmark) finds many replies per wake-up.
type loopShard struct {
	l     *netloop.Loop
	dirty []*Client

	// The output buffers, queues and request readers the clients of the
	// loop borrow while they are served (shard_buffers.go), the buffer
	// that joins a client's replies for one write, and the ctx its
	// commands run with.
	bufs    [][]byte
	outs    [][][]byte
	readers []*loopReader
	scratch []byte
	x       ctx
}

// endBatch writes the output of the clients served in the batch, and
// reads them again or pauses them (loopResume).
func (sh *loopShard) endBatch() {
	for i, c := range sh.dirty {
		sh.dirty[i] = nil
		c.loop.dirty = false
		c.srv.loopFlush(c)
		c.srv.loopResume(c)
	}
	sh.dirty = sh.dirty[:0]
}

// errFeedEmpty is what a loopReader's source returns when the bytes of
// the current read are all taken.
var errFeedEmpty = errors.New("no more bytes in this read")

// feed is the source of a loopReader: the bytes of one read(2), valid
// only during the loop's OnData call, or none.
type feed struct{ b []byte }

func (f *feed) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, errFeedEmpty
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// loopReader is the request reader of a client served by a loop, fed one
// read at a time; the server's pool keeps the idle ones.
type loopReader struct {
	requestReader
	in feed
	c  *Client
}

// mustAuth is the reader's authRequired: whether its client must still
// authenticate.
func (r *loopReader) mustAuth() bool {
	c := r.c
	c.mu.Lock()
	authed := c.authenticated
	c.mu.Unlock()
	return !authed && !c.srv.users.DefaultOpen()
}

// keep moves the bytes of the current read not yet taken into the
// reader's buffer, before the read's buffer goes back to the loop. The
// reader is between requests (no big argument being read).
func (r *loopReader) keep() {
	if len(r.in.b) > 0 {
		r.buf = append(r.buf, r.in.b...)
		r.in.b = nil
	}
}

// idleLoopClients is how many clients served by loops hold no request
// reader (the tests' measure of idle).
func (s *Server) idleLoopClients() int64 { return s.loopClients.Load() - s.loopReaders.Load() }

// loops is the server's loop group, a shard per loop, and the pool of
// idle request readers.
type loops struct {
	once    sync.Once
	group   *netloop.Group
	shards  []*loopShard
	next    atomic.Uint32
	readers sync.Pool
}

// loopFor returns the loop that is to serve conn, or nil when conn is
// served by goroutines: not plain TCP, loops off (Options.Loops < 0), or
// not available (logged once).
func (s *Server) loopFor(conn net.Conn) *loopShard {
	if _, ok := conn.(*net.TCPConn); !ok || !useLoops || s.opts.Loops < 0 {
		return nil
	}
	s.loops.once.Do(func() {
		n := s.opts.Loops
		if n == 0 {
			n = defaultLoops
		}
		g, err := netloop.NewParking(n)
		if err != nil {
			s.log.Verbosef("Clients served by goroutines: %v", err)
			return
		}
		for range g.Len() {
			sh := &loopShard{l: g.Next()}
			if err := sh.l.SetLinger(loopLinger); err != nil {
				g.Close()
				s.log.Verbosef("Clients served by goroutines: %v", err)
				return
			}
			if err := sh.l.SetBatchEnd(sh.endBatch); err != nil {
				g.Close()
				s.log.Verbosef("Clients served by goroutines: %v", err)
				return
			}
			s.loops.shards = append(s.loops.shards, sh)
		}
		s.loops.group = g
	})
	if s.loops.group == nil {
		return nil
	}
	return s.loops.shards[int(s.loops.next.Add(1)-1)%len(s.loops.shards)]
}

// closeLoops closes the loops (every client on them is closed and
// forgotten) once; Close calls it before waiting for the workers.
func (s *Server) closeLoops() {
	s.loops.once.Do(func() {}) // no group after this
	if s.loops.group != nil {
		s.loops.group.Close()
	}
}

// takeConn makes c a client of sh's loop: its socket leaves tc (closed)
// for it. Called by serveConn before c is known to anyone else.
func (s *Server) takeConn(c *Client, tc *net.TCPConn, sh *loopShard) error {
	st := &loopState{shard: sh}
	nc, err := netloop.Take(tc, loopHandler{c})
	if err != nil {
		return err
	}
	st.nc = nc
	c.loop = st
	c.conn = nil
	c.parkable = false
	s.loopClients.Add(1)
	return nil
}

// loopHandler is a client's netloop.Handler.
type loopHandler struct{ c *Client }

// OnData serves the bytes of one read.
func (h loopHandler) OnData(_ *netloop.Conn, b []byte) {
	c := h.c
	c.srv.stats.netInput.Add(int64(len(b)))
	if c.loop.stopped || c.loop.busy {
		return
	}
	c.srv.serveLoop(c, b)
}

// OnDrain takes the written bytes out of the client's output, and reads
// the client again if it was paused for its backlog.
func (h loopHandler) OnDrain(*netloop.Conn) {
	c := h.c
	st := c.loop
	c.outMu.Lock()
	if !c.closed {
		c.outBytes -= st.pending
	}
	st.pending = 0
	c.outCond.Broadcast()
	c.outMu.Unlock()
	if st.backpressured && !st.busy && !st.stopped {
		st.backpressured = false
		c.srv.serveLoop(c, nil)
	}
}

// OnClose forgets the client.
func (h loopHandler) OnClose(_ *netloop.Conn, _ error) {
	c := h.c
	c.loop.stopped = true
	c.srv.loopClients.Add(-1)
	c.srv.forget(c)
	if c.loop.rd != nil && !c.loop.busy {
		c.srv.putReader(c.loop.rd)
		c.loop.rd = nil
	}
}

// getReader returns a request reader for c: one its shard keeps, else
// one from the pool.
func (s *Server) getReader(c *Client) *loopReader {
	r := c.loop.shard.takeReader()
	if r == nil {
		r, _ = s.loops.readers.Get().(*loopReader)
	}
	if r == nil {
		r = &loopReader{}
		r.requestReader = *newRequestReader(&r.in, s.opts.QueryBufferLimit, s.opts.MaxBulkLen, r.mustAuth)
	}
	r.c = c
	s.loopReaders.Add(1)
	return r
}

// putReader gives an idle reader back to its client's shard, or to the
// pool when the shard keeps enough or its buffer is large (at most 4 ×
// readChunk). On the client's loop only.
func (s *Server) putReader(r *loopReader) {
	s.loopReaders.Add(-1)
	if !r.idle() {
		return // a partial request: let it go
	}
	sh := r.c.loop.shard
	r.release()
	r.c, r.in.b = nil, nil
	r.lastSize, r.taken, r.mark = 0, 0, 0
	if !sh.giveReader(r) {
		s.loops.readers.Put(r)
	}
}

// serveLoop runs the requests of c that the bytes of one read (and those
// it buffered before) complete, on c's loop, then writes their replies.
// A request that must run off the loop hands c to a worker.
func (s *Server) serveLoop(c *Client, b []byte) {
	st := c.loop
	if st.rd == nil {
		if len(b) == 0 {
			s.loopFlush(c)
			s.loopResume(c)
			return
		}
		st.rd = s.getReader(c)
	}
	rd := st.rd
	rd.in.b = b
	rd.reuse = true
	sh := st.shard
	c.outMu.Lock()
	c.held = true
	if c.out == nil {
		c.out = sh.takeOut()
	}
	if st.spare == nil {
		st.spare = sh.takeBuf()
	}
	c.outMu.Unlock()
	now := s.now()
	for !st.stopped {
		if s.overBacklog(c) {
			s.loopFlush(c)
			if s.overBacklog(c) {
				rd.keep()
				st.backpressured = true
				break
			}
			c.outMu.Lock()
			c.held = true
			c.outMu.Unlock()
		}
		args, err := rd.next()
		if errors.Is(err, errFeedEmpty) {
			break
		}
		if err != nil {
			s.readFailed(c, &rd.requestReader, err)
			st.stopped = true
			break
		}
		spec, errv := lookup(args, s.opts.Surface)
		if !s.loopCommand(spec) {
			// The worker keeps args while it reads on.
			args = cloneArgs(args)
			rd.reuse = false
			rd.keep()
			st.busy = true
			st.nc.PauseRead()
			s.loopFlush(c)
			s.wg.Add(1)
			go s.work(c, rd, args)
			return
		}
		s.stats.noteQuery(rd.lastSize, now)
		if !s.dispatchFound(c, args, spec, errv, now.UnixNano(), &sh.x) {
			st.stopped = true
		}
	}
	rd.in.b = nil
	if !st.dirty {
		st.dirty = true
		st.shard.dirty = append(st.shard.dirty, c)
	}
}

// loopResume, after c's requests ran, pauses reading c while its output
// is over replyBacklog (a normal client; pub/sub clients are read on and
// closed at their limits), reads it again otherwise, and gives its reader
// back when it holds no partial request.
func (s *Server) loopResume(c *Client) {
	st := c.loop
	if st.stopped || st.busy || st.nc.Closed() {
		return
	}
	if st.backpressured || s.overBacklog(c) {
		st.backpressured = true
		st.nc.PauseRead()
		return
	}
	st.nc.ResumeRead()
	if st.rd != nil && st.rd.idle() {
		s.putReader(st.rd)
		st.rd = nil
		sh := st.shard
		c.outMu.Lock()
		if len(c.out) == 0 && c.out != nil {
			sh.giveOut(c.out)
			c.out = nil
		}
		if st.spare != nil {
			sh.giveBuf(st.spare)
			st.spare = nil
		}
		c.outMu.Unlock()
	}
}

// overBacklog reports whether c is a normal client with more than
// replyBacklog bytes of output waiting.
func (s *Server) overBacklog(c *Client) bool {
	if c.pubsubMode.Load() {
		return false
	}
	c.outMu.Lock()
	over := c.outBytes > replyBacklog
	c.outMu.Unlock()
	return over
}

// readFailed ends c after its request reader failed: a malformed request
// gets Redis's error and c closes once it is written; a request over the
// query buffer limit closes c at once. Both are logged as Redis logs
// them.
func (s *Server) readFailed(c *Client, rd *requestReader, err error) {
	var pe *protocolError
	switch {
	case errors.As(err, &pe):
		s.log.Verbosef("Protocol error (%s) from client: %s. %s", pe.Reason, c.infoLine(), rd.sample())
		s.reply(c, Err("ERR "+pe.Reply)) // CLIENT REPLY OFF silences it too, as in Redis
		c.closeAfterReplies()
	case errors.Is(err, errQueryBufferLimit):
		s.log.Warningf("Closing client that reached max query buffer length: %s (qbuf initial bytes: %s)", c.infoLine(), rd.head(64))
		c.close()
	default:
		c.close()
	}
}

// sendValue queues v, encoded for proto, for a client served by a loop:
// appended to the client's own buffer when its output ends with one (the
// replies of one read then fill one buffer, written by one write), else
// encoded into its spare buffer (or a new one) that becomes its own.
func (c *Client) sendValue(v Value, proto int) {
	st := c.loop
	c.outMu.Lock()
	if c.closed || c.closing {
		c.outMu.Unlock()
		return
	}
	n := 0
	if k := len(c.out) - 1; st.open && k >= 0 && len(c.out[k]) < openReplyMax {
		before := len(c.out[k])
		c.out[k] = v.appendTo(c.out[k], proto)
		n = len(c.out[k]) - before
	} else {
		b := v.appendTo(st.spare, proto)
		if len(b) == 0 {
			st.spare = b
			c.outMu.Unlock()
			return
		}
		st.spare = nil
		c.out = append(c.out, b)
		st.open = true
		n = len(b)
	}
	if n == 0 {
		c.outMu.Unlock()
		return
	}
	c.queuedLocked(int64(n), false)
}

// submitFlush has c's loop write its output; the caller set
// flushQueued.
func (c *Client) submitFlush() {
	_ = c.loop.shard.l.Submit(func() { c.srv.loopFlush(c) })
}

// releaseToLoopLocked ends a worker's hold: what it queued is written by
// the loop. The caller holds outMu, which it releases.
func (c *Client) releaseToLoopLocked() {
	start := len(c.out) > 0 && !c.closed && !c.loop.flushQueued
	c.loop.flushQueued = c.loop.flushQueued || start
	c.outMu.Unlock()
	if start {
		c.submitFlush()
	}
}

// loopFlush writes c's queued output, on its loop: the replies of one
// read in one write(2) (up to writeChunk bytes gathered). What the kernel
// does not take stays counted in outBytes until it is written (OnDrain).
// A close marker closes c once what comes before it is written, or
// refuseTimeout later at the latest.
func (s *Server) loopFlush(c *Client) {
	st := c.loop
	sh := st.shard
	c.outMu.Lock()
	c.held = false
	st.flushQueued = false
	batch := c.out
	open := st.open
	c.out, st.open = nil, false
	closed := c.closed
	c.outMu.Unlock()
	if closed || len(batch) == 0 {
		return
	}
	closing := false
	for i, b := range batch {
		if b == nil {
			batch, closing, open = batch[:i], true, false
			break
		}
	}
	handed := int64(0)
	write := func(b []byte) {
		if len(b) == 0 {
			return
		}
		s.stats.netOutput.Add(int64(len(b)))
		handed += int64(len(b))
		_ = st.nc.Write(b) // an error closes the connection (OnClose); what it keeps, it copies
	}
	if buf, ok := sh.join(batch); ok {
		write(buf)
	} else {
		for _, b := range batch {
			write(b)
		}
	}
	if open {
		// The client's own buffer, written: free for the next replies.
		sh.giveBuf(batch[len(batch)-1])
	}
	after := int64(st.nc.Pending())
	c.outMu.Lock()
	if !c.closed {
		c.outBytes -= st.pending + handed - after
		if c.out == nil && cap(batch) <= maxShardOut {
			// Reused by the next replies while the client is busy
			// (loopResume gives it back to the shard when it is idle).
			clear(batch[:cap(batch)])
			c.out = batch[:0]
		}
	}
	st.pending = after
	c.outCond.Broadcast()
	c.outMu.Unlock()
	if closing {
		st.stopped = true
		st.nc.CloseWhenFlushed()
		if !st.nc.Closed() {
			time.AfterFunc(refuseTimeout, c.close)
		}
	}
}
