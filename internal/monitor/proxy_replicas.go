package monitor

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/explain"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/readroute"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// This file gathers the facts of the read port's rule (internal/readroute,
// `sentinel proxy-replicas`) and records each change of its verdict; the
// rule, the lag's history and what a change announces are the leaf's, the
// route and fields internal/view's. The lag comes from the master's INFO,
// asked every readroute.InfoPeriodMs while the master has a read port.

// readsState is what the core keeps of a master's read port.
type readsState struct {
	history readroute.History
	// acks are the offsets the master's last INFO lists for its
	// replicas, by replica name.
	acks map[string]int64
	last readroute.State // the verdict last announced
}

// hasReadPort reports whether the master has a read port.
func (m *master) hasReadPort() bool { return len(m.settings.ProxyReplicas) > 0 }

// leased reports whether this Sentinel asks its peers for leases on m:
// it has a proxy, or a read port that may fall back to the master, which
// obeys the proxy's fence.
func (m *master) leased() bool {
	return len(m.settings.Proxy) > 0 || m.hasReadPort() && !m.settings.ProxyReplicasNoFallback
}

// noteOffsets records the offsets of the master's INFO reply text for
// its read port's lag.
func (m *master) noteOffsets(b *addrBook, text string, now int64) {
	if !m.hasReadPort() {
		return
	}
	o := inforeply.ParseOffsets(text)
	if !o.HasMaster {
		return
	}
	m.reads.history.Note(m.addrGen, now, o.Master, m.settings.ProxyReplicaMaxLagMs)
	m.reads.acks = make(map[string]int64, len(o.Replicas))
	for _, ro := range o.Replicas {
		if valid, ok := b.validAddr(ro.Addr); ok {
			if r := b.findReplicaByName(m, valid); r != nil {
				m.reads.acks[r.name] = ro.Offset
			}
		}
	}
}

// readPort is the read port of m at now, for one check or EXPLAIN.
type readPort struct {
	s   *Sentinel
	m   *master
	now int64
}

// facts gathers the facts of the read port's rule.
func (p readPort) facts() readroute.Facts {
	m, b, st := p.m, &p.s.addrs, &p.m.settings
	f := readroute.Facts{
		Now: p.now, Tilt: p.s.tilt, MaxLagMs: st.ProxyReplicaMaxLagMs, History: m.reads.history.Of(m.addrGen),
		NoPriorityZero: st.ProxyReplicasNoPriorityZero, NoFallback: st.ProxyReplicasNoFallback,
	}
	if !f.NoFallback {
		f.MasterFence, f.MasterUntil = p.s.proxyFence(m, p.now)
	}
	for _, r := range m.sortedReplicas() {
		off, listed := m.reads.acks[r.name]
		f.Replicas = append(f.Replicas, readroute.Replica{
			Name: r.name, Addr: b.announceAddr(r.addr),
			SDown:          r.has(object.SDown),
			LinkDown:       r.link.disconnected(object.Replica),
			ReportsMaster:  r.roleReported == inforeply.RoleMaster,
			Promoted:       r.has(object.Promoted),
			FollowsOther:   r.roleReported == inforeply.RoleSlave && !(r.slaveMasterPort == m.addr.Port && b.addrMatchesHost(m.addr, r.slaveMasterHost)),
			MasterLinkDown: !r.masterLinkUp,
			Priority:       r.priority,
			Listed:         listed && f.History != nil,
			Offset:         off,
		})
	}
	return f
}

// check makes the read port's verdict and records what changed, with
// the events readroute.Announce gives.
func (p readPort) check() {
	m, rs := p.m, &p.m.reads
	if !m.hasReadPort() {
		if rs.last.Known || rs.history.Samples != nil {
			m.reads = readsState{}
			p.s.views.changed(m)
		}
		return
	}
	f := p.facts()
	next, changes, changed := readroute.Announce(rs.last, &f, readroute.Decide(f))
	if !changed {
		return
	}
	for _, c := range changes {
		switch r := m.replicas[c.Replica]; {
		case c.Replica == "":
			p.s.event(c.Level, c.Type, &m.instance, c.Detail)
		case r != nil:
			p.s.event(c.Level, c.Type, r, c.Detail)
		default:
			ma := p.s.addrs.announceAddr(m.addr)
			p.s.eventFor(c.Level, c.Type, m, fmt.Sprintf("slave %s @ %s %s %d%s", c.Replica, m.name, ma.Host, ma.Port, c.Detail))
		}
	}
	rs.last = next
	p.s.views.changed(m)
}

// explain is EXPLAIN's view of the read port, nil without one: the state
// last announced, and the replicas the rule leaves out now.
func (p readPort) explain() *explain.ReadsView {
	if !p.m.hasReadPort() {
		return nil
	}
	h := view.ReadsHeadOf(&p.m.settings, p.m.reads.last)
	r := &explain.ReadsView{Listen: p.m.settings.ProxyReplicas, State: h.State(), MaxLagMs: h.MaxLag}
	for _, x := range readroute.Decide(p.facts()).Excluded {
		r.Excluded = append(r.Excluded, explain.ReadExclusion{Addr: x.Addr, Why: x.Why})
	}
	return r
}
