package monitor

import (
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// helloPort is the port we announce: announce-port, else the TLS port
// when links use TLS, else our port.
func (s *Sentinel) helloPort() int {
	if s.global.AnnouncePort != 0 {
		return s.global.AnnouncePort
	}
	if s.opts.TLSReplication && s.opts.TLSPort != 0 {
		return s.opts.TLSPort
	}
	return s.opts.Port
}

// sendHello publishes our hello to an instance (§6.1, §6.2): to masters and
// replicas it reaches every Sentinel subscribed there, to a Sentinel it is
// processed directly.
func (s *Sentinel) sendHello(i *instance, now int64) bool {
	if i.link.disconnected(i.kind) {
		return false
	}
	ip := s.global.AnnounceIP
	if ip == "" {
		if i.link.localAddr.Host == "" {
			return false // the local address of the connection is not known yet
		}
		ip = i.link.localAddr.Host
	}
	m := i.master
	cur := m.currentAddr()
	h := gossip.Hello{
		SentinelIP:        ip,
		SentinelPort:      s.helloPort(),
		RunID:             s.myID,
		CurrentEpoch:      s.currentEpoch,
		MasterName:        m.name,
		MasterIP:          s.addrs.announceHost(cur),
		MasterPort:        cur.Port,
		MasterConfigEpoch: m.configEpoch,
	}
	return s.links.send(i, sentHello, "PUBLISH", gossip.Channel, h.Encode())
}

// pubsubMessage handles what arrives on a pub/sub connection: any of it
// proves the connection alive; hello messages not from us are processed.
func (s *Sentinel) pubsubMessage(in msg.PubSubMessage, now int64) {
	ref, ok := s.links.refs[in.ID]
	if !ok || ref.kind != msg.PubSubLink || ref.link.pc != in.ID {
		return
	}
	ref.link.pcLastActivity = now
	if in.Channel != gossip.Channel || gossip.ContainsRunID(in.Payload, s.myID) {
		return
	}
	s.processHello(in.Payload, now)
}

// processHello learns from a hello message (§6.3): the Sentinel that sent
// it, its epoch, and a newer configuration of the master.
func (s *Sentinel) processHello(payload string, now int64) {
	h, err := gossip.DecodeHello(payload)
	if err != nil {
		return
	}
	m := s.masters[h.MasterName]
	if m == nil {
		return
	}
	addr := settings.Addr{Host: h.SentinelIP, Port: h.SentinelPort}
	var si *instance
	for _, cand := range m.sentinels {
		if cand.runID == h.RunID && s.addrs.sameInstanceAddr(cand.addr, addr) {
			si = cand
			break
		}
	}
	if si == nil {
		s.views.changedAll() // Sentinel objects of any master may go or move
		removed := s.removeSentinelsByRunID(m, h.RunID)
		if removed > 0 {
			s.event(event.LevelNotice, event.SentinelAddressSwitch, &m.instance,
				" ip "+h.SentinelIP+" port "+strconv.Itoa(h.SentinelPort)+" for "+h.RunID)
		} else {
			for _, other := range m.sortedSentinels() {
				if s.addrs.sameInstanceAddr(other.addr, addr) {
					s.event(event.LevelNotice, event.SentinelInvalidAddr, other, "")
					obsolete := other.runID
					for _, name := range s.names {
						s.removeSentinelsByRunID(s.masters[name], obsolete)
					}
					break
				}
			}
		}
		if valid, ok := s.addrs.validAddr(addr); ok && m.sentinels[h.RunID] == nil {
			si = s.createSentinel(m, valid, h.RunID, now)
			if removed == 0 {
				s.event(event.LevelNotice, event.Sentinel, si, "")
			}
			s.shareLink(si)
			if removed > 0 {
				s.updateSentinelAddrEverywhere(si)
			}
			s.out.persistSoon("new sentinel")
			// One more voter may raise the majority the proxy needs:
			// decide now, so no View shows it forwarding on the old
			// count until the next tick.
			s.checkProxy(m, now)
		}
	}
	if h.CurrentEpoch > s.currentEpoch {
		s.newEpoch(m, h.CurrentEpoch, true)
	}
	if si != nil && m.configEpoch < h.MasterConfigEpoch {
		s.adoptConfig(m, si, h, now)
		s.askLeases(now) // for the new configuration, at once
	}
	if si != nil {
		// The hello's time goes to the queries through its cell: a
		// hello that changes nothing else leaves m's View as it was
		// (what else it changed recorded m as changed above: the new
		// object, the epoch's and the configuration's events).
		si.lastHelloTime = now
		si.helloCell.Store(now)
		si.helloSeen = true
		held := si.helloHolds
		si.helloHolds = h.MasterConfigEpoch == m.configEpoch && h.MasterPort == m.addr.Port && s.addrs.addrMatchesHost(m.addr, h.MasterIP)
		if !held && si.helloHolds && m.leased() && m.proxy.fenced && !m.settings.ProxyNoFencing {
			// The peer holds our configuration now (it switched too):
			// its grant no longer waits for the next tick's ask.
			s.sendLeaseAsks([]*master{m}, now, false)
		}
	}
}

// adoptConfig takes a newer configuration of m from a peer's hello
// (§6.3): its config epoch and, if the master address differs, the
// switch to it.
//
// Two deliberate differences from Redis 7.0.15 (docs/compatibility.md):
// a failover of ours that the new config epoch supersedes is aborted
// first (-failover-abort-superseded), so that we never go on acting on an
// older epoch than the one we hold; and the new address is compared with
// the address we announce, not only with master->addr, so that a leader
// stuck in reconf_slaves (announcing the replica it promoted) switches
// when the newer config names its old master, instead of holding the new
// epoch for the wrong master.
func (s *Sentinel) adoptConfig(m *master, si *instance, h gossip.Hello, now int64) {
	s.views.changedAll()
	announced := m.currentAddr()
	m.configEpoch = h.MasterConfigEpoch
	if m.has(object.FailoverInProgress) && m.failoverEpoch < h.MasterConfigEpoch {
		s.abortFailover(m, now, event.AbortSuperseded, " #config-epoch "+strconv.FormatUint(h.MasterConfigEpoch, 10))
	}
	sameAsMaster := h.MasterPort == m.addr.Port && s.addrs.addrMatchesHost(m.addr, h.MasterIP)
	if sameAsMaster && sameAddr(announced, m.addr) {
		s.out.persist("config epoch")
		return
	}
	old := m.addr
	if sameAsMaster {
		old = announced // we announced the replica we had promoted
	}
	s.event(event.LevelWarning, event.ConfigUpdateFrom, si, "")
	s.announceSwitch(m, old, settings.Addr{Host: h.MasterIP, Port: h.MasterPort})
	m.beginTimeline(false)
	m.mark(event.PhaseConfigHop, now, si.name)
	m.endTimeline(event.PhaseSwitched, now, h.MasterIP+" "+strconv.Itoa(h.MasterPort))
	if s.resetMasterAndChangeAddress(m, settings.Addr{Host: h.MasterIP, Port: h.MasterPort}, now) {
		s.clientReconfigScript(m, "observer", old, m.addr)
	}
}

// removeSentinelsByRunID drops m's sentinel objects with that run id.
func (s *Sentinel) removeSentinelsByRunID(m *master, runID string) int {
	n := 0
	for _, si := range m.sortedSentinels() {
		if si.runID == runID {
			s.dropSentinel(m, si)
			n++
		}
	}
	return n
}

// updateSentinelAddrEverywhere gives every object with si's run id, under
// every master, si's address, closing their connections.
func (s *Sentinel) updateSentinelAddrEverywhere(si *instance) {
	n := 0
	for _, name := range s.names {
		match := s.masters[name].sentinels[si.runID]
		if match == nil {
			continue
		}
		s.links.closeLinks(match)
		if match == si {
			continue
		}
		match.addr = si.addr
		n++
	}
	if n > 0 {
		s.event(event.LevelNotice, event.SentinelAddressUpdate, si, " "+strconv.Itoa(n)+" additional matching instances")
	}
}
