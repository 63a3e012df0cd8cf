package monitor

import (
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/explain"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// TestResetDropsTheRunWhole: SENTINEL RESET during a failover drops the
// whole run, its timeline included, and the retry delay, where an abort
// keeps the retry delay.
func TestResetDropsTheRunWhole(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	sdown(m, now, time.Second)
	m.flags |= object.ODown
	s.startFailover(m, ms(now))
	s.Ready()
	if explainOf(t, s, now).Current == nil {
		t.Fatal("no current timeline while the failover runs")
	}
	if _, err := s.Step(now, msg.Reset{Pattern: "m"}); err != nil {
		t.Fatal(err)
	}
	s.Ready()
	e := explainOf(t, s, now)
	if e.Failover.InProgress || e.Failover.State != "none" || e.Current != nil {
		t.Errorf("after the reset: in progress %v, state %s, current timeline %+v", e.Failover.InProgress, e.Failover.State, e.Current)
	}
	if m.timeline.Marks != nil || m.failoverStartTime != 0 {
		t.Errorf("after the reset: timeline %+v, failover start time %d", m.timeline, m.failoverStartTime)
	}
}

// TestAbortKeepsTheRetryDelay: an abort drops the run and closes its
// timeline as the last one, and keeps the start time the next failover
// waits from.
func TestAbortKeepsTheRetryDelay(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	sdown(m, now, time.Second)
	m.flags |= object.ODown
	s.startFailover(m, ms(now))
	start := m.failoverStartTime
	s.abortFailover(m, ms(now), event.AbortNotElected, "")
	s.Ready()
	e := explainOf(t, s, now)
	if e.Failover.InProgress || e.Current != nil || e.LastFailover == nil {
		t.Errorf("after the abort: in progress %v, current %+v, last %+v", e.Failover.InProgress, e.Current, e.LastFailover)
	}
	if m.failoverStartTime != start || e.Failover.NextAttemptMs == 0 {
		t.Errorf("after the abort: failover start time %d (was %d), next attempt in %d ms", m.failoverStartTime, start, e.Failover.NextAttemptMs)
	}
}

// explainOf is s's EXPLAIN of "m" at now.
func explainOf(t *testing.T, s *Sentinel, now time.Time) explain.Explanation {
	t.Helper()
	e, err := s.Explain(now, "m")
	if err != nil {
		t.Fatal(err)
	}
	return e
}
