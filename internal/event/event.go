// Package event holds what a Sentinel announces: the event types (each
// both a log prefix and a pub/sub channel, as Redis names them), their
// levels, the events and log lines the core produces, and a failover's
// timeline. The core emits them; adapters log, publish and count them.
package event

import "github.com/go-sentinel/go-sentinel/internal/settings"

// Level is the importance of an event or log line, in Redis's four steps.
// The core has its own type so it never imports a logging library; adapters
// map it onto theirs.
type Level int

// The levels, from least to most important, as Redis names them.
const (
	LevelDebug Level = iota
	LevelVerbose
	LevelNotice
	LevelWarning
)

// Event is one Sentinel event: Type is both the log prefix and the pub/sub
// channel (`+sdown`), Msg is the payload (`master mymaster 127.0.0.1 6379`).
// Master names the master the event belongs to ("" for events that concern
// no master, such as `+tilt`); it decides which notification-script runs.
type Event struct {
	Level  Level
	Type   Type
	Msg    string
	Master string
	// Role, Name and Addr describe the instance the event is about
	// ("master", "slave" or "sentinel"; its name; its address as
	// announced), all empty for events about no instance (+tilt,
	// +new-epoch, +switch-master). Epoch is this Sentinel's current epoch
	// when the event happened. They are for structured logs and metrics;
	// Msg already says the same for people.
	Role  string
	Name  string
	Addr  settings.Addr
	Epoch uint64
	// Timeline is the failover's record, set on FailoverTimeline
	// events only (the metrics count its phases).
	Timeline *Timeline
}

// String is the event as Redis logs it: `<type> <message>`.
func (e Event) String() string { return string(e.Type) + " " + e.Msg }

// Published reports whether the event goes to pub/sub subscribers: every
// level except debug.
func (e Event) Published() bool { return e.Level > LevelDebug }

// LogLine is one log message from the core: an event's line (`<type>
// <message>`, with Event set) or another message such as `Sentinel ID is
// <id>` (Event nil).
type LogLine struct {
	Level Level
	Text  string
	Event *Event
}

// WithTimeline returns e carrying tl.
func (e Event) WithTimeline(tl *Timeline) Event {
	e.Timeline = tl
	return e
}
