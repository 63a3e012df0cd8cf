package lint

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// ProxyFenceMargin is the least gap check accepts between
// proxy-fence-after and down-after-milliseconds: the proxy decides at
// each tick (every 100 ms), and a Sentinel cut off from its peers must
// have fenced before the others can see the master SDOWN.
const ProxyFenceMargin = 500 * time.Millisecond

// MinProxyFenceAfter is the shortest proxy-fence-after check accepts: a
// Sentinel PINGs its peers once a second, so a shorter window lapses
// between two PINGs of a healthy fleet and the proxy fences and forwards
// by turns.
const MinProxyFenceAfter = 1500 * time.Millisecond

// proxyRules report a master-following proxy that can forward to an old
// master after a failover, or that opens the data nodes wider than they
// are without it.
func proxyRules(t *target) []Finding {
	s := t.spec
	if len(s.Proxy) == 0 {
		return nil
	}
	var out []Finding
	switch {
	case s.ProxyNoFencing:
		out = append(out, t.finding(Warning, RuleProxyFencingOff,
			fmt.Sprintf("the proxy of %s forwards with proxy-fencing no: a Sentinel cut off from its peers keeps sending clients to the master it last knew "+
				"while the others promote a replica, so both masters take writes and those sent to the old one are lost when it is demoted.", s.Name),
			fmt.Sprintf("`SENTINEL SET %s proxy-fencing yes` on every Sentinel (the default).", s.Name)))
	case settings.Duration(s.ProxyFenceAfterMs) < MinProxyFenceAfter:
		out = append(out, t.finding(Warning, RuleProxyFenceShort,
			fmt.Sprintf("proxy-fence-after %d ms for %s is below %d ms: Sentinels PING each other once a second, so the proxy fences between two PINGs of a healthy fleet "+
				"and closes its clients' connections again and again.", s.ProxyFenceAfterMs, s.Name, MinProxyFenceAfter.Milliseconds()),
			fmt.Sprintf("Raise it (`SENTINEL SET %s proxy-fence-after 2000`, the default) and keep down-after-milliseconds above it by %d ms or more.",
				s.Name, ProxyFenceMargin.Milliseconds())))
	case settings.Duration(s.ProxyFenceAfterMs)+ProxyFenceMargin > settings.Duration(s.DownAfterMs):
		out = append(out, t.finding(Warning, RuleProxyFenceLate,
			fmt.Sprintf("proxy-fence-after %d ms for %s is not at least %d ms below down-after-milliseconds (%d ms): a Sentinel cut off from its peers may still forward "+
				"when the others see the master down and fail it over.", s.ProxyFenceAfterMs, s.Name, ProxyFenceMargin.Milliseconds(), s.DownAfterMs),
			fmt.Sprintf("Lower it: `SENTINEL SET %s proxy-fence-after %d`, or raise down-after-milliseconds.", s.Name,
				max(100, s.DownAfterMs-ProxyFenceMargin.Milliseconds()))))
	}
	out = append(out, proxyMixedFleetRule(t)...)
	out = append(out, proxyOpenRule(t, s.Proxy, "the proxy")...)
	return out
}

// proxyMixedFleetRule reports the Sentinels of a proxied master that
// cannot grant its proxy a lease (live only): the proxy forwards only
// while leases from a majority of the master's Sentinels hold, so the
// go-sentinels alone must make that majority. Two proxies still never
// forward to two masters (every go-sentinel holds back its vote until
// its leases lapsed, and redis-sentinels never grant one).
func proxyMixedFleetRule(t *target) []Finding {
	if t.live == nil || t.spec.ProxyNoFencing {
		return nil
	}
	var without []string
	for _, v := range t.live.Views {
		if v.Monitors && v.NoLease {
			without = append(without, v.Sentinel)
		}
	}
	if len(without) == 0 {
		return nil
	}
	n := max(t.sentinels, 1)
	need := election.Majority(n)
	grantors := n - len(without)
	name := t.spec.Name
	if grantors < need {
		return []Finding{t.finding(Error, RuleProxyMixedFleet,
			fmt.Sprintf("%d of the %d Sentinels of %s (%s) are not go-sentinels and never grant a proxy a lease, so the %d others cannot make the majority of %d "+
				"the proxy needs: it never forwards.", len(without), n, name, strings.Join(without, ", "), grantors, need),
			"Replace them with go-sentinels (one host at a time), or remove the proxy.")}
	}
	return []Finding{t.finding(Warning, RuleProxyMixedFleet,
		fmt.Sprintf("%d of the %d Sentinels of %s (%s) are not go-sentinels and never grant a proxy a lease: the proxy forwards only while %d of the %d go-sentinels "+
			"(a majority of %d) grant one, so it fences after %d of them fail instead of %d. No two proxies forward to two masters either way.",
			len(without), n, name, strings.Join(without, ", "), need, grantors, n, grantors-need+1, n-need+1),
		"Replace them with go-sentinels, one host at a time.")}
}

// proxyOpenRule reports the first of a master's listen addresses (the
// proxy's or the read port's, named what) that is not a loopback address
// in front of data nodes that ask for no password: info while protected
// mode refuses other hosts, a warning when it is off.
func proxyOpenRule(t *target, addrs []settings.Addr, what string) []Finding {
	s := t.spec
	if s.AuthPass != "" || s.AuthUser != "" {
		return nil
	}
	for _, a := range addrs {
		ip, err := netip.ParseAddr(a.Host)
		if err != nil || ip.IsLoopback() {
			continue
		}
		sev := Info
		does := "refuses clients from other hosts (protected mode), as Redis does without a password"
		if s.ProxyNoProtectedMode {
			sev = Warning
			does = "forwards clients from any host (proxy-protected-mode no) to instances that ask for no password"
		}
		return []Finding{t.finding(sev, RuleProxyOpen,
			fmt.Sprintf("%s of %s listens on %s, not a loopback address, and %s.", what, s.Name, settings.FormatProxyAddrs([]settings.Addr{a}), does),
			fmt.Sprintf("Set a password on the data nodes (requirepass, and `sentinel auth-pass %s ...`), or listen on 127.0.0.1.", s.Name))}
	}
	return nil
}
