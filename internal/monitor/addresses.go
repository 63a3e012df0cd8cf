package monitor

import (
	"maps"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// addrBook is how this Sentinel names and matches instance addresses:
// what the hostnames it dialled resolved to (resolve-hostnames), the IPs
// they resolved to before, and the announce settings that decide how an
// address is shown and sent.
type addrBook struct {
	// global is the Sentinel's global settings (announce-hostnames,
	// resolve-hostnames), which SENTINEL CONFIG SET changes.
	global *settings.Persisted
	// resolved maps a hostname (lower case) to its IP, from HostResolved;
	// replaced, never changed in place.
	resolved map[string]string
	// resolvedGen counts the changes of resolved, for the View.
	resolvedGen int
	// formerIPs maps an IP a hostname resolved to before it moved to the
	// hostname (lower case), until the master of that name's replica no
	// longer lists the IP.
	formerIPs map[string]string
}

// validAddr checks an address given by a peer: a numeric IP, stored in
// canonical form, or with resolve-hostnames on also a hostname, stored as
// written.
func (b *addrBook) validAddr(a settings.Addr) (settings.Addr, bool) {
	if a.Port < 0 || a.Port > 65535 {
		return a, false
	}
	if ip, ok := settings.CanonicalIP(a.Host); ok {
		return settings.Addr{Host: ip, Port: a.Port}, true
	}
	return a, b.global.ResolveHostnames && a.Host != ""
}

// sameInstanceAddr compares a stored address with one a peer reported,
// as Redis resolves the reported one before comparing: the same port and
// the same host by addrMatchesHost.
func (b *addrBook) sameInstanceAddr(stored, reported settings.Addr) bool {
	return stored.Port == reported.Port && b.addrMatchesHost(stored, reported.Host)
}

// addrMatchesHost compares a stored address with a host string a peer
// reported (§14.4): equal IPs, where a hostname counts as the IP it was
// resolved to when a link connected, or else equal hostnames.
func (b *addrBook) addrMatchesHost(a settings.Addr, host string) bool {
	return settings.AddrMatchesHost(b.resolved, a, host)
}

// hostResolved records where a hostname pointed when a link dialed it
// (resolve-hostnames yes), replacing what it pointed to before, so that
// matching by name follows a name that moved. A replica entry that a
// master's INFO had added by the IP the name now resolves to is the same
// instance as the entry stored by the name: it is dropped, with
// -slave-merged, unless its master is failing over (then the next
// resolution merges it).
func (s *Sentinel) hostResolved(in msg.HostResolved) {
	host := strings.ToLower(in.Host)
	old, had := s.addrs.resolved[host]
	if had && old == in.IP {
		return
	}
	// A new map: Views share the old one and read it unlocked.
	r := make(map[string]string, len(s.addrs.resolved)+1)
	maps.Copy(r, s.addrs.resolved)
	r[host] = in.IP
	s.addrs.resolved = r
	s.addrs.resolvedGen++
	s.views.changedAll()
	ip, ok := settings.CanonicalIP(in.IP)
	if !ok {
		return
	}
	if s.addrs.formerIPs == nil {
		s.addrs.formerIPs = make(map[string]string)
	}
	delete(s.addrs.formerIPs, ip)
	if prev, ok := settings.CanonicalIP(old); had && ok {
		s.addrs.formerIPs[prev] = host
	}
	for _, name := range s.names {
		m := s.masters[name]
		if m.has(object.FailoverInProgress) {
			continue
		}
		for _, named := range m.sortedReplicas() {
			if !strings.EqualFold(named.addr.Host, in.Host) || named.removed {
				continue
			}
			for _, dup := range m.sortedReplicas() {
				if dup == named || dup.addr.Port != named.addr.Port {
					continue
				}
				if dip, ok := settings.CanonicalIP(dup.addr.Host); ok && dip == ip {
					s.event(event.LevelNotice, event.ReplicaMerged, dup, " into "+named.name)
					s.dropReplica(m, dup)
					s.out.persistSoon("merged replica")
				}
			}
		}
	}
}

// findReplicaByName looks a reported replica address up in m: the entry
// stored at that address, else (resolve-hostnames yes) the entry whose
// host resolves to the same IP as the reported one (§14.4), so that a
// replica stored by its name and reported by its IP (or the other way
// round) is one entry; else the entry of the name the IP was the address
// of before the name moved (a master still lists the old connection of a
// replica that moved until its replication timeout: it is not another
// replica).
func (b *addrBook) findReplicaByName(m *master, a settings.Addr) *instance {
	if r := m.findReplica(a); r != nil || !b.global.ResolveHostnames {
		return r
	}
	for _, r := range m.sortedReplicas() {
		if b.sameInstanceAddr(r.addr, a) {
			return r
		}
	}
	if ip, ok := settings.CanonicalIP(a.Host); ok {
		if host, ok := b.formerIPs[ip]; ok {
			for _, r := range m.sortedReplicas() {
				if r.addr.Port == a.Port && strings.EqualFold(r.addr.Host, host) {
					return r
				}
			}
		}
	}
	return nil
}

// forgetFormerIPs drops the former addresses of m's replicas that m's
// INFO no longer lists (listed): once the master let the old connection
// go, an instance at that address is another one.
func (b *addrBook) forgetFormerIPs(m *master, listed []settings.Addr) {
	for ip, host := range b.formerIPs {
		still := false
		for _, a := range listed {
			if lip, ok := settings.CanonicalIP(a.Host); ok && lip == ip {
				still = true
				break
			}
		}
		if still {
			continue
		}
		for _, r := range m.sortedReplicas() {
			if strings.EqualFold(r.addr.Host, host) {
				delete(b.formerIPs, ip)
				break
			}
		}
	}
}

// namedAddr returns the stored address of m's replica that a reported
// IP address is (its hostname resolves to that IP), or a itself. A switch
// announced by IP (a peer's hello with announce-hostnames no) then keeps
// the name the replica was known by, so that the new master is still
// followed by name, and the old entry of the promoted replica is not
// kept beside it as a replica of itself.
func (b *addrBook) namedAddr(m *master, a settings.Addr) settings.Addr {
	if !b.global.ResolveHostnames {
		return a
	}
	if _, ok := settings.CanonicalIP(a.Host); !ok {
		return a
	}
	for _, r := range m.sortedReplicas() {
		if _, isIP := settings.CanonicalIP(r.addr.Host); !isIP && b.sameInstanceAddr(r.addr, a) {
			return r.addr
		}
	}
	return a
}

// announceAddr is the address as shown and sent: the host as stored when
// announce-hostnames is on; otherwise the IP a stored hostname resolved
// to, once known.
func (b *addrBook) announceAddr(a settings.Addr) settings.Addr {
	if b.global.AnnounceHostnames || len(b.resolved) == 0 {
		return a
	}
	if ip, ok := b.resolved[strings.ToLower(a.Host)]; ok {
		return settings.Addr{Host: ip, Port: a.Port}
	}
	return a
}

func (b *addrBook) announceHost(a settings.Addr) string { return b.announceAddr(a).Host }
