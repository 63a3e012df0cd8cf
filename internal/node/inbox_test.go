package node

import (
	"runtime"
	"sync"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// TestInboxOneTokenPerBurst checks the inbox's wake-up rule: a burst of
// puts leaves one token in ready, and take returns the burst in order.
func TestInboxOneTokenPerBurst(t *testing.T) {
	b := newInbox()
	for i := range 100 {
		b.put(msg.LinkClosed{ID: msg.LinkID(i)})
	}
	if n := len(b.ready); n != 1 {
		t.Fatalf("%d tokens after a burst, want 1", n)
	}
	<-b.ready
	got := b.take(nil)
	if len(got) != 100 || b.waiting() != 0 {
		t.Fatalf("took %d, %d left waiting; want 100, 0", len(got), b.waiting())
	}
	for i, in := range got {
		if id := in.(msg.LinkClosed).ID; id != msg.LinkID(i) {
			t.Fatalf("input %d is link %d: out of order", i, id)
		}
	}
	b.put(msg.LinkClosed{ID: 100})
	if n := len(b.ready); n != 1 {
		t.Fatalf("%d tokens after a put into an empty queue, want 1", n)
	}
	again := b.take(got)
	if len(again) != 1 || again[0].(msg.LinkClosed).ID != 100 {
		t.Fatalf("second take = %v, want link 100 alone", again)
	}
}

// TestInboxNoLostWakeUp runs puts against a taker that waits on ready
// alone: every input put is taken, so no put was left without a token.
func TestInboxNoLostWakeUp(t *testing.T) {
	b := newInbox()
	const writers, each = 4, 2000
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				b.put(msg.FlushConfig{})
			}
		}()
	}
	var got []msg.Input
	for taken := 0; taken < writers*each; {
		<-b.ready
		got = b.take(got)
		taken += len(got)
	}
	wg.Wait()
	if n := b.waiting(); n != 0 {
		t.Errorf("%d inputs put after the last was taken", n)
	}
}

// TestInboxFullBlocksUntilTaken checks the bound: a put into a full inbox
// waits until the loop takes, and close releases a waiting put, which
// drops its input.
func TestInboxFullBlocksUntilTaken(t *testing.T) {
	b := newInbox()
	for range inputQueueLen {
		b.put(msg.FlushConfig{})
	}
	put := make(chan struct{})
	go func() {
		b.put(msg.FlushConfig{})
		close(put)
	}()
	waitBlocked(t, b, 1)
	if n := len(b.take(nil)); n != inputQueueLen {
		t.Fatalf("took %d, want %d", n, inputQueueLen)
	}
	<-put
	if n := b.waiting(); n != 1 {
		t.Fatalf("%d waiting after the blocked put went in, want 1", n)
	}
	for range inputQueueLen - 1 {
		b.put(msg.FlushConfig{})
	}
	dropped := make(chan struct{})
	go func() {
		b.put(msg.FlushConfig{})
		close(dropped)
	}()
	waitBlocked(t, b, 1)
	b.close()
	<-dropped
	if n := b.waiting(); n != inputQueueLen {
		t.Errorf("%d waiting after close, want %d (the blocked input dropped)", n, inputQueueLen)
	}
	b.put(msg.FlushConfig{})
	if n := b.waiting(); n != inputQueueLen {
		t.Errorf("a put after close went in")
	}
}

// waitBlocked waits until n puts wait for room in b: it takes b's lock
// between checks, which the waiting put releases in Wait.
func waitBlocked(t *testing.T, b *inbox, n int) {
	t.Helper()
	for {
		b.mu.Lock()
		k := b.blocked
		b.mu.Unlock()
		if k == n {
			return
		}
		runtime.Gosched()
	}
}
