//go:build linux

package netloop

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetLinger makes a parking Loop (NewParking), after a batch that served
// events, wait up to d for more in epoll_pwait2 itself, its goroutine
// keeping its P and its thread asleep in the kernel, before it parks in
// Go's netpoller. A loop whose clients answer within microseconds (a
// request/response client, replied to) then takes their next events
// in one system call, as Redis does, instead of parking its goroutine and
// being woken through the netpoller (two more epoll calls and a pass of
// the scheduler per wake-up). The loop yields its P once before each
// such wait, so other goroutines still run between batches. d is 0 by
// default (park at once), and 0 again for good where the kernel lacks
// epoll_pwait2 (before Linux 5.11); a loop that blocks in epoll_wait
// (New) ignores it. Safe from any goroutine.
func (l *Loop) SetLinger(d time.Duration) error {
	return l.Submit(func() { l.linger = max(d, 0) })
}

// lingerWait is SetLinger's wait: the events that came within l.linger,
// or 0.
func (l *Loop) lingerWait() (int, error) {
	runtime.Gosched()
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
