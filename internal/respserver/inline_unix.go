//go:build unix

package respserver

import (
	"errors"
	"syscall"
)

// tryWrite writes as much of b to c's socket as it takes without
// blocking and returns how many bytes that was (0 on any error: the
// writer goroutine then meets the error and closes c). It counts the
// bytes as total_net_output_bytes, before the write as countingConn does.
// c's connection is a TCP or unix socket (c.parkable).
func (c *Client) tryWrite(b []byte) int {
	if c.raw == nil {
		sc, ok := uncounted(c.conn).(syscall.Conn)
		if !ok {
			return 0
		}
		rc, err := sc.SyscallConn()
		if err != nil {
			return 0
		}
		c.raw = rc
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
