package sim

import (
	"container/heap"
	"time"
)

// item is one piece of scheduled work. Items run in time order; items due
// at the same instant run in the order they were scheduled (seq), which
// keeps a run deterministic.
type item struct {
	at  time.Time
	seq uint64
	fn  func()
}

// queue is a min-heap of items ordered by (at, seq).
type queue []*item

func (q queue) Len() int { return len(q) }

func (q queue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}

func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

func (q *queue) Push(x any) { *q = append(*q, x.(*item)) }

func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return it
}

// scheduler hands out items in (at, seq) order.
type scheduler struct {
	q   queue
	seq uint64
}

// at schedules fn at time t.
func (s *scheduler) at(t time.Time, fn func()) {
	s.seq++
	heap.Push(&s.q, &item{at: t, seq: s.seq, fn: fn})
}

// next removes and returns the earliest item due at or before limit, or
// nil if there is none.
func (s *scheduler) next(limit time.Time) *item {
	if len(s.q) == 0 || s.q[0].at.After(limit) {
		return nil
	}
	return heap.Pop(&s.q).(*item)
}
