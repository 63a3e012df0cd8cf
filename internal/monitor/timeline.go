package monitor

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// beginTimeline starts the timeline of a failover of m, with the
// detection marks that led to it.
func (m *master) beginTimeline(led bool) {
	m.timeline = event.Timeline{Led: led}
	if m.sdownSince != 0 && m.has(object.SDown) {
		m.timeline.Marks = append(m.timeline.Marks, event.Mark{Phase: event.PhaseSDown, At: time.UnixMilli(m.sdownSince)})
	}
	if m.odownSince != 0 && m.has(object.ODown) {
		m.timeline.Marks = append(m.timeline.Marks, event.Mark{Phase: event.PhaseODown, At: time.UnixMilli(m.odownSince)})
	}
}

// mark records a phase of m's current failover at now.
func (m *master) mark(p event.Phase, now int64, note string) {
	m.timeline.Marks = append(m.timeline.Marks, event.Mark{Phase: p, At: time.UnixMilli(now), Note: note})
}

// endTimeline closes m's current timeline with a final phase and keeps it
// as the last one.
func (m *master) endTimeline(p event.Phase, now int64, note string) {
	m.mark(p, now, note)
	m.lastTimeline = m.timeline
	m.timeline = event.Timeline{}
}
