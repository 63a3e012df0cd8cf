package monitor

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrViewStale wraps CheckView's errors.
var ErrViewStale = errors.New("view differs from the state")

// CheckView builds a View of every master as it is and compares it with
// the View kept up to date by View, and every link with its cell: an
// error names the first difference, a change a Step made without
// recording it for the View. It is for
// tests and simulations: it costs a look at every master (the new View
// takes from the kept one only objects that show the same as the state
// does now). at is the instant the replies of a differing master are
// shown at.
func (s *Sentinel) CheckView(at time.Time) error {
	kept := s.View()
	for _, name := range s.names {
		m := s.masters[name]
		for _, i := range append(append([]*instance{&m.instance}, m.sortedReplicas()...), m.sortedSentinels()...) {
			if got, want := i.link.cell.load(), viewOfLink(i.link); got != want {
				return fmt.Errorf("%w: master %s: the link of %s %s shows %+v, want %+v", ErrViewStale, name, i.kind, i.name, got, want)
			}
		}
	}
	fresh := s.viewByName(s.viewGlobals(), kept)
	return diffViews(kept, fresh, at)
}

// diffViews compares two Views: the same masters, each showing the same
// at every instant (their objects equal, links included), and the same
// global figures. A difference is described with the
// replies of the first master that differs, at at.
func diffViews(got, want *View, at time.Time) error {
	if g, w := got.MasterNames(), want.MasterNames(); !slices.Equal(g, w) {
		return fmt.Errorf("%w: masters %v, want %v", ErrViewStale, g, w)
	}
	for k, name := range want.MasterNames() {
		if !sameMasterView(got.at(k), want.at(k)) {
			gm, _ := got.Master(at, name)
			wm, _ := want.Master(at, name)
			gr, _ := got.Replicas(at, name)
			wr, _ := want.Replicas(at, name)
			gs, _ := got.Sentinels(at, name)
			ws, _ := want.Sentinels(at, name)
			return fmt.Errorf("%w: master %s:\n got %v\n     %v\n     %v\nwant %v\n     %v\n     %v",
				ErrViewStale, name, gm, gr, gs, wm, wr, ws)
		}
	}
	if got.viewGlobals != want.viewGlobals {
		return fmt.Errorf("%w: %+v, want %+v", ErrViewStale, got.viewGlobals, want.viewGlobals)
	}
	return nil
}

// sameMasterView reports whether master a shows what master b shows.
func sameMasterView(a, b *masterView) bool {
	if a.masterHead != b.masterHead || len(a.replicas) != len(b.replicas) || len(a.sentinels) != len(b.sentinels) {
		return false
	}
	objects := func(mv *masterView) []*instView {
		return append(append([]*instView{mv.inst}, mv.replicas...), mv.sentinels...)
	}
	oa, ob := objects(a), objects(b)
	for k := range oa {
		x, y := *oa[k], *ob[k]
		lx, ly := x.link.load(), y.link.load()
		x.link, y.link = nil, nil
		if x != y || lx != ly {
			return false
		}
	}
	return true
}
