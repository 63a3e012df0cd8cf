package main

import (
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// syscallCount is what perf counted of one process's system calls over a
// window, per second: all of them, and those that write and read sockets.
type syscallCount struct {
	total, writes, reads float64
}

// countSyscalls counts pid's system calls for d with perf stat (its
// tracepoints: counting costs the process almost nothing, where strace
// stops it at every call). ok is false without perf or its tracepoints.
func countSyscalls(pid int, d time.Duration) (c syscallCount, ok bool) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return c, false
	}
	secs := strconv.FormatFloat(d.Seconds(), 'f', 1, 64)
	cmd := exec.Command(perf, "stat", "-x", ",", "-e",
		"raw_syscalls:sys_enter,"+strings.Join(append(append([]string(nil), writeCalls...), readCalls...), ","),
		"-p", strconv.Itoa(pid), "--", "sleep", secs)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return c, false
	}
	got := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		v /= d.Seconds()
		switch ev := f[2]; {
		case ev == "raw_syscalls:sys_enter":
			c.total, got = v, got+1
		case slices.Contains(writeCalls, ev):
			c.writes += v
			got++
		case slices.Contains(readCalls, ev):
			c.reads += v
			got++
		}
	}
	return c, got == 1+len(writeCalls)+len(readCalls)
}

// writeCalls and readCalls are the system calls that send and receive
// bytes on a socket: Go writes and reads, hiredis (redis-sentinel's
// links) sends and receives.
var (
	writeCalls = []string{"syscalls:sys_enter_write", "syscalls:sys_enter_writev", "syscalls:sys_enter_sendto", "syscalls:sys_enter_sendmsg"}
	readCalls  = []string{"syscalls:sys_enter_read", "syscalls:sys_enter_readv", "syscalls:sys_enter_recvfrom", "syscalls:sys_enter_recvmsg"}
)

// floorMessagesPerInstance is how many messages the protocol needs per
// monitored instance per second at the default periods: a PING and its
// reply (1 s), an INFO and its reply (10 s), a hello published (2 s) and
// the hellos of the two other Sentinels received (2 s each), each at one
// system call at best.
const floorMessagesPerInstance = 1 + 1 + 0.1 + 0.1 + 0.5 + 1.0

// syscallCost measures, on this machine, the CPU one small write to a
// loopback TCP socket and one read of it cost together, per call: the
// unit of the system-call floor.
func syscallCost() (time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	a, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	defer a.Close()
	b := <-acc
	if b == nil {
		return 0, fmt.Errorf("accept failed")
	}
	defer b.Close()
	fa, err := a.(*net.TCPConn).File()
	if err != nil {
		return 0, err
	}
	defer fa.Close()
	fb, err := b.(*net.TCPConn).File()
	if err != nil {
		return 0, err
	}
	defer fb.Close()
	wfd, rfd := int(fa.Fd()), int(fb.Fd())
	msg := []byte("*1\r\n$4\r\nPING\r\n")
	buf := make([]byte, 4096)
	const n = 50000
	runtime.LockOSThread() // RUSAGE_THREAD: this thread only
	defer runtime.UnlockOSThread()
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &before)
	for i := 0; i < n; i++ {
		if _, err := syscall.Write(wfd, msg); err != nil {
			return 0, err
		}
		if _, err := syscall.Read(rfd, buf); err != nil {
			return 0, err
		}
	}
	syscall.Getrusage(syscall.RUSAGE_THREAD, &after)
	used := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	return used / (2 * n), nil
}
