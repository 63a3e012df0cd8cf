package respserver

// A loop's clients read their requests with readers, and write their
// replies into buffers and queues, that they borrow from their shard
// while they are served and give back once written and idle (loop.go):
// a request and its reply then cost no allocation and no trip to a
// sync.Pool, and an idle client still holds no buffer. Only the loop's
// goroutine takes and gives them; a client holds what it borrowed under
// its outMu.

// Bounds of what a shard keeps: buffers (and readers whose buffer is)
// up to maxShardBuf bytes and queues up to maxShardOut entries, at most
// maxShardKept of each (those of the clients served in one batch); a
// larger one is left to the collector (a reader, to the server's pool).
const (
	maxShardBuf  = 4 << 10
	maxShardOut  = 16
	maxShardKept = 64
)

// openReplyMax is how long a client's own reply buffer may grow by
// replies appended to it (sendValue) before the next reply takes a new
// entry: Redis's reply buffer.
const openReplyMax = replyBuffer

// pop removes and returns the last of *kept, or the zero value when
// there is none; the slot it leaves holds no reference.
func pop[T any](kept *[]T) T {
	var zero T
	n := len(*kept)
	if n == 0 {
		return zero
	}
	v := (*kept)[n-1]
	(*kept)[n-1] = zero
	*kept = (*kept)[:n-1]
	return v
}

// takeBuf returns an empty buffer for a client's replies, or nil.
func (sh *loopShard) takeBuf() []byte { return pop(&sh.bufs) }

// giveBuf takes back a client's reply buffer, once written.
func (sh *loopShard) giveBuf(b []byte) {
	if cap(b) == 0 || cap(b) > maxShardBuf || len(sh.bufs) >= maxShardKept {
		return
	}
	sh.bufs = append(sh.bufs, b[:0])
}

// takeOut returns an empty output queue for a client, or nil.
func (sh *loopShard) takeOut() [][]byte { return pop(&sh.outs) }

// giveOut takes back an idle client's empty output queue.
func (sh *loopShard) giveOut(q [][]byte) {
	if cap(q) == 0 || cap(q) > maxShardOut || len(sh.outs) >= maxShardKept {
		return
	}
	clear(q[:cap(q)])
	sh.outs = append(sh.outs, q[:0])
}

// takeReader returns an idle request reader, or nil.
func (sh *loopShard) takeReader() *loopReader { return pop(&sh.readers) }

// giveReader keeps an idle request reader whose buffer is small, and
// reports whether it did.
func (sh *loopShard) giveReader(r *loopReader) bool {
	if cap(r.buf) > maxShardBuf || len(sh.readers) >= maxShardKept {
		return false
	}
	sh.readers = append(sh.readers, r)
	return true
}

// join returns the replies of batch as one buffer to write, the shard's
// scratch buffer when there are several (valid until the next join), and
// false when batch holds more than writeChunk bytes (written one by one).
func (sh *loopShard) join(batch [][]byte) ([]byte, bool) {
	if len(batch) == 1 {
		return batch[0], true
	}
	size := 0
	for _, b := range batch {
		size += len(b)
	}
	if size > writeChunk {
		return nil, false
	}
	sh.scratch = sh.scratch[:0]
	for _, b := range batch {
		sh.scratch = append(sh.scratch, b...)
	}
	return sh.scratch, true
}
