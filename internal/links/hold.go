package links

import (
	"sync"

	"github.com/go-sentinel/go-sentinel/internal/netloop"
)

// A hold gathers the loop links' flushes of one batch of Sends (what one
// Ready carries) so that each link is written once per batch and each
// loop woken once: between Hold and Release a Send only encodes, and
// Release hands the links that got one to their loop in one task. Without
// it every Send to a link the loop had flushed already cost the loop a
// wake-up (an eventfd write and an epoll return) and the link a write of
// its own.
type hold struct {
	mu   sync.Mutex
	on   bool
	due  []*link
	free []*link // due's array, kept for the next batch
}

// Hold starts a batch: the Sends that follow are written at Release. The
// caller must call Release; Holds do not nest.
func (l *Links) Hold() {
	l.held.mu.Lock()
	l.held.on = true
	l.held.mu.Unlock()
}

// Release ends the batch Hold began: every loop whose links got a Send
// since runs one task that writes each of them out (flushLoop).
func (l *Links) Release() {
	h := &l.held
	h.mu.Lock()
	h.on = false
	due := h.due
	h.due = h.free[:0]
	h.free = nil
	h.mu.Unlock()
	if len(due) == 0 {
		h.giveBack(due)
		return
	}
	var first *netloop.Loop
	mixed := false
	for _, lk := range due {
		if first == nil {
			first = lk.loop
		} else if lk.loop != first {
			mixed = true
		}
	}
	if mixed {
		// More than one loop: one task per link, as without a hold.
		for _, lk := range due {
			_ = lk.loop.Submit(lk.flushFn)
		}
		h.giveBack(due)
		return
	}
	if err := first.Submit(func() {
		for _, lk := range due {
			lk.flushLoop()
		}
		h.giveBack(due)
	}); err != nil {
		h.giveBack(due) // the Links close: nothing more is written
	}
}

// giveBack keeps due's array for a later batch.
func (h *hold) giveBack(due []*link) {
	clear(due)
	h.mu.Lock()
	if h.free == nil && cap(due) <= 1<<16 {
		h.free = due[:0]
	}
	h.mu.Unlock()
}

// deferFlush records that lk has Sends to write at Release and reports true,
// or reports false when no batch is held (the caller submits lk's flush
// itself).
func (h *hold) deferFlush(lk *link) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return false
	}
	h.due = append(h.due, lk)
	return true
}
