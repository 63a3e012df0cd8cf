package view

import "sync/atomic"

// Link is a link as the queries show it.
type Link struct {
	Pending       int
	Refcount      int
	ActPingTime   int64
	LastAvailTime int64
	LastPongTime  int64
	CCUp, PCUp    bool
}

// LinkCell holds what the queries show of a link, stored by the core
// after every change and loaded by any goroutine. Each field is stored
// atomically on its own: a query running during a store may mix the
// link's state just before and just after it, as a reply racing a PING
// in Redis would show either.
type LinkCell struct {
	pending, refcount                        atomic.Int64
	actPingTime, lastAvailTime, lastPongTime atomic.Int64
	up                                       atomic.Uint32 // cellCCUp | cellPCUp
}

const (
	cellCCUp = 1 << iota
	cellPCUp
)

// Store records l in c.
func (c *LinkCell) Store(l Link) {
	c.pending.Store(int64(l.Pending))
	c.refcount.Store(int64(l.Refcount))
	c.actPingTime.Store(l.ActPingTime)
	c.lastAvailTime.Store(l.LastAvailTime)
	c.lastPongTime.Store(l.LastPongTime)
	var up uint32
	if l.CCUp {
		up |= cellCCUp
	}
	if l.PCUp {
		up |= cellPCUp
	}
	c.up.Store(up)
}

// TimeCell holds a time (Unix ms) that the core stores as it changes and
// any goroutine loads: a time that every message of its kind moves (a
// Sentinel's last hello), kept out of the Instance so that the message
// does not have its master's View built again.
type TimeCell struct{ t atomic.Int64 }

// Store records t in c.
func (c *TimeCell) Store(t int64) { c.t.Store(t) }

// Load returns what c holds; 0 for a nil cell.
func (c *TimeCell) Load() int64 {
	if c == nil {
		return 0
	}
	return c.t.Load()
}

// Load returns what c holds.
func (c *LinkCell) Load() Link {
	up := c.up.Load()
	return Link{
		Pending:       int(c.pending.Load()),
		Refcount:      int(c.refcount.Load()),
		ActPingTime:   c.actPingTime.Load(),
		LastAvailTime: c.lastAvailTime.Load(),
		LastPongTime:  c.lastPongTime.Load(),
		CCUp:          up&cellCCUp != 0,
		PCUp:          up&cellPCUp != 0,
	}
}
