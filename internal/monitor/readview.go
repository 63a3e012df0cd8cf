package monitor

// This file defines the View, an immutable picture of what the read-only
// queries show, and how Steps record what they change for it;
// readview_build.go brings it up to date, view.go renders the replies
// from it.

// View is an immutable picture of what the read-only queries show
// (SENTINEL MASTER, MASTERS, REPLICAS, SENTINELS, GET-MASTER-ADDR-BY-NAME,
// CKQUORUM, INFO's sentinel section), as the core was when
// Sentinel.View returned it. Nothing in a View changes after it was
// returned and it holds no reference into the core, so any goroutine may
// read it while the core's owner goes on. It keeps instants, not ages: a
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
	// shared holds the links used by several objects (one Sentinel
	// under several masters) by viewKey, so that a change to one is
	// recorded once, not in every master that shows it.
	shared map[uint64]linkView

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
	running    int // scripts running
	queued     int // scripts queued, running ones included
	simFailure SimFailure
}

// masterView is one master as the queries show it.
type masterView struct {
	masterHead
	inst      *instView
	replicas  []*instView // by name, replica-announced 0 included
	sentinels []*instView // by run id
	// links are the objects' links in the order master, replicas,
	// Sentinels (zero for a shared one, in View.shared): what changes
	// with every command sent and reply received, kept apart and free
	// of pointers so that such a change copies only this.
	links []linkView
}

// masterHead is what a masterView shows besides its objects.
type masterHead struct {
	configEpoch          uint64
	quorum               int
	failoverTimeout      int64 // ms
	parallelSyncs        int
	notificationScript   string
	clientReconfigScript string
	// addr is the address clients should use (GET-MASTER-ADDR-BY-NAME),
	// infoAddr the configured one (INFO sentinel), both as announced.
	addr     Addr
	infoAddr Addr
}

// instView is one object as the queries show it: a copy of what
// instanceMap reads, times as Unix ms.
type instView struct {
	kind  kind
	name  string
	ip    string // as announced
	port  int
	runID string
	flags flag

	// shared names the object's link in View.shared when several
	// objects use it; 0 when the link is in masterView.links.
	shared uint64

	failoverState string // set with flagFailoverInProgress

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

// viewState is what the core keeps to bring its View up to date.
type viewState struct {
	cur *View
	// all: compare every master at the next View (after a command, a
	// link shared or released), not only those recorded.
	all bool
	// masters are the masters, links the shared links, recorded as
	// changed since cur was built (their viewDirty is set).
	masters []*master
	links   []*link
	// names are the master names cur.index was built for.
	names []string
	// lastKey is the last viewKey given to a link.
	lastKey uint64
	// scratch collects the links of one master while it is looked at.
	scratch []linkView
}

// changed records that what the queries show of m changed: the next View
// looks at m again. Every event about m records it (emit), which covers
// the changes the timers make (SDOWN, ODOWN, the failover's steps); the
// silent ones record themselves (a command sent, a link closed, a peer's
// stale report cleared), and so do the Steps of links and peers.
func (s *Sentinel) changed(m *master) {
	if m.viewDirty || s.views.all {
		return
	}
	m.viewDirty = true
	s.views.masters = append(s.views.masters, m)
}

// linkChanged records that l changed, a link owner uses or used: a
// shared link is looked at alone at the next View, any other with its
// owner's master. An owner that is gone or moved to another link (a
// reply to a command sent before a Sentinel object was dropped) has
// every master looked at, as the master of l's remaining user is not
// known.
func (s *Sentinel) linkChanged(l *link, owner *instance) {
	switch {
	case s.views.all:
	case l.refcount > 1:
		if !l.viewDirty {
			l.viewDirty = true
			s.views.links = append(s.views.links, l)
		}
	case owner.link == l && s.instanceAlive(owner):
		s.changed(owner.master)
	default:
		s.changedAll()
	}
}

// changedAll records a change that may touch any master (a command, a
// link shared or released): the next View compares every master with the
// previous View.
func (s *Sentinel) changedAll() { s.views.all = true }
