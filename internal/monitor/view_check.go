package monitor

import (
	"fmt"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/view"
)

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
			if got, want := i.link.cell.Load(), viewOfLink(i.link); got != want {
				return fmt.Errorf("%w: master %s: the link of %s %s shows %+v, want %+v", view.ErrStale, name, i.kind, i.name, got, want)
			}
		}
	}
	fresh := s.viewByName(s.viewGlobals(), kept)
	return view.Diff(kept, fresh, at)
}
