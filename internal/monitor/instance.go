package monitor

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// instance is a master, a replica or another Sentinel as this Sentinel
// sees it. All times are Unix milliseconds; 0 means never, as in Redis, so
// `now - t` for a t that never happened is huge.
type instance struct {
	kind   object.Kind
	name   string // master name, `ip:port` of a replica, run id of a sentinel
	addr   settings.Addr
	runID  string
	master *master // the master this object belongs to (itself for a master)
	link   *link
	flags  object.Flag

	downAfter int64 // ms

	sdownSince int64
	odownSince int64

	// infoFacts is what the object's INFO reports (masters and
	// replicas).
	infoFacts

	// lastPubTime is the last hello we sent to it that was accepted.
	lastPubTime int64

	// leader and leaderEpoch are a vote: for a master, our own vote to
	// fail it over; for a sentinel object, its vote as its last
	// IS-MASTER-DOWN-BY-ADDR reply gave it.
	leader      string
	leaderEpoch uint64

	// peerFacts is what this Sentinel knows of another one (sentinel
	// objects).
	peerFacts
	// replicaFacts is what a reconfiguration and forgetting need of a
	// replica (replica objects).
	replicaFacts

	// removed is set when the object leaves the state (a reply may still
	// arrive for it).
	removed bool
}

func (i *instance) has(f object.Flag) bool { return i.flags&f != 0 }

// prefix is the instance part of an event message (§11.1 of the
// reference): `master <name> <ip> <port>`, or for replicas and sentinels
// `<type> <name> <ip> <port> @ <master> <master-ip> <master-port>`.
func (i *instance) prefix(announce func(settings.Addr) string) string {
	switch i.kind {
	case object.Master:
		return fmt.Sprintf("master %s %s %d", i.name, announce(i.addr), i.addr.Port)
	case object.Replica:
		m := i.master
		return fmt.Sprintf("slave %s %s %d @ %s %s %d", i.name, announce(i.addr), i.addr.Port,
			m.name, announce(m.addr), m.addr.Port)
	default:
		m := i.master
		return fmt.Sprintf("sentinel %s %s %d @ %s %s %d", i.name, announce(i.addr), i.addr.Port,
			m.name, announce(m.addr), m.addr.Port)
	}
}

// sameAddr compares two addresses: same port and the same host, where
// numeric IPs are compared in canonical form (so "::ffff:10.0.0.1" and
// "10.0.0.1", or "2001:db8:0::1" and "2001:db8::1", are the same host)
// and hostnames case-insensitively as written.
func sameAddr(a, b settings.Addr) bool {
	if a.Port != b.Port {
		return false
	}
	if strings.EqualFold(a.Host, b.Host) {
		return true
	}
	ai, aok := settings.CanonicalIP(a.Host)
	bi, bok := settings.CanonicalIP(b.Host)
	return aok && bok && ai == bi
}
