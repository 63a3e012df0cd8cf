//go:build linux

package netloop

// SetBatchEnd makes l call f on its goroutine after each batch it serves:
// once the events of one epoll_wait and the tasks queued with them have
// been handled, before it waits again. A user that gathers work while it
// serves the events (replies to write, as Redis writes its clients'
// replies before it sleeps) does it there, once per batch. Safe from any
// goroutine; f replaces the previous one.
func (l *Loop) SetBatchEnd(f func()) error {
	return l.Submit(func() { l.batchEnd = f })
}
