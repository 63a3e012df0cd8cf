package settings

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/ipaddr"
)

// CanonicalIP returns the canonical text of a numeric IPv4 (in any
// inet_aton form, such as "127.1") or IPv6 address (a zone dropped), read
// as the config file reads it, or false for anything else. IPv4-mapped
// IPv6 is shown as IPv4 (Redis keeps "::ffff:a.b.c.d"), so that a peer
// writing its address either way is one peer. It only parses text: it
// does no I/O.
func CanonicalIP(host string) (string, bool) {
	ip, ok := ipaddr.Canonical(host)
	if !ok {
		return "", false
	}
	if a, err := netip.ParseAddr(ip); err == nil && a.Is4In6() {
		return a.Unmap().String(), true
	}
	return ip, true
}

// String is the one text of an address, Redis's name for an
// instance (anetFormatAddr): "host:port", or "[host]:port" when host
// contains a colon (an IPv6 address). It is also what net.Dial takes.
func (a Addr) String() string {
	port := strconv.Itoa(a.Port)
	if strings.Contains(a.Host, ":") {
		return "[" + a.Host + "]:" + port
	}
	return a.Host + ":" + port
}

// InfoText is a as Sentinel's INFO writes it (`address=host:port`, no
// brackets around an IPv6 host), the text redis_exporter's master_address
// label carries.
func (a Addr) InfoText() string { return a.Host + ":" + strconv.Itoa(a.Port) }

// AddrMatchesHost compares a stored address with a host string a peer
// reported (§14.4): equal IPs, where a hostname counts as the IP it was
// resolved to (resolved maps lower-case hostnames to what they resolved
// to), or else equal hostnames.
func AddrMatchesHost(resolved map[string]string, a Addr, host string) bool {
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
	if ip, ok := CanonicalIP(host); ok {
		return ip, true
	}
	if ip, ok := resolved[strings.ToLower(host)]; ok {
		return CanonicalIP(ip)
	}
	return "", false
}
