//go:build linux

package netloop

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openPark registers a duplicate of l's epoll instance in Go's netpoller:
// the instance is readable while an event is ready, so waitParked can
// wait for it as a goroutine waits for a socket.
func (l *Loop) openPark() error {
	fd, err := unix.FcntlInt(uintptr(l.epfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("netloop: dup epoll: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return fmt.Errorf("netloop: epoll instance: %w", err)
	}
	f := os.NewFile(uintptr(fd), "netloop-epoll") // non-blocking: the netpoller takes it
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("netloop: epoll instance: %w", err)
	}
	l.park, l.parkRC = f, rc
	return nil
}

// waitParked takes the ready events without blocking, and when there are
// none waits in Go's netpoller for the instance to become readable, then
// takes them. RawConn.Read calls the poll before each wait, after
// resetting the netpoller's readiness, so an event that came before the
// wait is found by the poll, never missed. The poll is made once
// (parkPoll), so that a wait allocates nothing.
func (l *Loop) waitParked() (int, error) {
	if l.parkPoll == nil {
		l.parkPoll = l.pollReady
	}
	l.parkN, l.parkErr = 0, nil
	if err := l.parkRC.Read(l.parkPoll); err != nil {
		return 0, fmt.Errorf("netloop: waiting for events: %w", err)
	}
	return l.parkN, l.parkErr
}

// pollReady is waitParked's poll: it takes the ready events into
// l.events (their number in parkN, a failure in parkErr) and reports
// false when there are none, for RawConn.Read to wait.
func (l *Loop) pollReady(uintptr) bool {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			l.parkErr = e
			return true
		case r == 0:
			return false // nothing ready: wait for the instance
		}
		l.parkN = int(r)
		return true
	}
}
