// Package ipaddr reads numeric host addresses the way Redis does through
// getaddrinfo with AI_NUMERICHOST and inet_ntop, so that the config file
// and the addresses peers report are stored in one canonical form.
package ipaddr

import (
	"net/netip"
	"strings"
)

// Canonical parses host as getaddrinfo with AI_NUMERICHOST does (IPv4 in
// any inet_aton form such as "127.1" or "0x7f.1", IPv6 with or without a
// zone) and returns the text inet_ntop gives for it: dotted quad for IPv4,
// RFC 5952 text for IPv6 (IPv4-mapped addresses stay IPv6, zones are
// dropped). Anything else is not numeric.
func Canonical(host string) (string, bool) {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return "", false
		}
		return a.WithZone("").String(), true
	}
	v, ok := inetAton(host)
	if !ok {
		return "", false
	}
	var buf [len("255.255.255.255")]byte
	out := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).AppendTo(buf[:0])
	if string(out) == host {
		return host, true // already canonical, as nearly every address is: no allocation
	}
	return string(out), true
}

// inetAton parses the IPv4 forms inet_aton accepts: a, a.b, a.b.c, a.b.c.d
// where each part is decimal, octal (leading 0) or hexadecimal (0x), and
// the last part fills the remaining bytes.
func inetAton(s string) (uint32, bool) {
	if s == "" {
		return 0, false
	}
	// The parts are cut in place: a Sentinel compares addresses for every
	// hello it gets, so this allocates nothing.
	if strings.Count(s, ".") > 3 {
		return 0, false
	}
	var buf [4]uint64
	vals := buf[:0]
	for rest, more := s, true; more; {
		var p string
		p, rest, more = strings.Cut(rest, ".")
		v, ok := atonPart(p)
		if !ok {
			return 0, false
		}
		vals = append(vals, v)
	}
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 0xff {
			return 0, false
		}
	}
	maxLast := uint64(0xffffffff) >> (8 * uint(last))
	if vals[last] > maxLast {
		return 0, false
	}
	var addr uint64
	for i := 0; i < last; i++ {
		addr |= vals[i] << (24 - 8*uint(i))
	}
	return uint32(addr | vals[last]), true
}

// atonPart parses one inet_aton component.
func atonPart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		var d uint64
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}
