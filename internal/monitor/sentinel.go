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

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/scriptq"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// ErrUnknownInput is returned by Step for an input type it does not handle.
var ErrUnknownInput = errors.New("unknown input")

// Options are the facts about the process the core needs and that are not
// part of the persisted Sentinel state.
type Options struct {
	// Port is this Sentinel's TCP port, announced in hellos unless
	// announce-port is set.
	Port int
	// TLSPort is announced instead of Port when TLSReplication is on.
	TLSPort        int
	TLSReplication bool
	// RequirePass is this Sentinel's own password, also used to
	// authenticate to other Sentinels when sentinel-pass is not set.
	RequirePass string
	// Accel selects go-sentinel's failover accelerations; the zero value
	// is Redis's timing (the daemon uses DefaultAccel).
	Accel settings.Accel
	// MasterRebootFlag makes the flags field of SENTINEL MASTER and
	// REPLICAS list master_reboot while a master's reboot is watched, as
	// Redis 7.2 and later do (the 7.2 command surface); Redis 7.0 never
	// shows it.
	MasterRebootFlag bool
}

// Sentinel is the state of one Sentinel. The zero value is not usable; use
// New. A Sentinel is owned by exactly one goroutine.
type Sentinel struct {
	rnd    *rand.Rand
	timing settings.Timing
	opts   Options

	myID         string
	currentEpoch uint64
	global       settings.Persisted // global settings; Masters is unused here

	masters map[string]*master
	names   []string // sorted master names, the dictionary order of replies

	lastTick int64 // 0 before the first tick
	// lastWall is the wall clock at the last tick (Tick), which TILT's
	// trigger compares; every other instant is on the monotonic clock.
	lastWall int64
	// startedAt is when the core was made (New), Unix ms.
	startedAt int64
	voteAsks  voteAsks // who asked for a vote lately (elect.go)
	// troubled counts the masters in trouble at the last tick (see
	// Accel.Budget).
	troubled int

	// busyUntil keeps the timer fast (Accel.BusyTick) until then;
	// nextDeadline is the earliest instant a timer-driven decision falls
	// due (an SDOWN deadline, the end of an election delay), 0 if none.
	busyUntil    int64
	nextDeadline int64

	tilt      bool
	tiltStart int64
	// tilts counts the times TILT was entered since start (INFO's
	// sentinel_total_tilt, as Valkey 9 shows it).
	tilts int64

	simFailure failover.SimFailure

	// addrs names and matches addresses (addresses.go).
	addrs addrBook

	scripts scriptq.Queue

	// links owns the connections and what is sent on them
	// (linktable.go).
	links linkTable

	out outbox

	// views keeps the View of the read-only queries up to date
	// (view_state.go).
	views viewState
}

// New builds a core from persisted state. If p has no MyID one is generated
// from rnd and a PersistConfig action is queued at once, as Redis does on
// first start. Every master gets a `+monitor` event.
func New(p settings.Persisted, o Options, rnd *rand.Rand, now time.Time) *Sentinel {
	s := &Sentinel{
		rnd:          rnd,
		timing:       settings.DefaultTiming(),
		opts:         o,
		myID:         p.MyID,
		startedAt:    ms(now),
		currentEpoch: p.CurrentEpoch,
		global:       p,
		masters:      make(map[string]*master),
	}
	s.links = linkTable{refs: make(map[msg.LinkID]linkRef), out: &s.out, views: &s.views}
	s.global.Masters = nil
	s.addrs.global = &s.global
	t := ms(now)
	for _, spec := range p.Masters {
		if spec.ConfigEpoch > s.currentEpoch {
			s.currentEpoch = spec.ConfigEpoch
		}
		m := s.addMaster(spec, t)
		for _, a := range spec.KnownReplicas {
			if m.findReplica(a) == nil {
				s.createReplica(m, a, t)
			}
		}
		for _, ks := range spec.KnownSentinels {
			if ks.RunID == "" || m.sentinels[ks.RunID] != nil {
				continue
			}
			si := s.createSentinel(m, ks.Addr, ks.RunID, t)
			s.shareLink(si)
		}
	}
	if s.myID == "" {
		s.myID = GenerateID(rnd)
		s.out.persist("new myid")
	}
	s.out.log(event.LevelWarning, "Sentinel ID is "+s.myID)
	for _, name := range s.names {
		m := s.masters[name]
		s.event(event.LevelWarning, event.Monitor, &m.instance, fmt.Sprintf(" quorum %d", m.settings.Quorum))
	}
	return s
}

