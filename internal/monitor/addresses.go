package monitor

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/ipaddr"
)

// canonicalIP returns the canonical text of a numeric IPv4 (in any
// inet_aton form, such as "127.1") or IPv6 address (a zone dropped), read
// as the config file reads it, or false for anything else. IPv4-mapped
// IPv6 is shown as IPv4 (Redis keeps "::ffff:a.b.c.d"), so that a peer
// writing its address either way is one peer. It only parses text: the
// core does no I/O.
func canonicalIP(host string) (string, bool) {
	ip, ok := ipaddr.Canonical(host)
	if !ok {
		return "", false
	}
	if a, err := netip.ParseAddr(ip); err == nil && a.Is4In6() {
		return a.Unmap().String(), true
	}
	return ip, true
}

// validAddr checks an address given by a peer: a numeric IP, stored in
// canonical form, or with resolve-hostnames on also a hostname, stored as
// written.
func (s *Sentinel) validAddr(a Addr) (Addr, bool) {
	if a.Port < 0 || a.Port > 65535 {
		return a, false
	}
	if ip, ok := canonicalIP(a.Host); ok {
		return Addr{Host: ip, Port: a.Port}, true
	}
	return a, s.global.ResolveHostnames && a.Host != ""
}

// sameInstanceAddr compares a stored address with one a peer reported,
// as Redis resolves the reported one before comparing: the same port and
// the same host by addrMatchesHost.
func (s *Sentinel) sameInstanceAddr(stored, reported Addr) bool {
	return stored.Port == reported.Port && s.addrMatchesHost(stored, reported.Host)
}

// addrMatchesHost compares a stored address with a host string a peer
// reported (§14.4): equal IPs, where a hostname counts as the IP it was
// resolved to when a link connected, or else equal hostnames.
func (s *Sentinel) addrMatchesHost(a Addr, host string) bool {
	return addrMatchesHost(s.resolved, a, host)
}

// addrMatchesHost is Sentinel.addrMatchesHost with the hostnames resolved
// so far, for the core and its View alike.
func addrMatchesHost(resolved map[string]string, a Addr, host string) bool {
	if ip, ok := ipOf(resolved, host); ok {
		if aip, ok := ipOf(resolved, a.Host); ok {
			return ip == aip
		}
	}
	return strings.EqualFold(a.Host, host)
}

// ipOf returns the canonical IP of a numeric host, or the IP a hostname
// resolved to, if known.
func ipOf(resolved map[string]string, host string) (string, bool) {
	if ip, ok := canonicalIP(host); ok {
		return ip, true
	}
	if ip, ok := resolved[strings.ToLower(host)]; ok {
		return canonicalIP(ip)
	}
	return "", false
}

// announceAddr is the address as shown and sent: the host as stored when
// announce-hostnames is on; otherwise the IP a stored hostname resolved
// to, once known.
func (s *Sentinel) announceAddr(a Addr) Addr {
	if s.global.AnnounceHostnames || len(s.resolved) == 0 {
		return a
	}
	if ip, ok := s.resolved[strings.ToLower(a.Host)]; ok {
		return Addr{Host: ip, Port: a.Port}
	}
	return a
}

func (s *Sentinel) announceHost(a Addr) string { return s.announceAddr(a).Host }

// addrText is a as EXPLAIN and the log lines show an address: host:port,
// without brackets around an IPv6 host, as Redis prints them.
func addrText(a Addr) string { return a.Host + ":" + strconv.Itoa(a.Port) }
