// Package scriptq is the queue of notification-script and
// client-reconfig-script runs with Redis 7.0's rules (§14.2 of the
// reference): at most MaxQueue queued and MaxRunning running, a script
// killed by a signal or exiting with 1 retried after a doubling delay up
// to MaxRetry runs, one that ran too long killed. It holds the rules and
// the queue; the core turns what it returns into actions and events. Times
// are Unix milliseconds, durations milliseconds. It is a leaf: it imports
// nothing of go-sentinel's.
package scriptq

import "time"

// Redis 7.0's limits.
const (
	MaxQueue   = 256
	MaxRunning = 16
	MaxRetry   = 10
)

// job is one queued script run.
type job struct {
	id        uint64
	argv      []string // path first
	running   bool
	pid       int
	startTime int64 // when it started running, or when it may run (0 = now)
	retryNum  int
}

// Queue is the script queue, oldest first. The zero value is empty.
type Queue struct {
	jobs   []*job
	nextID uint64
}

// Schedule queues a run of argv (path first) and returns its id; when the
// queue is full the oldest job that is not running is dropped.
func (q *Queue) Schedule(argv []string) uint64 {
	q.nextID++
	q.jobs = append(q.jobs, &job{id: q.nextID, argv: argv})
	if len(q.jobs) > MaxQueue {
		for k, j := range q.jobs {
			if !j.running {
				q.jobs = append(q.jobs[:k], q.jobs[k+1:]...)
				break
			}
		}
	}
	return q.nextID
}

// Start is a job to start now: its id and argv (path first).
type Start struct {
	ID   uint64
	Argv []string
}

// StartDue marks the jobs that may run at now as running, oldest first, up
// to MaxRunning running at once, and returns them.
func (q *Queue) StartDue(now int64) []Start {
	running, _ := q.Counts()
	var out []Start
	for _, j := range q.jobs {
		if running >= MaxRunning {
			break
		}
		if j.running || (j.startTime != 0 && j.startTime > now) {
			continue
		}
		j.running = true
		j.startTime = now
		j.retryNum++
		running++
		out = append(out, Start{ID: j.id, Argv: append([]string(nil), j.argv...)})
	}
	return out
}

// Overrun is a running job to kill: it ran longer than allowed.
type Overrun struct {
	ID   uint64
	Path string
	PID  int
}

// Overdue returns the started jobs (a pid known) that have run longer than
// maxRuntime at now.
func (q *Queue) Overdue(now, maxRuntime int64) []Overrun {
	var out []Overrun
	for _, j := range q.jobs {
		if j.running && j.pid != 0 && now-j.startTime > maxRuntime {
			out = append(out, Overrun{ID: j.id, Path: j.argv[0], PID: j.pid})
		}
	}
	return out
}

func (q *Queue) find(id uint64) (int, *job) {
	for k, j := range q.jobs {
		if j.id == id {
			return k, j
		}
	}
	return -1, nil
}

// Started records the pid of a started job; false for an unknown id.
func (q *Queue) Started(id uint64, pid int) bool {
	if _, j := q.find(id); j != nil {
		j.pid = pid
		return true
	}
	return false
}

// Exit is how a run ended: its exit code, or the signal that killed it;
// StartFailed when no process could be created (Redis's failed fork).
type Exit struct {
	Code        int
	Signal      int
	StartFailed bool
}

// Outcome is what Exited decided about a run.
type Outcome struct {
	// Known is false for an unknown id; nothing else is set then.
	Known bool
	// Path and PID name the run that ended.
	Path string
	PID  int
	// Retry: the job stays queued, to run again (a failed start at once,
	// a signal or exit 1 after the doubling delay).
	Retry bool
	// Failed: the run is an error to report (-script-error): a failed
	// start, or a non-zero exit or signal that is not retried.
	Failed bool
}

// Exited applies how a run ended, as Redis's
// sentinelCollectTerminatedScripts does: a script killed by a signal or
// exiting with 1 is retried after RetryDelay(retryDelay, runs) until
// MaxRetry runs; otherwise it leaves the queue, failed unless it exited
// 0. A script that could not be started at all is failed and stays
// queued, to be started again.
func (q *Queue) Exited(id uint64, e Exit, now, retryDelay int64) Outcome {
	k, j := q.find(id)
	if j == nil {
		return Outcome{}
	}
	o := Outcome{Known: true, Path: j.argv[0], PID: j.pid}
	switch {
	case e.StartFailed:
		o.Retry, o.Failed = true, true
		j.running, j.pid = false, 0
	case (e.Code == 1 || e.Signal != 0) && j.retryNum != MaxRetry:
		o.Retry = true
		j.running, j.pid = false, 0
		j.startTime = now + RetryDelay(retryDelay, j.retryNum)
	default:
		o.Failed = e.Signal != 0 || e.Code != 0
		q.jobs = append(q.jobs[:k], q.jobs[k+1:]...)
	}
	return o
}

// RetryDelay is base doubled for every run after the first (runs is the
// number of runs so far).
func RetryDelay(base int64, runs int) int64 {
	d := base
	for ; runs > 1; runs-- {
		d *= 2
	}
	return d
}

// Pending is one entry of SENTINEL PENDING-SCRIPTS.
type Pending struct {
	Argv     []string
	Running  bool
	PID      int
	RunTime  time.Duration // running: how long it has run
	RunDelay time.Duration // scheduled: how long until it may run (≥ 0)
	RetryNum int
}

// Pending lists the queue at now, oldest first.
func (q *Queue) Pending(now int64) []Pending {
	out := make([]Pending, 0, len(q.jobs))
	for _, j := range q.jobs {
		p := Pending{Argv: append([]string(nil), j.argv...), Running: j.running, PID: j.pid, RetryNum: j.retryNum}
		if j.running {
			p.RunTime = time.Duration(now-j.startTime) * time.Millisecond
		} else if j.startTime > now {
			p.RunDelay = time.Duration(j.startTime-now) * time.Millisecond
		}
		out = append(out, p)
	}
	return out
}

// Counts returns the running jobs and the queue's length (running ones
// included), for INFO.
func (q *Queue) Counts() (running, queued int) {
	for _, j := range q.jobs {
		if j.running {
			running++
		}
	}
	return running, len(q.jobs)
}
