package links

import "sync"

// hold gathers the loop links' flushes of one batch of Sends (what one
// Ready carries) so that each link is written once per batch and each
// loop woken once: between Hold and Release a Send only encodes, and
// Release hands the links that got one to their loop in one task. Without
// it every Send to a link the loop had flushed already cost the loop a
// wake-up (an eventfd write and an epoll return) and the link a write of
// its own.
type hold struct {
	mu  sync.Mutex
	on  bool
	due []*link
}

// Hold starts a batch: the Sends that follow are written at Release. The
// caller must call Release; Holds do not nest.
func (l *Links) Hold() {
	l.held.mu.Lock()
	l.held.on = true
	l.held.mu.Unlock()
}

// Release ends the batch Hold began: the links that got a Send since are
// written out (flushLoop) in one task of their loop, or one task each
// when they are served by more than one loop.
func (l *Links) Release() {
	h := &l.held
	h.mu.Lock()
	h.on = false
	due := h.due
	h.due = nil
	h.mu.Unlock()
	if len(due) == 0 {
		return
	}
	loop := due[0].loop
	for _, lk := range due {
		if lk.loop != loop {
			for _, lk := range due {
				_ = lk.loop.Submit(lk.flushFn) // fails only when the Links close
			}
			return
		}
	}
	_ = loop.Submit(func() { // fails only when the Links close
		for _, lk := range due {
			lk.flushLoop()
		}
	})
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
