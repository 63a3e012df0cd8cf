// Package resptest is a raw RESP client for tests: it sends bytes and
// returns each reply's exact bytes, so tests can pin wire formats.
package resptest

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Conn is one raw connection; it is closed in t.Cleanup.
type Conn struct {
	t  testing.TB
	NC net.Conn
	rd *bufio.Reader
}

// Dial connects to addr with a 10 s deadline for the whole test.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &Conn{t: t, NC: nc, rd: bufio.NewReader(nc)}
}

// Do sends a command as a RESP array and returns the raw reply.
func (c *Conn) Do(args ...string) string {
	c.t.Helper()
	c.Send(Command(args...))
	return c.Reply()
}

// Command encodes a command as a RESP array.
func Command(args ...string) string {
	var sb strings.Builder
	sb.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		sb.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return sb.String()
}

// Send writes raw bytes.
func (c *Conn) Send(raw string) {
	c.t.Helper()
	if _, err := c.NC.Write([]byte(raw)); err != nil {
		c.t.Fatal(err)
	}
}

// Closed reports whether the server closed the connection (reading one
// byte fails).
func (c *Conn) Closed() bool {
	_, err := c.rd.ReadByte()
	return err != nil
}

// Reply reads one complete RESP2/RESP3 value and returns its raw bytes.
func (c *Conn) Reply() string {
	c.t.Helper()
	line, err := c.rd.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	out := line
	body := strings.TrimSuffix(line[1:], "\r\n")
	n, _ := strconv.Atoi(body)
	switch line[0] {
	case '$', '=':
		if n < 0 {
			return out
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.rd, buf); err != nil {
			c.t.Fatal(err)
		}
		out += string(buf)
	case '*', '>', '~':
		for i := 0; i < n; i++ {
			out += c.Reply()
		}
	case '%':
		for i := 0; i < 2*n; i++ {
			out += c.Reply()
		}
	}
	return out
}
