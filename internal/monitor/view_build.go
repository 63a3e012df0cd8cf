package monitor

import (
	"slices"

	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// View returns the View of the core as it is now (see view.View for its
// invariant). It returns the previous View when nothing a query shows
// changed since. Otherwise it looks again at the masters that Steps and
// Ticks recorded as changed, or at every master after a command, and
// keeps from the previous View every object, master and chunk of masters
// that shows the same. Either way it first stores the links recorded as
// changed in their cells, which every View shows.
func (s *Sentinel) View() *view.View {
	vs := &s.views
	for _, l := range vs.links {
		l.cell.Store(viewOfLink(l))
		l.viewDirty = false
	}
	vs.links = vs.links[:0]
	g := s.viewGlobals()
	old := vs.cur
	var v *view.View
	switch {
	case old == nil || vs.all && !slices.Equal(vs.names, s.names):
		// Masters come and go by commands only, which set all.
		v = s.viewByName(g, old)
		vs.names = slices.Clone(s.names)
	case vs.all:
		v = s.viewScan(g)
	case len(vs.masters) == 0 && old.Globals == g:
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
func (s *Sentinel) viewGlobals() view.Globals {
	running, queued := s.scripts.Counts()
	return view.Globals{InTilt: s.tilt, TiltStart: s.tiltStart, Tilts: s.tilts, ScriptsRunning: running, ScriptsQueued: queued, SimFailure: s.simFailure, ResolvedGen: s.addrs.resolvedGen, RebootFlag: s.opts.MasterRebootFlag}
}

// viewByName builds a View with a new index (the first View, or the
// master names changed), taking from old, by name, what shows the same;
// old may be nil.
func (s *Sentinel) viewByName(g view.Globals, old *view.View) *view.View {
	v := &view.View{Globals: g, Index: make(map[string]int, len(s.names)), Resolved: s.addrs.resolved}
	b := viewBuilder{s: s}
	for k, name := range s.names {
		v.Index[name] = k
		var prev *view.Master
		if old != nil {
			if j, ok := old.Index[name]; ok {
				prev = old.At(j)
			}
		}
		if k%view.ChunkSize == 0 {
			v.Chunks = append(v.Chunks, new(view.Chunk))
		}
		v.Chunks[k/view.ChunkSize][k%view.ChunkSize] = b.master(s.masters[name], prev)
	}
	return v
}

// viewScan looks at every master (after a command), the names
// unchanged. It returns the previous View if nothing changed.
func (s *Sentinel) viewScan(g view.Globals) *view.View {
	old := s.views.cur
	b := viewBuilder{s: s}
	w := view.ChunkWriter{Chunks: old.Chunks}
	for k, name := range s.names {
		w.Set(k, b.master(s.masters[name], old.At(k)))
	}
	if !w.Changed() && g == old.Globals {
		return old
	}
	return &view.View{Globals: g, Index: old.Index, Chunks: w.Chunks, Resolved: s.addrs.resolved}
}

// viewPatch looks at the masters recorded as changed; it returns the
// previous View if none shows a change.
func (s *Sentinel) viewPatch(g view.Globals) *view.View {
	vs := &s.views
	old := vs.cur
	b := viewBuilder{s: s}
	w := view.ChunkWriter{Chunks: old.Chunks}
	for _, m := range vs.masters {
		if k, ok := old.Index[m.name]; ok && s.masters[m.name] == m {
			w.Set(k, b.master(m, old.At(k)))
		}
	}
	if !w.Changed() && g == old.Globals {
		return old
	}
	return &view.View{Globals: g, Index: old.Index, Chunks: w.Chunks, Resolved: s.addrs.resolved}
}

// viewBuilder builds the view.Masters of one View.
type viewBuilder struct {
	s *Sentinel
}

// master returns m's view.Master: old itself when m shows what old shows,
// else a new one that keeps old's objects that show the same.
func (b *viewBuilder) master(m *master, old *view.Master) *view.Master {
	s := b.s
	head := view.Head{
		ConfigEpoch:          m.configEpoch,
		Quorum:               m.settings.Quorum,
		FailoverTimeout:      m.settings.FailoverTimeoutMs,
		ParallelSyncs:        m.settings.ParallelSyncs,
		NotificationScript:   m.settings.NotificationScript,
		ClientReconfigScript: m.settings.ClientReconfigScript,
		ForgetReplicaAfter:   m.settings.ForgetReplicaAfterMs,
		Voters:               m.settings.Voters,
		ForgetSentinelAfter:  m.settings.ForgetSentinelAfterMs,
		Addr:                 s.addrs.announceAddr(m.currentAddr()),
		InfoAddr:             s.addrs.announceAddr(m.addr),
		AskAddr:              m.addr,
		Proxy:                m.proxyHeadOf(),
		Reads:                view.ReadsHeadOf(&m.settings, m.reads.last),
	}
	var oldInst *view.Instance
	var oldReplicas, oldSentinels []*view.Instance
	if old != nil {
		oldInst, oldReplicas, oldSentinels = old.Inst, old.Replicas, old.Sentinels
	}
	rs, ss := m.sortedReplicas(), m.sortedSentinels()
	inst := b.inst(&m.instance, oldInst)
	replicas := b.insts(rs, oldReplicas)
	sentinels := b.insts(ss, oldSentinels)
	if old != nil && head == old.Head && inst == old.Inst && sameViews(replicas, old.Replicas) &&
		sameViews(sentinels, old.Sentinels) {
		return old
	}
	return &view.Master{Head: head, Inst: inst, Replicas: replicas, Sentinels: sentinels}
}

// sameViews reports whether a and b are the same slice.
func sameViews(a, b []*view.Instance) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// insts returns the views of list, keeping those of old (at the same
// positions) that show the same: old itself if all do.
func (b *viewBuilder) insts(list []*instance, old []*view.Instance) []*view.Instance {
	var out []*view.Instance
	for k, i := range list {
		var prev *view.Instance
		if k < len(old) {
			prev = old[k]
		}
		v := b.inst(i, prev)
		if out == nil && v != prev {
			out = make([]*view.Instance, len(list))
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
func (b *viewBuilder) inst(i *instance, old *view.Instance) *view.Instance {
	v := view.Instance{
		Kind:               i.kind,
		Name:               i.name,
		IP:                 b.s.addrs.announceHost(i.addr),
		Port:               i.addr.Port,
		RunID:              i.runID,
		Flags:              i.flags,
		DownAfter:          i.downAfter,
		SDownSince:         i.sdownSince,
		ODownSince:         i.odownSince,
		InfoRefresh:        i.infoRefresh,
		RoleReported:       i.roleReported,
		RoleReportedTime:   i.roleReportedTime,
		MasterLinkDownTime: i.masterLinkDownTime,
		MasterLinkUp:       i.masterLinkUp,
		SlaveMasterHost:    i.slaveMasterHost,
		SlaveMasterPort:    i.slaveMasterPort,
		Priority:           i.priority,
		ReplOffset:         i.replOffset,
		Announced:          i.announced,
		LastHello:          i.helloCell,
		Leader:             i.leader,
		LeaderEpoch:        i.leaderEpoch,
		Link:               &i.link.cell,
	}
	if i.has(object.FailoverInProgress) {
		v.FailoverState = i.master.failoverState.String()
	}
	if old != nil && v == *old {
		return old
	}
	p := new(view.Instance)
	*p = v
	return p
}
