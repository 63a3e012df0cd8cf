package view

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/readroute"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// ReadsHead is what the View shows of a master's read port (`sentinel
// proxy-replicas`, internal/readroute); the zero value when it has none.
// It is comparable, as Head must be.
type ReadsHead struct {
	Listen       string // the addresses, as SENTINEL MASTER shows them
	MaxLag       int64  // ms
	PriorityZero bool
	Fallback     bool
	Hold         int64 // ms, proxy-hold
	Protected    bool  // protected mode applies
	Serve        *readroute.Serve
	OnMaster     bool
	Fenced       bool // fenced, or not decided yet
	Reason       string
	// ForwardUntil bounds the fallback to the master as the proxy's
	// lease does (fence.ForwardUntil, Unix ms); 0: no bound.
	ForwardUntil int64
}

// ReadsHeadOf is the ReadsHead of a master with settings st, last the
// read port's verdict last announced.
func ReadsHeadOf(st *settings.Master, last readroute.State) ReadsHead {
	if len(st.ProxyReplicas) == 0 {
		return ReadsHead{}
	}
	h := ReadsHead{
		Listen: settings.FormatProxyAddrs(st.ProxyReplicas), MaxLag: st.ProxyReplicaMaxLagMs,
		PriorityZero: !st.ProxyReplicasNoPriorityZero, Fallback: !st.ProxyReplicasNoFallback, Hold: st.ProxyHoldMs,
		Protected: !st.ProxyNoProtectedMode && st.AuthPass == "" && st.AuthUser == "",
		Serve:     last.Serve, OnMaster: last.OnMaster, Fenced: !last.Known || last.Fenced, Reason: last.Reason,
		ForwardUntil: last.Until,
	}
	if !last.Known {
		h.Reason = "not decided yet"
	}
	return h
}

// State is the read port's state as SENTINEL MASTER and EXPLAIN show
// it.
func (h ReadsHead) State() string {
	switch {
	case h.Fenced:
		return "fenced: " + h.Reason
	case h.OnMaster:
		return "master: no replica qualifies"
	case h.Serve != nil:
		return "replicas: " + h.Serve.Text
	}
	return "fenced: no route"
}

// readFields are the SENTINEL MASTER fields of a master with a read
// port.
func readFields(h ReadsHead) []KV {
	return []KV{
		{settings.OptionProxyReplicas, h.Listen},
		{settings.OptionProxyReplicaMaxLag, itoa64(h.MaxLag)},
		{settings.OptionProxyReplicasPriorityZero, settings.YesNoText(h.PriorityZero)},
		{settings.OptionProxyReplicasFallback, settings.YesNoText(h.Fallback)},
		{"proxy-replicas-state", h.State()},
	}
}

// ReadRoute is where a master's read port may forward now.
type ReadRoute struct {
	// Addrs are the addresses new connections are spread over (the
	// replicas served, or the master alone when it serves in their
	// place); an open connection to any other is cut. None when Fenced.
	Addrs []settings.Addr
	// OnMaster: no replica qualifies and Addrs is the master.
	OnMaster bool
	// Fenced: do not forward; Reason says why.
	Fenced bool
	Reason string
	// Hold is proxy-hold.
	Hold time.Duration
	// Protected: refuse clients from non-loopback addresses.
	Protected bool
	// Until is when the fallback to the master stops by itself, the
	// leases that let it forward lapsing; zero: no bound.
	Until time.Time
}

// Forwards reports whether the route forwards at now: not fenced, and,
// on the master, its leases not lapsed (as ProxyRoute.Forwards).
func (r ReadRoute) Forwards(now time.Time) bool {
	return !r.Fenced && (r.Until.IsZero() || now.Before(r.Until))
}

// ReadRoute returns the route of master name's read port, false when it
// is not monitored or has no read port.
func (v *View) ReadRoute(name string) (ReadRoute, bool) {
	mv, err := v.master(name)
	if err != nil || mv.Reads.Listen == "" {
		return ReadRoute{}, false
	}
	h := &mv.Reads
	rt := ReadRoute{Fenced: h.Fenced, Reason: h.Reason, Hold: settings.Duration(h.Hold), Protected: h.Protected, OnMaster: h.OnMaster && !h.Fenced}
	switch {
	case h.Fenced:
	case h.OnMaster:
		rt.Addrs, rt.Until = []settings.Addr{mv.Addr}, untilTime(h.ForwardUntil)
	case h.Serve != nil:
		rt.Addrs = h.Serve.Addrs
	default:
		rt.Fenced, rt.Reason = true, "no route"
	}
	return rt, true
}

// ReadProxies returns the read port addresses of every master that has
// some, by master name.
func (v *View) ReadProxies() map[string][]settings.Addr {
	out := make(map[string][]settings.Addr)
	for mv := range v.all() {
		if mv.Reads.Listen != "" {
			as, _ := settings.ParseProxyAddrs(mv.Reads.Listen)
			out[mv.Inst.Name] = as
		}
	}
	return out
}
