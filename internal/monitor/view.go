package monitor

import (
	"sync/atomic"

	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// This file defines the View, an immutable picture of what the read-only
// queries show, and how Steps record what they change for it;
// view_build.go brings it up to date, view_queries.go renders the replies
// from it.

// View is an immutable picture of what the read-only queries show
// (SENTINEL MASTER, MASTERS, REPLICAS, SENTINELS, GET-MASTER-ADDR-BY-NAME,
// CKQUORUM, INFO's sentinel section), as the core was when
// Sentinel.View returned it. Nothing in a View changes after it was
// returned but its links' state (linkCell: pending commands, PING times,
// connections up), which the core updates in place with atomic stores:
// that is what changes with every command sent and reply received, and
// it is never announced, so a View shows it as it is now rather than
// being rebuilt for it (at 1,000 masters that rebuilding had taken half
// of the loop's time). Any goroutine may read a View while the core's
// owner goes on. It keeps instants, not ages: a
// reply that shows how long ago something happened ("last-ok-ping-reply",
// "info-refresh") computes it against the time the query passes, when
// the query runs, as Redis computes it when it answers.
//
// The invariant: a View reflects every Step and Tick that came before the
// call to Sentinel.View that returned it, so it is never older than any
// event those produced. An owner that publishes it before carrying out
// Ready (node.Loop does) therefore never lets a client see a state older
// than one the client has been told of: who saw +switch-master and then
// asks for the master's address gets the new one.
//
// Successive Views share what did not change: the masters are held in
// chunks, and an object, a master or a chunk that shows the same as in
// the previous View is that View's, so bringing the View up to date
// after a change allocates about what changed.
type View struct {
	// chunks hold the masters in name order, viewChunk to a chunk (the
	// last one is filled up to the number of masters).
	chunks []*viewChunkOf
	// index is a master's position; Views with the same master names
	// share it.
	index map[string]int
	// resolved is the core's map of resolved hostnames when the View was
	// built (the core replaces it rather than change it), for AnswerAsk.
	resolved map[string]string

	viewGlobals
}

// viewChunk is the number of masters in a chunk of View.chunks: a change
// to one master copies its chunk and the list of chunks, not a pointer
// per master.
const viewChunk = 32

// viewChunkOf is one chunk of View.chunks.
type viewChunkOf [viewChunk]*masterView

// viewGlobals are the View's figures that are not about one master.
type viewGlobals struct {
	tilt       bool
	tiltStart  int64
	tilts      int64
	running    int // scripts running
	queued     int // scripts queued, running ones included
	simFailure failover.SimFailure
	// rebootFlag is Options.MasterRebootFlag.
	rebootFlag bool
	// resolvedGen tells Views with different resolved maps apart.
	resolvedGen int
}

// masterView is one master as the queries show it.
type masterView struct {
	masterHead
	inst      *instView
	replicas  []*instView // by name, replica-announced 0 included
	sentinels []*instView // by run id
}

// masterHead is what a masterView shows besides its objects.
type masterHead struct {
	configEpoch          uint64
	quorum               int
	failoverTimeout      int64 // ms
	parallelSyncs        int
	notificationScript   string
	clientReconfigScript string
	// forgetReplicaAfter is forget-replica-after in ms; 0: off.
	forgetReplicaAfter int64
	// voters is the voters floor, forgetSentinelAfter
	// forget-sentinel-after in ms; 0: off.
	voters              int
	forgetSentinelAfter int64
	// addr is the address clients should use (GET-MASTER-ADDR-BY-NAME),
	// infoAddr the configured one (INFO sentinel), both as announced.
	addr     settings.Addr
	infoAddr settings.Addr
	// askAddr is the configured address as stored (a hostname stays
	// one): what IS-MASTER-DOWN-BY-ADDR is matched against.
	askAddr settings.Addr
	// proxy is the master-following proxy's settings and decision.
	proxy proxyHead
}

// instView is one object as the queries show it: a copy of what
// instanceMap reads, times as Unix ms.
type instView struct {
	kind  object.Kind
	name  string
	ip    string // as announced
	port  int
	runID string
	flags object.Flag

	// link is the object's link, as it is now (one Sentinel's link is
	// shared by its objects under several masters).
	link *linkCell

	failoverState string // set with object.FailoverInProgress

	downAfter        int64
	sdownSince       int64
	odownSince       int64
	infoRefresh      int64
	roleReported     string
	roleReportedTime int64

	// Replicas.
	masterLinkDownTime int64
	masterLinkUp       bool
	slaveMasterHost    string
	slaveMasterPort    int
	priority           int
	replOffset         uint64
	announced          int

	// Sentinels.
	lastHelloTime int64
	leader        string
	leaderEpoch   uint64
}

// linkView is a link as the queries show it.
type linkView struct {
	pending       int
	refcount      int
	actPingTime   int64
	lastAvailTime int64
	lastPongTime  int64
	ccUp, pcUp    bool
}

// viewOfLink is what the queries show of l.
func viewOfLink(l *link) linkView {
	return linkView{
		pending:       len(l.pending),
		refcount:      l.refcount,
		actPingTime:   l.actPingTime,
		lastAvailTime: l.lastAvailTime,
		lastPongTime:  l.lastPongTime,
		ccUp:          l.ccUp,
		pcUp:          l.pcUp,
	}
}

// linkCell holds what the queries show of a link, stored by the core
// (linkChanged) after every change and loaded by any goroutine. Each
// field is stored atomically on its own: a query running during a store
// may mix the link's state just before and just after it, as a reply
// racing a PING in Redis would show either.
type linkCell struct {
	pending, refcount                        atomic.Int64
	actPingTime, lastAvailTime, lastPongTime atomic.Int64
	up                                       atomic.Uint32 // cellCCUp | cellPCUp
}

const (
	cellCCUp = 1 << iota
	cellPCUp
)

// store records l in c.
func (c *linkCell) store(l *link) {
	c.pending.Store(int64(len(l.pending)))
	c.refcount.Store(int64(l.refcount))
	c.actPingTime.Store(l.actPingTime)
	c.lastAvailTime.Store(l.lastAvailTime)
	c.lastPongTime.Store(l.lastPongTime)
	var up uint32
	if l.ccUp {
		up |= cellCCUp
	}
	if l.pcUp {
		up |= cellPCUp
	}
	c.up.Store(up)
}

// load returns what c holds.
func (c *linkCell) load() linkView {
	up := c.up.Load()
	return linkView{
		pending:       int(c.pending.Load()),
		refcount:      int(c.refcount.Load()),
		actPingTime:   c.actPingTime.Load(),
		lastAvailTime: c.lastAvailTime.Load(),
		lastPongTime:  c.lastPongTime.Load(),
		ccUp:          up&cellCCUp != 0,
		pcUp:          up&cellPCUp != 0,
	}
}

// viewState is what the core keeps to bring its View up to date.
type viewState struct {
	cur *View
	// all: compare every master at the next View (after a command, a
	// link shared or released), not only those recorded.
	all bool
	// masters are the masters, links the links, recorded as changed
	// since cur was built (their viewDirty is set).
	masters []*master
	links   []*link
	// names are the master names cur.index was built for.
	names []string
}

// changed records that what the queries show of m changed: the next View
// looks at m again. Every event about m records it (emit), which covers
// the changes the timers make (SDOWN, ODOWN, the failover's steps); the
// silent ones record themselves (a command sent, a link closed, a peer's
// stale report cleared, an INFO reply), and so do the Steps of peers; a
// link's own state goes to its cell instead (linkChanged).
func (vs *viewState) changed(m *master) {
	if m.viewDirty || vs.all {
		return
	}
	m.viewDirty = true
	vs.masters = append(vs.masters, m)
}

// linkChanged records that what the queries show of l changed: the next
// View stores it in l's cell, which every View shows l through. No master
// needs looking at again for it.
func (vs *viewState) linkChanged(l *link) {
	if !l.viewDirty {
		l.viewDirty = true
		vs.links = append(vs.links, l)
	}
}

// changedAll records a change that may touch any master (a command, a
// link shared or released): the next View compares every master with the
// previous View.
func (vs *viewState) changedAll() { vs.all = true }
