package monitor

import (
	"slices"

	"github.com/go-sentinel/go-sentinel/internal/object"
)

// View returns the View of the core as it is now (see View for its
// invariant). It returns the previous View when nothing a query shows
// changed since. Otherwise it looks again at the masters that Steps and
// Ticks recorded as changed, or at every master after a command, and
// keeps from the previous View every object, master and chunk of masters
// that shows the same. Either way it first stores the links recorded as
// changed in their cells, which every View shows.
func (s *Sentinel) View() *View {
	vs := &s.views
	for _, l := range vs.links {
		l.cell.store(l)
		l.viewDirty = false
	}
	vs.links = vs.links[:0]
	g := s.viewGlobals()
	old := vs.cur
	var v *View
	switch {
	case old == nil || vs.all && !slices.Equal(vs.names, s.names):
		// Masters come and go by commands only, which set all.
		v = s.viewByName(g, old)
		vs.names = slices.Clone(s.names)
	case vs.all:
		v = s.viewScan(g)
	case len(vs.masters) == 0 && old.viewGlobals == g:
		return old
	default:
		v = s.viewPatch(g)
	}
	for _, m := range vs.masters {
		m.viewDirty = false
	}
	vs.masters, vs.all = vs.masters[:0], false
	vs.cur = v
	return v
}

// viewGlobals returns the View's global figures as they are now.
func (s *Sentinel) viewGlobals() viewGlobals {
	running, queued := s.scripts.Counts()
	return viewGlobals{tilt: s.tilt, tiltStart: s.tiltStart, tilts: s.tilts, running: running, queued: queued, simFailure: s.simFailure, resolvedGen: s.addrs.resolvedGen, rebootFlag: s.opts.MasterRebootFlag}
}

// viewByName builds a View with a new index (the first View, or the
// master names changed), taking from old, by name, what shows the same;
// old may be nil.
func (s *Sentinel) viewByName(g viewGlobals, old *View) *View {
	v := &View{viewGlobals: g, index: make(map[string]int, len(s.names)), resolved: s.addrs.resolved}
	b := viewBuilder{s: s}
	for k, name := range s.names {
		v.index[name] = k
		var prev *masterView
		if old != nil {
			if j, ok := old.index[name]; ok {
				prev = old.at(j)
			}
		}
		if k%viewChunk == 0 {
			v.chunks = append(v.chunks, new(viewChunkOf))
		}
		v.chunks[k/viewChunk][k%viewChunk] = b.master(s.masters[name], prev)
	}
	return v
}

// viewScan looks at every master (after a command), the names
// unchanged. It returns the previous View if nothing changed.
func (s *Sentinel) viewScan(g viewGlobals) *View {
	old := s.views.cur
	b := viewBuilder{s: s}
	w := chunkWriter{chunks: old.chunks}
	for k, name := range s.names {
		w.set(k, b.master(s.masters[name], old.at(k)))
	}
	if w.copied == nil && g == old.viewGlobals {
		return old
	}
	return &View{viewGlobals: g, index: old.index, chunks: w.chunks, resolved: s.addrs.resolved}
}

// viewPatch looks at the masters recorded as changed; it returns the
// previous View if none shows a change.
func (s *Sentinel) viewPatch(g viewGlobals) *View {
	vs := &s.views
	old := vs.cur
	b := viewBuilder{s: s}
	w := chunkWriter{chunks: old.chunks}
	for _, m := range vs.masters {
		if k, ok := old.index[m.name]; ok && s.masters[m.name] == m {
			w.set(k, b.master(m, old.at(k)))
		}
	}
	if w.copied == nil && g == old.viewGlobals {
		return old
	}
	return &View{viewGlobals: g, index: old.index, chunks: w.chunks, resolved: s.addrs.resolved}
}

// at returns the k-th master in name order.
func (v *View) at(k int) *masterView { return v.chunks[k/viewChunk][k%viewChunk] }

// chunkWriter sets masters of a View whose chunks start as another
// View's: the chunk list and a chunk are copied on their first change,
// and shared otherwise.
type chunkWriter struct {
	chunks []*viewChunkOf
	copied []bool // chunks copied already; nil while none is
}

