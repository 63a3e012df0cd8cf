package monitor

// This file holds the core's own reads, those the View (internal/view)
// does not serve: INFO-CACHE and a failover's progress, which read what
// no query shows; and the lookup of a master by name the commands use.

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// master returns the master called name.
func (s *Sentinel) master(name string) (*master, error) {
	m := s.masters[name]
	if m == nil {
		return nil, view.ErrNoSuchMaster
	}
	return m, nil
}

// InfoCache returns, for each named master that exists (in name order,
// duplicates collapsed), the cached INFO of the master then its replicas.
func (s *Sentinel) InfoCache(now time.Time, names []string) (masters []string, entries [][]view.InfoCacheEntry) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	t := ms(now)
	for _, name := range s.names {
		if !want[name] {
			continue
		}
		m := s.masters[name]
		list := []view.InfoCacheEntry{cacheEntry(&m.instance, m, t)}
		for _, r := range m.sortedReplicas() {
			list = append(list, cacheEntry(r, m, t))
		}
		masters = append(masters, name)
		entries = append(entries, list)
	}
	return masters, entries
}

// cacheEntry reproduces Redis's quirk: the age is 0 when the *master* was
// never refreshed, else now minus the instance's own refresh time.
func cacheEntry(i *instance, m *master, now int64) view.InfoCacheEntry {
	e := view.InfoCacheEntry{Info: i.info, Has: i.info != ""}
	if m.infoRefresh != 0 {
		e.Age = now - i.infoRefresh
	}
	return e
}

// FailoverProgress reports the failover progress of a master.
func (s *Sentinel) FailoverProgress(name string) (view.FailoverProgress, bool) {
	m := s.masters[name]
	if m == nil {
		return view.FailoverProgress{}, false
	}
	p := view.FailoverProgress{
		InProgress:  m.has(object.FailoverInProgress),
		State:       m.failoverState.String(),
		Epoch:       m.failoverEpoch,
		ConfigEpoch: m.configEpoch,
	}
	if m.promoted != nil {
		p.Promoted, p.HasPromoted = s.addrs.announceAddr(m.promoted.addr), true
	}
	return p, true
}
