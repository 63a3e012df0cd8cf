package scriptq

import (
	"testing"
	"time"
)

// TestRunsAndRetries: runs start oldest first up to MaxRunning; exit 1 and
// signals retry after a doubling delay up to MaxRetry runs; exit 0 leaves
// quietly, other codes fail; a failed start fails and stays queued.
func TestRunsAndRetries(t *testing.T) {
	var q Queue
	for range MaxRunning + 2 {
		q.Schedule([]string{"/bin/s", "a"})
	}
	st := q.StartDue(0)
	if len(st) != MaxRunning || st[0].ID != 1 || st[0].Argv[0] != "/bin/s" {
		t.Fatalf("started %d, first %+v", len(st), st[0])
	}
	if r, n := q.Counts(); r != MaxRunning || n != MaxRunning+2 {
		t.Fatalf("counts %d %d", r, n)
	}
	q.Started(1, 101)
	if o := q.Exited(1, Exit{Code: 1}, 1000, 30000); !o.Known || !o.Retry || o.Failed || o.PID != 101 {
		t.Fatalf("exit 1: %+v", o)
	}
	if o := q.Exited(2, Exit{Code: 0}, 1000, 30000); !o.Known || o.Retry || o.Failed {
		t.Fatalf("exit 0: %+v", o)
	}
	if o := q.Exited(3, Exit{Code: 2}, 1000, 30000); o.Retry || !o.Failed {
		t.Fatalf("exit 2: %+v", o)
	}
	if o := q.Exited(4, Exit{StartFailed: true}, 1000, 30000); !o.Retry || !o.Failed {
		t.Fatalf("failed start: %+v", o)
	}
	if o := q.Exited(999, Exit{}, 1000, 30000); o.Known {
		t.Fatalf("unknown id: %+v", o)
	}
	// Job 1 waits its 30 s retry delay; job 4 (failed start) and the two
	// never started run at once.
	for _, s := range q.StartDue(1001) {
		if s.ID == 1 {
			t.Fatal("job 1 started before its retry delay")
		}
	}
	found := false
	for _, p := range q.Pending(1001) {
		if p.Argv[0] == "/bin/s" && !p.Running && p.RetryNum == 1 {
			found = p.RunDelay == 29999*time.Millisecond
		}
	}
	if !found {
		t.Error("job 1 not pending with its delay")
	}
}

// TestRetryLimit: a script that always exits 1 runs MaxRetry times, then
// fails.
func TestRetryLimit(t *testing.T) {
	var q Queue
	id := q.Schedule([]string{"/bin/s"})
	now := int64(0)
	for run := 1; ; run++ {
		if st := q.StartDue(now); len(st) != 1 {
			t.Fatalf("run %d: not started", run)
		}
		o := q.Exited(id, Exit{Code: 1}, now, 10)
		if run < MaxRetry {
			if !o.Retry {
				t.Fatalf("run %d not retried", run)
			}
			now += RetryDelay(10, run)
			continue
		}
		if o.Retry || !o.Failed {
			t.Fatalf("run %d: %+v", run, o)
		}
		break
	}
	if _, n := q.Counts(); n != 0 {
		t.Errorf("%d left in the queue", n)
	}
}

// TestQueueBound: beyond MaxQueue the oldest job not running is dropped.
func TestQueueBound(t *testing.T) {
	var q Queue
	q.Schedule([]string{"/bin/first"})
	q.StartDue(0)
	q.Schedule([]string{"/bin/second"})
	for range MaxQueue - 1 {
		q.Schedule([]string{"/bin/more"})
	}
	p := q.Pending(0)
	if len(p) != MaxQueue || p[0].Argv[0] != "/bin/first" || p[1].Argv[0] != "/bin/more" {
		t.Fatalf("%d queued, first %v, second %v", len(p), p[0].Argv, p[1].Argv)
	}
}

// TestOverdue: only started runs (a pid known) beyond the runtime.
func TestOverdue(t *testing.T) {
	var q Queue
	a := q.Schedule([]string{"/bin/a"})
	q.Schedule([]string{"/bin/b"})
	q.StartDue(0)
	q.Started(a, 7)
	o := q.Overdue(60001, 60000)
	if len(o) != 1 || o[0].ID != a || o[0].PID != 7 || o[0].Path != "/bin/a" {
		t.Fatalf("%+v", o)
	}
	if RetryDelay(30000, 3) != 120000 {
		t.Error("RetryDelay does not double")
	}
}
