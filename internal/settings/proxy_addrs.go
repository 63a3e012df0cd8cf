package settings

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FormatProxyAddrs writes proxy addresses as SENTINEL MASTER shows them
// and SENTINEL SET <master> proxy takes them: "ip port ip port ...".
func FormatProxyAddrs(as []Addr) string {
	var b strings.Builder
	for k, a := range as {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.Host)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(a.Port))
	}
	return b.String()
}

// ParseProxyAddrs reads what FormatProxyAddrs writes: pairs of an IP
// address and a port, "" for none. A duplicate is an error.
func ParseProxyAddrs(v string) ([]Addr, error) {
	f := strings.Fields(v)
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("%w: %q is not pairs of an address and a port", ErrProxyAddr, v)
	}
	var out []Addr
	for k := 0; k < len(f); k += 2 {
		a, err := ParseProxyAddr(f[k], f[k+1])
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			if o == a {
				return nil, fmt.Errorf("%w: %s %d given twice", ErrProxyAddr, a.Host, a.Port)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// ParseProxyAddr checks one proxy address: an IP address (the proxy
// listens on it; "*" is not taken) and a port from 1 to 65535.
func ParseProxyAddr(host, port string) (Addr, error) {
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return Addr{}, fmt.Errorf("%w: bad port %q", ErrProxyAddr, port)
	}
	ip, ok := CanonicalIP(host)
	if !ok {
		return Addr{}, fmt.Errorf("%w: %q is not an IP address", ErrProxyAddr, host)
	}
	return Addr{Host: ip, Port: p}, nil
}

// ErrProxyAddr is the error of a bad proxy address.
var ErrProxyAddr = errors.New("invalid proxy address")

// SharesAddr reports whether a and b have an address in common (a
// master's proxy and read port may not).
func SharesAddr(a, b []Addr) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
