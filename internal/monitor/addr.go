package monitor

import "net/netip"

// canonicalIP returns the canonical text of a numeric IPv4 or IPv6
// address (IPv4-mapped IPv6 is shown as IPv4), or false for anything else.
// It uses net/netip, which only parses text: the core does no I/O.
func canonicalIP(host string) (string, bool) {
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return "", false
	}
	return a.Unmap().String(), true
}
