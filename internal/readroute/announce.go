package readroute

import (
	"sort"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// InfoPeriodMs is how often INFO goes to a master with a read port: the
// master's offsets and its replicas' acknowledged ones are the lag's
// samples, so their period is the lag's resolution.
const InfoPeriodMs = 1000

// MaxSamples bounds a master's offset History.
const MaxSamples = 256

// History is a master's offsets by time (Lag's samples), about the
// master of generation Gen (the core's count of its address changes).
type History struct {
	Gen     uint64
	Samples []Sample
}

// Note records offset off of the master of generation gen at now. A
// switch (another gen) or an offset going back (the same master
// restarted) starts the history anew. It keeps one sample older than
// maxLagMs, so that a replica behind all of them is known to lag beyond
// it, and at most MaxSamples.
func (h *History) Note(gen uint64, now, off, maxLagMs int64) {
	if h.Gen != gen || (len(h.Samples) > 0 && off < h.Samples[len(h.Samples)-1].Offset) {
		h.Gen, h.Samples = gen, h.Samples[:0]
	}
	h.Samples = append(h.Samples, Sample{At: now, Offset: off})
	keep := maxLagMs + 2*InfoPeriodMs
	drop := 0
	for drop+1 < len(h.Samples) && (h.Samples[drop+1].At < now-keep || len(h.Samples)-drop > MaxSamples) {
		drop++
	}
	h.Samples = append(h.Samples[:0], h.Samples[drop:]...)
}

// Of returns the samples about the master of generation gen, nil when
// they are about another one.
func (h *History) Of(gen uint64) []Sample {
	if h.Gen != gen {
		return nil
	}
	return h.Samples
}

// State is the verdict last announced for a read port.
type State struct {
	// Known: a verdict was announced since the master got a read port.
	Known    bool
	Served   map[string]bool // the names of the replicas served
	OnMaster bool
	Fenced   bool
	Reason   string
	// Until bounds OnMaster (Verdict.Until).
	Until int64
	// Serve are the replicas served, in order, nil when none: shared by
	// the Views that show the same list (their heads stay comparable).
	Serve *Serve
}

// Serve is a list of replicas served, and its text as SENTINEL MASTER
// shows it.
type Serve struct {
	Addrs []settings.Addr
	Text  string
}

// Change is one event that announces a change of the verdict.
type Change struct {
	Level event.Level
	Type  event.Type
	// Replica is the name of the replica the event is about; "" for the
	// master. Forgotten: the replica is no longer one of the master's.
	Replica   string
	Forgotten bool
	// Detail follows the instance in the event's message (" #why").
	Detail string
}

// Announce compares verdict v, made from f, with prev, the state last
// announced. It returns the state to keep, the events that announce what
// changed (each replica that joins or leaves the replicas served, the
// fallback to the master, the fence), and whether anything changed (the
// fallback's Until changes without an event).
func Announce(prev State, f *Facts, v Verdict) (State, []Change, bool) {
	serve := make(map[settings.Addr]bool, len(v.Serve))
	why := make(map[settings.Addr]string, len(v.Excluded))
	for _, x := range v.Excluded {
		why[x.Addr] = x.Why
	}
	for _, a := range v.Serve {
		serve[a] = true
	}
	next := State{Known: true, Served: make(map[string]bool, len(v.Serve)), OnMaster: v.OnMaster, Fenced: v.Fenced, Reason: v.Reason, Until: v.Until}
	present := make(map[string]bool, len(f.Replicas))
	for _, r := range f.Replicas {
		present[r.Name] = true
		if serve[r.Addr] {
			next.Served[r.Name] = true
		}
	}
	changed := !prev.Known || prev.OnMaster != v.OnMaster || prev.Fenced != v.Fenced || prev.Reason != v.Reason || prev.Until != v.Until || len(next.Served) != len(prev.Served)
	var out []Change
	for _, r := range f.Replicas {
		switch {
		case next.Served[r.Name] && !prev.Served[r.Name]:
			out = append(out, Change{Level: event.LevelNotice, Type: event.ProxyReplica, Replica: r.Name})
		case !next.Served[r.Name] && prev.Served[r.Name]:
			w := why[r.Addr]
			if w == "" {
				w = v.Reason // TILT
			}
			out = append(out, Change{Level: event.LevelNotice, Type: event.ProxyReplicaEnd, Replica: r.Name, Detail: " #" + w})
		}
	}
	var gone []string
	for name := range prev.Served {
		if !present[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		out = append(out, Change{Level: event.LevelNotice, Type: event.ProxyReplicaEnd, Replica: name, Forgotten: true, Detail: " #forgotten"})
	}
	changed = changed || len(out) > 0
	if !changed {
		return prev, nil, false
	}
	if v.OnMaster != prev.OnMaster && prev.Known || v.OnMaster && !prev.Known {
		if v.OnMaster {
			out = append(out, Change{Level: event.LevelNotice, Type: event.ProxyReplicasFallback, Detail: " #no replica qualifies"})
		} else {
			out = append(out, Change{Level: event.LevelNotice, Type: event.ProxyReplicasFallbackEnd})
		}
	}
	if v.Fenced != prev.Fenced && prev.Known || v.Fenced && !prev.Known {
		if v.Fenced {
			out = append(out, Change{Level: event.LevelWarning, Type: event.ProxyReplicasFenced, Detail: " #" + v.Reason})
		} else {
			out = append(out, Change{Level: event.LevelWarning, Type: event.ProxyReplicasFencedEnd})
		}
	}
	if len(v.Serve) > 0 {
		next.Serve = &Serve{Addrs: v.Serve, Text: settings.FormatProxyAddrs(v.Serve)}
	}
	return next, out, true
}
