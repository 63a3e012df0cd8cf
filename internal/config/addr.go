package config

import "github.com/go-sentinel/go-sentinel/internal/ipaddr"

// canonicalHost returns the host a config line's address is stored with.
// A numeric address (IPv4 in any inet_aton form such as "127.1", or IPv6)
// is returned in its canonical text form. Any other string is a hostname:
// accepted as written when resolve-hostnames is on (Redis accepts
// unresolvable names from the config file then), refused otherwise.
func canonicalHost(host string, resolveHostnames bool) (string, bool) {
	if ip, ok := numericHost(host); ok {
		return ip, true
	}
	if resolveHostnames && host != "" {
		return host, true
	}
	return "", false
}

// numericHost parses host the way getaddrinfo with AI_NUMERICHOST does and
// returns the canonical text form of the address.
func numericHost(host string) (string, bool) { return ipaddr.Canonical(host) }
