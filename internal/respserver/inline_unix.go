//go:build unix

package respserver

import (
	"errors"
	"syscall"
)

// rawConn returns the socket under c's connection, or nil.
func (c *Client) rawConn() syscall.RawConn {
	if c.raw == nil {
		sc, ok := uncounted(c.conn).(syscall.Conn)
		if !ok {
			return nil
		}
		rc, err := sc.SyscallConn()
		if err != nil {
			return nil
		}
		c.raw = rc
	}
	return c.raw
}

// tryRead reads into b what c's socket already holds, without waiting,
// and returns how many bytes that was (0 when it holds none, and on any
// error: the next blocking read meets it). It counts them as
// total_net_input_bytes, as countingConn does. c's connection is a TCP or
// unix socket (c.parkable).
func (c *Client) tryRead(b []byte) int {
	rc := c.rawConn()
	if rc == nil || len(b) == 0 {
		return 0
	}
	n := 0
	_ = rc.Read(func(fd uintptr) bool {
		for {
			m, err := syscall.Read(int(fd), b)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err == nil && m > 0 {
				n = m
			}
			return true // never wait
		}
	})
	if cc, ok := c.conn.(*countingConn); ok {
		cc.st.netInput.Add(int64(n))
	}
	return n
}

// tryWrite writes as much of b to c's socket as it takes without
// blocking and returns how many bytes that was (0 on any error: the
// writer goroutine then meets the error and closes c). It counts the
// bytes as total_net_output_bytes, before the write as countingConn does.
// c's connection is a TCP or unix socket (c.parkable).
func (c *Client) tryWrite(b []byte) int {
	if c.rawConn() == nil {
		return 0
	}
	cc, counted := c.conn.(*countingConn)
	if counted {
		cc.st.netOutput.Add(int64(len(b)))
	}
	n := 0
	_ = c.raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, err := syscall.Write(int(fd), b[n:])
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil || m <= 0 {
				break
			}
			n += m
		}
		return true // never wait: what is left goes to the writer goroutine
	})
	if counted && n < len(b) {
		cc.st.netOutput.Add(int64(n - len(b)))
	}
	return n
}