func (s *Sentinel) addMaster(spec settings.MasterSpec, now int64) *master {
	m := &master{
		settings:    spec.Master,
		configEpoch: spec.ConfigEpoch,
		replicas:    map[string]*instance{},
		sentinels:   map[string]*instance{},
	}
	m.settings.RenameCommands = append([]settings.Rename(nil), spec.RenameCommands...)
	if m.settings.DownAfterMs <= 0 {
		m.settings.DownAfterMs = s.timing.DefaultDownAfterMs
	}
	if m.settings.FailoverTimeoutMs <= 0 {
		m.settings.FailoverTimeoutMs = s.timing.DefaultFailoverTimeoutMs
	}
	m.instance = newInstance(object.Master, spec.Name, spec.Addr, m, now)
	m.downAfter = m.settings.DownAfterMs
	m.leaderEpoch = spec.LeaderEpoch
	if spec.LeasesGranted {
		// Leases granted before this start bind the votes still.
		m.lease.granted = true
		m.lease.lapseAt = startLapse(now)
	}
	s.masters[spec.Name] = m
	s.names = append(s.names, spec.Name)
	sort.Strings(s.names)
	return m
}

// newInstance builds the common part of an object with a fresh link.
// A master or replica starts as reporting the role of its kind; a
// Sentinel reports none.
func newInstance(k object.Kind, name string, addr settings.Addr, m *master, now int64) instance {
	role := ""
	if k != object.Sentinel {
		role = k.String()
	}
	return instance{
		kind:      k,
		name:      name,
		addr:      addr,
		master:    m,
		link:      newLink(now),
		downAfter: m.downAfter,
		infoFacts: infoFacts{
			priority:         inforeply.DefaultSlavePriority,
			announced:        1,
			roleReported:     role,
			roleReportedTime: now,
		},
		// Redis starts these at creation time, so a Sentinel loaded
		// from the config shows last-hello-message counting from then.
		lastPubTime: now,
		peerFacts: peerFacts{
			lastHelloTime:           now,
			helloCell:               newTimeCell(now),
			lastMasterDownReplyTime: now,
		},
	}
}

// newTimeCell returns a cell holding t.
func newTimeCell(t int64) *view.TimeCell {
	c := new(view.TimeCell)
	c.Store(t)
	return c
}

// createReplica adds a replica object to m (no event, no flush).
func (s *Sentinel) createReplica(m *master, a settings.Addr, now int64) *instance {
	r := newInstance(object.Replica, s.addrs.announceAddr(a).String(), a, m, now)
	ri := &r
	m.replicas[ri.name] = ri
	m.replicaOrder = nil
	s.views.changed(m)
	return ri
}

// createSentinel adds a sentinel object to m (no event, no flush).
func (s *Sentinel) createSentinel(m *master, a settings.Addr, runID string, now int64) *instance {
	si := newInstance(object.Sentinel, runID, a, m, now)
	si.runID = runID
	p := &si
	m.sentinels[runID] = p
	m.sentinelOrder = nil
	s.views.changed(m)
	return p
}

// dropReplica forgets replica r of m, releasing its link.
func (s *Sentinel) dropReplica(m *master, r *instance) {
	s.links.release(r)
	r.removed = true
	delete(m.replicas, r.name)
	m.replicaOrder = nil
	s.views.changed(m)
}

// dropSentinel forgets sentinel object si of m, releasing its link.
func (s *Sentinel) dropSentinel(m *master, si *instance) {
	s.links.release(si)
	si.removed = true
	delete(m.sentinels, si.name)
	m.sentinelOrder = nil
	s.views.changed(m)
}