// set makes mv the k-th master.
func (w *chunkWriter) set(k int, mv *masterView) {
	c, j := k/viewChunk, k%viewChunk
	if w.chunks[c][j] == mv {
		return
	}
	if w.copied == nil {
		w.chunks = slices.Clone(w.chunks)
		w.copied = make([]bool, len(w.chunks))
	}
	if !w.copied[c] {
		chunk := *w.chunks[c]
		w.chunks[c] = &chunk
		w.copied[c] = true
	}
	w.chunks[c][j] = mv
}

// viewBuilder builds the masterViews of one View.
type viewBuilder struct {
	s *Sentinel
}

// master returns m's masterView: old itself when m shows what old shows,
// else a new one that keeps old's objects that show the same.
func (b *viewBuilder) master(m *master, old *masterView) *masterView {
	s := b.s
	head := masterHead{
		configEpoch:          m.configEpoch,
		quorum:               m.settings.Quorum,
		failoverTimeout:      m.settings.FailoverTimeoutMs,
		parallelSyncs:        m.settings.ParallelSyncs,
		notificationScript:   m.settings.NotificationScript,
		clientReconfigScript: m.settings.ClientReconfigScript,
		forgetReplicaAfter:   m.settings.ForgetReplicaAfterMs,
		voters:               m.settings.Voters,
		forgetSentinelAfter:  m.settings.ForgetSentinelAfterMs,
		addr:                 s.addrs.announceAddr(m.currentAddr()),
		infoAddr:             s.addrs.announceAddr(m.addr),
		askAddr:              m.addr,
		proxy:                m.proxyHeadOf(),
	}
	var oldInst *instView
	var oldReplicas, oldSentinels []*instView
	if old != nil {
		oldInst, oldReplicas, oldSentinels = old.inst, old.replicas, old.sentinels
	}
	rs, ss := m.sortedReplicas(), m.sortedSentinels()
	inst := b.inst(&m.instance, oldInst)
	replicas := b.insts(rs, oldReplicas)
	sentinels := b.insts(ss, oldSentinels)
	if old != nil && head == old.masterHead && inst == old.inst && sameViews(replicas, old.replicas) &&
		sameViews(sentinels, old.sentinels) {
		return old
	}
	return &masterView{masterHead: head, inst: inst, replicas: replicas, sentinels: sentinels}
}

// sameViews reports whether a and b are the same slice.
func sameViews(a, b []*instView) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// insts returns the views of list, keeping those of old (at the same
// positions) that show the same: old itself if all do.
func (b *viewBuilder) insts(list []*instance, old []*instView) []*instView {
	var out []*instView
	for k, i := range list {
		var prev *instView
		if k < len(old) {
			prev = old[k]
		}
		v := b.inst(i, prev)
		if out == nil && v != prev {
			out = make([]*instView, len(list))
			copy(out, old[:k])
		}
		if out != nil {
			out[k] = v
		}
	}
	if out == nil {
		return old[:len(list):len(list)] // old, or a prefix of it
	}
	return out
}

// inst returns i's view: old when i shows what old shows (its link is
// shown through its cell, the same from one View to the next).
func (b *viewBuilder) inst(i *instance, old *instView) *instView {
	v := instView{
		kind:               i.kind,
		name:               i.name,
		ip:                 b.s.addrs.announceHost(i.addr),
		port:               i.addr.Port,
		runID:              i.runID,
		flags:              i.flags,
		downAfter:          i.downAfter,
		sdownSince:         i.sdownSince,
		odownSince:         i.odownSince,
		infoRefresh:        i.infoRefresh,
		roleReported:       i.roleReported,
		roleReportedTime:   i.roleReportedTime,
		masterLinkDownTime: i.masterLinkDownTime,
		masterLinkUp:       i.masterLinkUp,
		slaveMasterHost:    i.slaveMasterHost,
		slaveMasterPort:    i.slaveMasterPort,
		priority:           i.priority,
		replOffset:         i.replOffset,
		announced:          i.announced,
		lastHelloTime:      i.lastHelloTime,
		leader:             i.leader,
		leaderEpoch:        i.leaderEpoch,
		link:               &i.link.cell,
	}
	if i.has(object.FailoverInProgress) {
		v.failoverState = i.master.failoverState.String()
	}
	if old != nil && v == *old {
		return old
	}
	p := new(instView)
	*p = v
	return p
}
