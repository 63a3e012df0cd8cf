package explain

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Text renders an Explanation for people: the stage and the reasons
// first, then the facts behind them, one per line.
func (e Explanation) Text() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("master %s %s %d: %s", e.Master, e.IP, e.Port, stageText[e.Stage])
	for _, y := range e.Why {
		w("  why: %s", y)
	}
	d := e.Detection
	w("detection: sdown=%s odown=%s down-after=%s link=%s last-valid-reply=%s ago role-reported=%s",
		yesFor(d.SDown, d.SDownMs), yesFor(d.ODown, d.ODownMs), msText(d.DownAfterMs), upDown(d.LinkUp), msText(d.LastValidMs), d.RoleReported)
	ag := e.Agreement
	floor := ""
	if ag.VotersFloor > 0 {
		floor = fmt.Sprintf(" (voters %d)", ag.VotersFloor)
	}
	w("agreement: %d report it down, quorum %d; %d Sentinels know it%s, majority %d, %d can vote", ag.DownReports, ag.Quorum, ag.Voters, floor, ag.Majority, ag.Reachable)
	for _, s := range e.Sentinels {
		opinion := "says not down about " + s.About
		if s.ReportsDown {
			opinion = "says down about " + s.About
		}
		if !s.Answered {
			opinion = "no answer yet about " + s.About
		}
		vote := ""
		if s.VotedFor != "" {
			vote = fmt.Sprintf(", voted for %s in epoch %d", short(s.VotedFor), s.VoteEpoch)
		}
		age := fmt.Sprintf("reply %s ago", msText(s.ReplyAgeMs))
		if !s.Answered {
			age = "for " + msText(s.ReplyAgeMs)
		}
		w("  sentinel %s %s:%d link=%s %s (%s)%s", short(s.RunID), s.IP, s.Port, upDown(s.LinkUp), opinion, age, vote)
	}
	el := e.Election
	voted := el.VotedFor
	if voted == "" {
		voted = "nobody"
	}
	w("election: current-epoch %d, config-epoch %d, this Sentinel voted for %s in epoch %d; %d vote(s) for it, %d needed",
		el.CurrentEpoch, el.ConfigEpoch, short(voted), el.LeaderEpoch, el.VotesForMe, el.VotesNeeded)
	if el.LeaseHoldMs > 0 {
		w("  votes about this master held back %s more for the proxies' leases this Sentinel granted", msText(el.LeaseHoldMs))
	}
	f := e.Failover
	if f.InProgress {
		w("failover: state %s for %s (epoch %d), deadline in %s, promoting %s", f.State, msText(f.StateMs), f.Epoch, msText(f.DeadlineMs), orNone(f.Promoted))
		if f.Coordinated {
			w("  coordinated: the master hands over with FAILOVER TO; its writes paused for %s", msText(f.PausedMs))
		} else if f.PausedMs > 0 {
			w("  the old master's writes paused for %s", msText(f.PausedMs))
		}
	} else if f.NextAttemptMs > 0 {
		w("failover: none; the next may start in %s (2 × failover-timeout %s)", msText(f.NextAttemptMs), msText(f.FailoverTimeoutMs))
	} else {
		w("failover: none; one may start now (failover-timeout %s)", msText(f.FailoverTimeoutMs))
	}
	if e.Tilt.On {
		w("tilt: on for %s, ends in %s", msText(e.Tilt.ForMs), msText(e.Tilt.EndsMs))
	} else {
		w("tilt: off")
	}
	if p := e.Proxy; p != nil {
		state := "forwarding to the master"
		if !p.Forwarding {
			state = "fenced: " + p.Reason
		}
		w("proxy: %s on %s; proxy-fence-after %s (fencing %s), proxy-hold %s, protected mode %s",
			state, settings.FormatProxyAddrs(p.Listen), msText(p.FenceAfterMs), settings.YesNoText(p.Fencing), msText(p.HoldMs), settings.YesNoText(p.Protected))
	}
	if r := e.Reads; r != nil {
		w("proxy-replicas: %s on %s; proxy-replica-max-lag %s", r.State, settings.FormatProxyAddrs(r.Listen), msText(r.MaxLagMs))
		for _, x := range r.Excluded {
			w("  not served: %s, %s", x.Addr, x.Why)
		}
	}
	for _, r := range e.Replicas {
		switch {
		case r.Best:
			w("  replica %s: eligible, would be promoted (priority %d, offset %d)", r.Name, r.Priority, r.Offset)
		case r.Eligible:
			w("  replica %s: eligible (priority %d, offset %d)", r.Name, r.Priority, r.Offset)
		default:
			w("  replica %s: excluded, %s [%s]", r.Name, r.Reason, r.Rule)
		}
	}
	for _, c := range e.Conversions {
		switch {
		case c.Converted:
			w("  replica %s: converted from role master %s ago (%s): %s", c.Name, msText(c.DecidedMs), c.Branch, c.Why)
		case c.Reporting:
			w("  replica %s: reports role master for %s, not converted yet (%s): %s", c.Name, msText(c.ReportedMs), c.Branch, c.Why)
		default:
			w("  replica %s: reported role master, not converted (%s, %s ago): %s", c.Name, c.Branch, msText(c.DecidedMs), c.Why)
		}
	}
	for _, t := range []struct {
		name string
		v    *TimelineView
	}{{"current failover", e.Current}, {"last failover", e.LastFailover}} {
		if t.v == nil {
			continue
		}
		role := "followed"
		if t.v.Led {
			role = "led"
		}
		w("%s (%s by this Sentinel), total %s:", t.name, role, msText(t.v.TotalMs))
		for _, p := range t.v.Phases {
			note := ""
			if p.Note != "" {
				note = " (" + p.Note + ")"
			}
			w("  %s %-14s %s%s", p.At, p.Phase, msText(p.DurationMs), note)
		}
	}
	return b.String()
}

var stageText = map[Stage]string{
	StageOK:       "ok (not subjectively down)",
	StageSDown:    "subjectively down (SDOWN), not objectively down",
	StageODown:    "objectively down (ODOWN), no failover running here",
	StageFailover: "failover in progress here",
}

func yesFor(b bool, v int64) string {
	if !b {
		return "no"
	}
	return "yes for " + msText(v)
}

func upDown(b bool) string {
	if b {
		return "up"
	}
	return "down"
}

func orNone(s string) string {
	if s == "" {
		return "none yet"
	}
	return s
}
