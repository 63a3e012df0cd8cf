package node

import (
	"sync"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// inbox is the queue of inputs (replies, messages, closed links, script
// ends) waiting for the loop. Any goroutine puts; only the loop takes,
// everything waiting at once, into a batch it steps in order.
//
// It replaces a buffered channel of inputQueueLen entries: that channel's
// buffer was allocated whole (1 MiB of interface values, scanned by every
// collection and, as the ring went round, all of it resident), and each
// input paid a channel send and receive with their locks. The inbox holds
// what waits in a slice that grows with the longest burst, and it signals
// ready only when it goes from empty to not empty, so a burst of inputs
// costs one wake-up of the loop, not one each.
type inbox struct {
	// ready holds a token when inputs may wait (cap 1): put sends one when
	// the queue goes from empty to not empty; a token may be stale (take
	// returns nothing), never missing.
	ready chan struct{}

	mu      sync.Mutex
	room    sync.Cond // signalled when take emptied a full queue
	queue   []msg.Input
	blocked int  // puts waiting for room
	closed  bool // put drops inputs from now on
}

// maxKeptInbox is the most entries (16 bytes each) a queue buffer keeps
// for reuse once taken; a longer one, from a rare burst, is let go.
const maxKeptInbox = 4096

func newInbox() *inbox {
	b := &inbox{ready: make(chan struct{}, 1)}
	b.room.L = &b.mu
	return b
}

// put appends in, waiting while inputQueueLen inputs wait; it drops in
// once the inbox is closed.
func (b *inbox) put(in msg.Input) {
	b.mu.Lock()
	for len(b.queue) >= inputQueueLen && !b.closed {
		b.blocked++
		b.room.Wait()
		b.blocked--
	}
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, in)
	first := len(b.queue) == 1
	b.mu.Unlock()
	if first {
		select {
		case b.ready <- struct{}{}:
		default: // a token waits already
		}
	}
}

// take returns every input waiting, oldest first, and gives back done,
// the slice the previous take returned, to be filled again. The caller
// must not use done afterwards.
func (b *inbox) take(done []msg.Input) []msg.Input {
	clear(done) // let the stepped inputs go
	if cap(done) > maxKeptInbox {
		done = nil
	}
	b.mu.Lock()
	out := b.queue
	b.queue = done[:0]
	if b.blocked > 0 {
		b.room.Broadcast()
	}
	b.mu.Unlock()
	return out
}

// rearm puts a token in ready (the loop left inputs of its take for its
// next round).
func (b *inbox) rearm() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// waiting is how many inputs wait in the queue (not counting those the
// loop took and has not stepped yet).
func (b *inbox) waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// close drops every later put and releases the waiting ones.
func (b *inbox) close() {
	b.mu.Lock()
	b.closed = true
	b.room.Broadcast()
	b.mu.Unlock()
}
