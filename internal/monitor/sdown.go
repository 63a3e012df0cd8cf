package monitor

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// checkSDown decides whether an instance is subjectively down (§7.1) and
// closes connections that look stale (§3.4).
func (s *Sentinel) checkSDown(i *instance, now int64) {
	l := i.link
	var elapsed int64
	if l.actPingTime != 0 {
		elapsed = now - l.actPingTime
	} else if l.disconnected(i.kind) {
		elapsed = now - l.lastAvailTime
	}
	minReconnect := s.timing.MinLinkReconnectPeriodMs
	if l.cc != 0 && now-l.ccConnTime > minReconnect && l.actPingTime != 0 &&
		now-l.actPingTime > i.downAfter/2 && now-l.lastPongTime > i.downAfter/2 {
		s.links.closeCC(l)
		s.views.linkChanged(l)
	}
	if l.pc != 0 && now-l.pcConnTime > minReconnect &&
		now-l.pcLastActivity > 3*s.timing.PublishPeriodMs {
		s.links.closePC(l)
		s.views.linkChanged(l)
	}
	down := elapsed > i.downAfter ||
		(i.kind == object.Master && i.roleReported == inforeply.RoleSlave &&
			now-i.roleReportedTime > i.downAfter+2*s.timing.InfoPeriodMs) ||
		(i.has(object.MasterReboot) && now-i.rebootTime > i.master.settings.RebootDownAfterMs)
	if down {
		if !i.has(object.SDown) {
			s.event(event.LevelWarning, event.SDown, i, "")
			i.sdownSince = now
			i.flags |= object.SDown
			if i.kind == object.Master {
				s.busy(now)
			}
		}
	} else if !i.has(object.SDown) && l.actPingTime != 0 {
		s.deadline(l.actPingTime + i.downAfter + 1)
	} else if i.has(object.SDown) {
		i.flags &^= object.SDown | object.ScriptKillSent
		s.event(event.LevelWarning, event.SDownEnd, i, "")
	}
}

// checkODown decides whether a master is objectively down (§7.2): we and
// enough other Sentinels think it is down.
func (s *Sentinel) checkODown(m *master, now int64) {
	votes := 0
	odown := false
	if m.has(object.SDown) {
		votes = 1
		for _, si := range m.sentinels {
			if si.has(object.MasterDown) {
				votes++
			}
		}
		odown = votes >= m.settings.Quorum
	}
	if odown {
		if !m.has(object.ODown) {
			s.busy(now)
			m.flags |= object.ODown
			m.odownSince = now
			s.event(event.LevelWarning, event.ODown, &m.instance, fmt.Sprintf(" #quorum %d/%d", votes, m.settings.Quorum))
		}
	} else if m.has(object.ODown) {
		m.electionAt = 0
		m.flags &^= object.ODown
		s.event(event.LevelWarning, event.ODownEnd, &m.instance, "")
	}
}