// findReplica looks a replica of m up by address.
func (m *master) findReplica(a settings.Addr) *instance {
	for _, r := range m.replicas {
		if sameAddr(r.addr, a) {
			return r
		}
	}
	return nil
}

// shareLink makes a sentinel object use the link of another object with
// the same run id under another master, as Redis shares one connection per
// physical Sentinel.
func (s *Sentinel) shareLink(si *instance) {
	if si.runID == "" || si.link.refcount > 1 {
		return
	}
	for _, name := range s.names {
		m := s.masters[name]
		if m == si.master {
			continue
		}
		other := m.sentinels[si.runID]
		if other == nil || other == si {
			continue
		}
		s.links.release(si)
		si.link = other.link
		si.link.refcount++
		s.views.linkChanged(si.link)
		s.views.changed(si.master) // si shows another link
		return
	}
}

// MyID returns this Sentinel's 40-character run id.
func (s *Sentinel) MyID() string { return s.myID }

// CurrentEpoch returns the highest epoch this Sentinel has seen.
func (s *Sentinel) CurrentEpoch() uint64 { return s.currentEpoch }

// Timing returns the current timer settings.
func (s *Sentinel) Timing() settings.Timing { return s.timing }

// Tilt reports whether the Sentinel is in TILT mode and since when.
func (s *Sentinel) Tilt() (bool, time.Time) {
	return s.tilt, time.UnixMilli(s.tiltStart)
}

// Snapshot returns the state to persist, masters in name order.
func (s *Sentinel) Snapshot() settings.Persisted {
	p := s.global
	p.MyID = s.myID
	p.CurrentEpoch = s.currentEpoch
	p.Masters = make([]settings.MasterSpec, 0, len(s.names))
	for _, name := range s.names {
		p.Masters = append(p.Masters, s.masters[name].spec())
	}
	return p
}

// Ready returns what the core produced since the last call and forgets it.
func (s *Sentinel) Ready() msg.Ready { return s.out.take() }

// event emits an event about inst (nil for events with no instance) with
// msg appended to the instance prefix.
func (s *Sentinel) event(l event.Level, typ event.Type, inst *instance, msg string) {
	s.emit(s.addrs.eventAbout(l, typ, inst, msg))
}

// eventAbout builds the event Sentinel.event emits about inst, naming
// addresses as b announces them.
func (b *addrBook) eventAbout(l event.Level, typ event.Type, inst *instance, msg string) event.Event {
	e := event.Event{Level: l, Type: typ}
	if inst != nil {
		e.Msg = inst.prefix(b.announceHost) + msg
		e.Master = inst.master.name
		e.Role = inst.kind.String()
		e.Name = inst.name
		e.Addr = b.announceAddr(inst.addr)
	} else {
		e.Msg = msg
	}
	return e
}

// eventFor emits an event with a bare message that still belongs to a
// master (`+new-epoch`, `+vote-for-leader`, `+switch-master`).
func (s *Sentinel) eventFor(l event.Level, typ event.Type, m *master, msg string) {
	e := event.Event{Level: l, Type: typ, Msg: msg}
	if m != nil {
		e.Master = m.name
	}
	s.emit(e)
}

// emit records an event and, for warnings about a master with a
// notification-script, queues the script with `<type> <message>`. The
// master the event is about is recorded as changed for the View: what an
// event tells of is in the View that is published before it.
func (s *Sentinel) emit(e event.Event) {
	if m := s.masters[e.Master]; m != nil {
		s.views.changed(m)
	}
	if s.out.crashed {
		return
	}
	e.Epoch = s.currentEpoch
	ev := e
	s.out.Logs = append(s.out.Logs, event.LogLine{Level: e.Level, Text: e.String(), Event: &ev})
	if e.Level != event.LevelWarning || e.Master == "" {
		return
	}
	if m := s.masters[e.Master]; m != nil && m.settings.NotificationScript != "" {
		s.scripts.Schedule([]string{m.settings.NotificationScript, string(e.Type), e.Msg})
	}
}
