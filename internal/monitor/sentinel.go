// Package monitor is the Sentinel core: all per-master state (masters,
// replicas, known Sentinels, flags, epochs, failover progress) and the rules
// that change it. It is pure and deterministic: time comes in as an argument
// to Tick and Step, randomness from an injected *rand.Rand, and everything it
// wants done comes out of Ready as values. It starts no goroutine and does no
// I/O, so whole fleets of cores can be simulated in one test.
package monitor

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"time"
)

// ErrNoSuchMaster is returned for a master name the core does not monitor.
var ErrNoSuchMaster = errors.New("no such master with that name")

// ErrUnknownInput is returned by Step for an input type it does not handle.
var ErrUnknownInput = errors.New("unknown input")

// Sentinel is the state of one Sentinel. The zero value is not usable; use
// New. A Sentinel is owned by exactly one goroutine.
type Sentinel struct {
	rnd    *rand.Rand
	timing Timing

	myID         string
	currentEpoch uint64
	global       Persisted // global settings; Masters is unused here

	masters map[string]*master
	names   []string // sorted master names, the dictionary order of replies

	started  time.Time
	lastTick time.Time // zero before the first tick

	tilt      bool
	tiltStart time.Time

	simFailure SimFailure

	out Ready
}

// master is the live state of one monitored master.
type master struct {
	spec MasterSpec
}

// SimFailure is the bit set of SENTINEL SIMULATE-FAILURE flags.
type SimFailure int

// The failure simulation flags, with Redis's bit values.
const (
	SimCrashAfterElection  SimFailure = 1 << 0
	SimCrashAfterPromotion SimFailure = 1 << 1
)

// New builds a core from persisted state. If p has no MyID one is generated
// from rnd and a PersistConfig action is queued at once, as Redis does on
// first start. Every master gets a `+monitor` event.
func New(p Persisted, rnd *rand.Rand, now time.Time) *Sentinel {
	s := &Sentinel{
		rnd:          rnd,
		timing:       DefaultTiming(),
		myID:         p.MyID,
		currentEpoch: p.CurrentEpoch,
		global:       p,
		masters:      make(map[string]*master),
		started:      now,
	}
	s.global.Masters = nil
	for _, m := range p.Masters {
		if m.ConfigEpoch > s.currentEpoch {
			s.currentEpoch = m.ConfigEpoch
		}
		s.addMaster(m)
	}
	if s.myID == "" {
		s.myID = GenerateID(rnd)
		s.persist("new myid")
	}
	s.log(LevelWarning, "Sentinel ID is "+s.myID)
	for _, name := range s.names {
		m := s.masters[name]
		s.emit(LevelWarning, "+monitor", m.prefix()+fmt.Sprintf(" quorum %d", m.spec.Quorum), name)
	}
	return s
}

func (s *Sentinel) addMaster(spec MasterSpec) {
	s.masters[spec.Name] = &master{spec: spec}
	s.names = append(s.names, spec.Name)
	sort.Strings(s.names)
}

// prefix is the instance part of an event message for a master.
func (m *master) prefix() string {
	return fmt.Sprintf("master %s %s %d", m.spec.Name, m.spec.Addr.Host, m.spec.Addr.Port)
}

// MyID returns this Sentinel's 40-character run id.
func (s *Sentinel) MyID() string { return s.myID }

// CurrentEpoch returns the highest epoch this Sentinel has seen.
func (s *Sentinel) CurrentEpoch() uint64 { return s.currentEpoch }

// Timing returns the current timer settings.
func (s *Sentinel) Timing() Timing { return s.timing }

// Tilt reports whether the Sentinel is in TILT mode and since when.
func (s *Sentinel) Tilt() (bool, time.Time) { return s.tilt, s.tiltStart }

// SimulateFailure returns the active failure simulation flags.
func (s *Sentinel) SimulateFailure() SimFailure { return s.simFailure }

// Snapshot returns the state to persist, masters in name order.
func (s *Sentinel) Snapshot() Persisted {
	p := s.global
	p.MyID = s.myID
	p.CurrentEpoch = s.currentEpoch
	p.Masters = make([]MasterSpec, 0, len(s.names))
	for _, name := range s.names {
		p.Masters = append(p.Masters, s.masters[name].spec)
	}
	return p
}

// Ready returns what the core produced since the last call and forgets it.
func (s *Sentinel) Ready() Ready {
	r := s.out
	s.out = Ready{}
	return r
}

func (s *Sentinel) emit(l Level, typ, msg, masterName string) {
	s.out.Events = append(s.out.Events, Event{Level: l, Type: typ, Msg: msg, Master: masterName})
}

func (s *Sentinel) log(l Level, text string) {
	s.out.Logs = append(s.out.Logs, LogLine{Level: l, Text: text})
}

// persist queues one PersistConfig; several requests between two calls to
// Ready collapse into one.
func (s *Sentinel) persist(reason string) {
	for _, a := range s.out.Actions {
		if _, ok := a.(PersistConfig); ok {
			return
		}
	}
	s.out.Actions = append(s.out.Actions, PersistConfig{Reason: reason})
}
