package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
)

// EventRecord is one event a node emitted, stamped with the cluster time.
type EventRecord struct {
	At   time.Time
	Node string
	event.Event
}

// LogRecord is one log line a node emitted, stamped with the cluster time.
type LogRecord struct {
	At   time.Time
	Node string
	event.LogLine
}

// tracef appends one line to the trace: the virtual time since the start
// in seconds with milliseconds, who it concerns, and what happened.
func (c *Cluster) tracef(who, format string, args ...any) {
	if c.opts.NoTrace {
		return
	}
	d := c.now.Sub(c.start)
	line := fmt.Sprintf("%6d.%03d %-3s ", int64(d/time.Second), int64(d%time.Second/time.Millisecond), who) + fmt.Sprintf(format, args...)
	c.trace = append(c.trace, line)
}

// Note adds a line of the scenario's own to the trace.
func (c *Cluster) Note(format string, args ...any) { c.tracef("##", format, args...) }

// Trace returns the trace so far, one line per event, delivery, action and
// control.
func (c *Cluster) Trace() []string { return append([]string(nil), c.trace...) }

// TraceString returns the whole trace as one text.
func (c *Cluster) TraceString() string { return strings.Join(c.trace, "\n") + "\n" }

// Events returns every event of every node, in the order they happened.
func (c *Cluster) Events() []EventRecord { return append([]EventRecord(nil), c.events...) }

// Logs returns every log line of every node, in order.
func (c *Cluster) Logs() []LogRecord { return append([]LogRecord(nil), c.logs...) }

// EventsOf returns the events of node (any node if "") of type typ (any
// type if ""), in order.
func (c *Cluster) EventsOf(node string, typ event.Type) []EventRecord {
	var out []EventRecord
	for _, e := range c.events {
		if (node == "" || e.Node == node) && (typ == "" || e.Type == typ) {
			out = append(out, e)
		}
	}
	return out
}

// EventsSince returns the events of node and type (as EventsOf) at or
// after t.
func (c *Cluster) EventsSince(t time.Time, node string, typ event.Type) []EventRecord {
	var out []EventRecord
	for _, e := range c.EventsOf(node, typ) {
		if !e.At.Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// HasEvent reports whether node (any if "") emitted an event of type typ
// whose message contains sub, at or after t.
func (c *Cluster) HasEvent(t time.Time, node string, typ event.Type, sub string) bool {
	for _, e := range c.EventsSince(t, node, typ) {
		if strings.Contains(e.Msg, sub) {
			return true
		}
	}
	return false
}
