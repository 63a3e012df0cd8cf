package node

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/metrics"
	"github.com/go-sentinel/go-sentinel/internal/proxy"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// newReadProxies starts the read ports (`sentinel proxy-replicas`): a
// proxy.Server of their own, whose routes spread connections over the
// replicas the View says qualify (view.View.ReadRoute) and cut those
// to a replica that stops qualifying. Like newProxies, an address it
// cannot listen on is an error and nothing is left running.
func newReadProxies(viewOf func() *view.View, keepAlive time.Duration, log Logger, now func() time.Time) (*proxies, error) {
	return startProxies(&proxies{view: viewOf, now: now, log: log, lookup: readRoute, listens: (*view.View).ReadProxies,
		name: "read port", logPrefix: "read port: "}, keepAlive, nil)
}

// readRoute is the read port's route of master in v at now: the
// fallback to the master stops at its leases' end as the proxy does.
func readRoute(v *view.View, master string, now time.Time) (proxy.Route, bool) {
	rt, ok := v.ReadRoute(master)
	if !ok {
		return proxy.Route{}, false
	}
	out := proxy.Route{Fenced: rt.Fenced, Reason: rt.Reason, Hold: rt.Hold, Protected: rt.Protected}
	if !out.Fenced && !rt.Forwards(now) {
		out.Fenced, out.Reason = true, view.LeasesLapsed
		return out, true
	}
	for _, a := range rt.Addrs {
		out.Addrs = append(out.Addrs, a.String())
	}
	return out, true
}

// readFigures are the read ports' figures for the metrics.
func (p *proxies) readFigures() []metrics.ReadProxyFigures {
	srv := p.srv.Load()
	if srv == nil {
		return nil
	}
	v := p.view()
	var out []metrics.ReadProxyFigures
	for _, st := range srv.Stats() {
		f := metrics.ReadProxyFigures{
			Master: st.Master, Open: st.Open, OpenByTarget: st.OpenByTarget, Accepted: st.Accepted, Refused: st.Refused,
			HoldExpired: st.HoldExpired, Cut: st.Cut, BytesToServer: st.BytesToMaster, BytesToClient: st.BytesToClient,
			Fenced: st.Fenced, FencedTime: st.FencedTime,
		}
		if v != nil {
			if rt, ok := v.ReadRoute(st.Master); ok && !rt.Fenced {
				f.OnMaster = rt.OnMaster
				if !rt.OnMaster {
					f.Serving = len(rt.Addrs)
				}
			}
		}
		out = append(out, f)
	}
	return out
}
