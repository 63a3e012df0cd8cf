package monitor

import "github.com/go-sentinel/go-sentinel/internal/view"

// This file holds what the core keeps to bring its View (internal/view)
// up to date, and how Steps record what they change for it; view_build.go
// builds the View.

// viewOfLink is what the queries show of l.
func viewOfLink(l *link) view.Link {
	return view.Link{
		Pending:       len(l.pending),
		Refcount:      l.refcount,
		ActPingTime:   l.actPingTime,
		LastAvailTime: l.lastAvailTime,
		LastPongTime:  l.lastPongTime,
		CCUp:          l.ccUp,
		PCUp:          l.pcUp,
	}
}

// viewState is what the core keeps to bring its View up to date.
type viewState struct {
	cur *view.View
	// all: compare every master at the next View (after a command, a
	// link shared or released), not only those recorded.
	all bool
	// masters are the masters, links the links, recorded as changed
	// since cur was built (their viewDirty is set).
	masters []*master
	links   []*link
	// names are the master names cur.Index was built for.
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
