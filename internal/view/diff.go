package view

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrStale wraps Diff's errors, and the core's CheckView's.
var ErrStale = errors.New("view differs from the state")

// Diff compares two Views: the same masters, each showing the same at
// every instant (their objects equal, links included), and the same
// global figures. A difference is described with the replies of the
// first master that differs, at at. It is for tests and simulations
// (Sentinel.CheckView).
func Diff(got, want *View, at time.Time) error {
	if g, w := got.MasterNames(), want.MasterNames(); !slices.Equal(g, w) {
		return fmt.Errorf("%w: masters %v, want %v", ErrStale, g, w)
	}
	for k, name := range want.MasterNames() {
		if !sameMaster(got.At(k), want.At(k)) {
			gm, _ := got.Master(at, name)
			wm, _ := want.Master(at, name)
			gr, _ := got.Replicas(at, name)
			wr, _ := want.Replicas(at, name)
			gs, _ := got.Sentinels(at, name)
			ws, _ := want.Sentinels(at, name)
			return fmt.Errorf("%w: master %s:\n got %v\n     %v\n     %v\nwant %v\n     %v\n     %v",
				ErrStale, name, gm, gr, gs, wm, wr, ws)
		}
	}
	if got.Globals != want.Globals {
		return fmt.Errorf("%w: %+v, want %+v", ErrStale, got.Globals, want.Globals)
	}
	return nil
}

// sameMaster reports whether master a shows what master b shows.
func sameMaster(a, b *Master) bool {
	if a.Head != b.Head || len(a.Replicas) != len(b.Replicas) || len(a.Sentinels) != len(b.Sentinels) {
		return false
	}
	objects := func(mv *Master) []*Instance {
		return append(append([]*Instance{mv.Inst}, mv.Replicas...), mv.Sentinels...)
	}
	oa, ob := objects(a), objects(b)
	for k := range oa {
		x, y := *oa[k], *ob[k]
		lx, ly := x.Link.Load(), y.Link.Load()
		x.Link, y.Link = nil, nil
		if x != y || lx != ly {
			return false
		}
	}
	return true
}
