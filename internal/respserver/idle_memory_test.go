//go:build linux

package respserver

import (
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// idleConnBudget is what an idle connection may cost the server, heap and
// goroutine stack together (redis-sentinel 7.0: about 1.4 KiB).
const idleConnBudget = 2048

// rawDial connects to 127.0.0.1:port from a bare socket: the client's side
// of the connection is a file descriptor and nothing else, so that the Go
// memory the test process gains is the server's side alone.
func rawDial(t testing.TB, port int) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		t.Fatalf("connect: %v", err)
	}
	return fd
}

// memInUse returns the heap and goroutine stack memory in use after two
// collections (the second frees what the first's finalizers released).
func memInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// waitIdle polls until srv has n clients, all of them idle (parked, where
// connections can be).
func waitIdle(t testing.TB, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !srvIdle(srv, n) {
		if time.Now().After(deadline) {
			t.Fatalf("%d clients did not all become idle: %d connected, %d parked", n, len(srv.clientList()), srv.parkedClients())
		}
		time.Sleep(time.Millisecond) // polling, not synchronising
	}
}

func srvIdle(srv *Server, n int) bool {
	return len(srv.clientList()) == n && int64(srv.parkedClients())+srv.idleLoopClients() == int64(n)
}

// rawPing sends PING on the bare socket fd and reads the reply.
func rawPing(t testing.TB, fd int) {
	t.Helper()
	if _, err := syscall.Write(fd, []byte("PING\r\n")); err != nil {
		t.Fatalf("write: %v", err)
	}
	buf := make([]byte, 7)
	for got := 0; got < len(buf); {
		n, err := syscall.Read(fd, buf[got:])
		if err != nil || n == 0 {
			t.Fatalf("read: %d %v", n, err)
		}
		got += n
	}
	if string(buf) != "+PONG\r\n" {
		t.Fatalf("PING: %q", buf)
	}
}

// TestIdleConnectionMemory opens 2,000 connections that send nothing, then
// 2,000 that send one PING, and checks what each costs the server once
// they are idle: at most idleConnBudget bytes of heap and stack. The
// client sides are bare sockets (rawDial), which take no Go memory, and a
// first connection is made before the baseline so that what the first
// one sets up (the poller) is not counted. The connections that sent a
// command had a reader goroutine until they were parked: the runtime
// keeps the goroutines it ever had (hundreds at once here, parked
// after 20 ms) for reuse, which they are counted with.
func TestIdleConnectionMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory")
	}
	const n = 2000
	for _, ping := range []bool{false, true} {
		name := map[bool]string{false: "silent", true: "after-a-command"}[ping]
		t.Run(name, func(t *testing.T) {
			srv, _ := newTestServer(nil)
			srv.parkAfter = 20 * time.Millisecond
			serveTestServer(t, srv)
			port := srv.Addrs()[0].(*net.TCPAddr).Port
			fds := make([]int, 0, n+1)
			t.Cleanup(func() {
				for _, fd := range fds {
					syscall.Close(fd)
				}
			})
			connect := func() {
				fd := rawDial(t, port)
				fds = append(fds, fd)
				if ping {
					rawPing(t, fd)
				}
			}
			connect()
			waitIdle(t, srv, 1)
			before := memInUse()
			for len(fds) < n+1 {
				connect()
			}
			waitIdle(t, srv, n+1)
			after := memInUse()
			per := float64(after-before) / n
			t.Logf("%d idle connections: %d bytes of heap and stack in use before, %d after: %.0f bytes each", n, before, after, per)
			if per > idleConnBudget {
				t.Errorf("an idle connection costs %.0f bytes, more than %d", per, idleConnBudget)
			}
		})
	}
}
