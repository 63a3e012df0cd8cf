package monitor

import "github.com/go-sentinel/go-sentinel/internal/ipaddr"

// canonicalIP returns the canonical text of a numeric IPv4 (in any
// inet_aton form) or IPv6 address, as Redis stores the addresses peers
// report and as the config file is read, or false for anything else. It
// only parses text: the core does no I/O.
func canonicalIP(host string) (string, bool) { return ipaddr.Canonical(host) }
