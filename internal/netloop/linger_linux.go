//go:build linux

package netloop

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetLinger makes a Loop, after a batch that served events, wait up to d
// for more in epoll_pwait2 itself, its goroutine keeping its P and its
// thread asleep in the kernel, before it waits the usual way. A loop
// whose peers answer within microseconds (a request/response client,
// replied to; a proxied client and its data node) then takes their next
// events in one system call, as Redis does, instead of handing its P
// over and taking it back around every wait. What it waits the usual
// way for once d passed in vain is, for a parking Loop (NewParking), Go's
// netpoller, and for a blocking one (New), epoll_wait through the
// runtime: an idle loop holds no P. A parking loop yields its P before
// each such wait; a blocking one at most once per LingerYield, so that
// its goroutine is not moved from thread to thread at every wait (a
// yield before every wait cost the proxy 1.3 more context switches per
// request with one client). A blocking loop does not linger at all while
// Go runs on one P (GOMAXPROCS=1), whose P it would hold from every other
// goroutine. d is
// 0 by default (no linger), and 0 again for good where the kernel lacks
// epoll_pwait2 (before Linux 5.11). Safe from any goroutine.
func (l *Loop) SetLinger(d time.Duration) error {
	return l.Submit(func() { l.linger = max(d, 0) })
}

// SetLinger sets every Loop of g to linger d (Loop.SetLinger); the first
// error, from a closing Loop, is returned.
func (g *Group) SetLinger(d time.Duration) error {
	for _, l := range g.loops {
		if err := l.SetLinger(d); err != nil {
			return err
		}
	}
	return nil
}

// LingerYield is how often, at most, a blocking Loop yields its P before
// it lingers (SetLinger); a loop that finds events at every poll does not
// linger, and yields only when the runtime preempts it.
const LingerYield = time.Millisecond

// lingerWait is SetLinger's wait: the events that came within l.linger,
// or 0.
func (l *Loop) lingerWait() (int, error) {
	if l.parkRC != nil {
		runtime.Gosched()
	} else if now := time.Now(); now.Sub(l.yielded) >= LingerYield {
		runtime.Gosched()
		l.yielded = now
		l.oneP = runtime.GOMAXPROCS(0) == 1
	}
	if l.oneP {
		return 0, nil // the P it would hold is the only one
	}
	l.lingers++
	ts := unix.NsecToTimespec(int64(l.linger))
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
			return 0, nil // parks instead: a signal is being handled
		case unix.ENOSYS:
			l.linger = 0
			return 0, nil
		default:
			return 0, e
		}
	}
}
