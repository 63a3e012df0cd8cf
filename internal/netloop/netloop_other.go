//go:build !linux

package netloop

import (
	"net"
	"time"
)

// Group is a set of Loops; on this system there are none.
type Group struct{}

// New returns ErrUnsupported: there is no epoll here.
func New(int) (*Group, error) { return nil, ErrUnsupported }

// NewParking returns ErrUnsupported: there is no epoll here.
func NewParking(int) (*Group, error) { return nil, ErrUnsupported }

// Next is never called: New fails.
func (g *Group) Next() *Loop { return nil }

// Len is 0.
func (g *Group) Len() int { return 0 }

// Close does nothing.
func (g *Group) Close() {}

// Loop is an event loop; none exists on this system.
type Loop struct{}

// Submit returns ErrUnsupported.
func (l *Loop) Submit(func()) error { return ErrUnsupported }

// SetLinger returns ErrUnsupported.
func (l *Loop) SetLinger(time.Duration) error { return ErrUnsupported }

// SetLinger does nothing: there are no Loops.
func (g *Group) SetLinger(time.Duration) error { return nil }

// Register returns ErrUnsupported.
func (l *Loop) Register(...*Conn) error { return ErrUnsupported }

// Close does nothing.
func (l *Loop) Close() {}

// Conn is a socket served by a Loop; none exists on this system.
type Conn struct{}

// Take returns ErrUnsupported and leaves tc open.
func Take(*net.TCPConn, Handler) (*Conn, error) { return nil, ErrUnsupported }

// Close does nothing.
func (c *Conn) Close() {}

// CloseNow does nothing.
func (c *Conn) CloseNow(error) {}

// CloseWhenFlushed does nothing.
func (c *Conn) CloseWhenFlushed() {}

// Closed is true.
func (c *Conn) Closed() bool { return true }

// Write returns ErrClosed.
func (c *Conn) Write([]byte) error { return ErrClosed }

// Pending is 0.
func (c *Conn) Pending() int { return 0 }

// PauseRead does nothing.
func (c *Conn) PauseRead() {}

// ResumeRead does nothing.
func (c *Conn) ResumeRead() {}

// Reading is false.
func (c *Conn) Reading() bool { return false }
