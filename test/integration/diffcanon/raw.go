// Package diffcanon turns what the Sentinels of two fleets published
// (events and script invocations) into canonical sequences that are equal
// run after run when both fleets behave the same, and compares them. It is
// the pure half of the differential oracle in test/integration; every rule
// that drops, merges or reorders something is a function here with the
// reason it is needed.
package diffcanon

import (
	"strings"
	"time"
)

// Raw is one event as a Sentinel published it: the channel is the event
// type, the payload its message.
type Raw struct {
	At   time.Duration // since the fleet started recording
	Type string
	Msg  string
}

// Mark is the Type of a scenario step recorded in a Sentinel's sequence
// (for example its own restart); Msg names the step.
const Mark = "#"

// Recording is everything one Sentinel did during a scenario: the events
// it published, in order, and the argv of each script invocation, one
// line per invocation in the order the recording script appended them.
type Recording struct {
	Sentinel string
	// Redis says the recording is of redis-sentinel, the reference: the
	// rules marked RedisOnly (Redis's own defects that go-sentinel does
	// not copy) apply to it only.
	Redis    bool
	Events   []Raw
	Notify   []string
	Reconfig []string
}

// Subject returns the instance an event message is about: its kind
// (master, slave, sentinel) and its "ip:port". Messages that do not start
// with an instance (+new-epoch, +vote-for-leader, +switch-master, ...)
// have kind "" and no address.
//
// Instance messages are "<kind> <name> <ip> <port> [@ <master> <ip>
// <port>] [more]"; for a replica the name is its ip:port, for a Sentinel
// its run id, for a master the master name.
func Subject(msg string) (kind, addr string) {
	f := strings.Fields(msg)
	if len(f) < 4 {
		return "", ""
	}
	switch f[0] {
	case "master", "slave", "sentinel":
		return f[0], f[2] + ":" + f[3]
	}
	return "", ""
}
