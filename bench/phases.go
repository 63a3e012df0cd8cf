package main

import (
	"fmt"
	"strings"
	"time"
)

// phaseChannels are the events a failover trial subscribes to besides
// +switch-master: the phases of a failover, which go-sentinel and
// redis-sentinel both publish.
var phaseChannels = []string{"+sdown", "+odown", "+try-failover", "+elected-leader", "+promoted-slave"}

// phaseTimes is when, counted from the kill, the first Sentinel of a run
// published each phase of the failover of the killed master; a negative
// duration was not seen.
type phaseTimes struct {
	sdown    time.Duration // first +sdown of the master
	odown    time.Duration // first +odown
	start    time.Duration // first +try-failover
	elected  time.Duration // +elected-leader
	promoted time.Duration // +promoted-slave
	// leader is the index of the Sentinel that published +elected-leader
	// (-1: none did).
	leader int
}

// failoverPhases extracts the phase times of master name from evs, the
// events of a run that killed it at t0.
func failoverPhases(evs []event, name string, t0 time.Time) phaseTimes {
	p := phaseTimes{sdown: -1, odown: -1, start: -1, elected: -1, promoted: -1, leader: -1}
	first := func(d *time.Duration, e event) bool {
		if *d >= 0 {
			return false
		}
		*d = e.at.Sub(t0)
		return true
	}
	master := "master " + name + " "
	for _, e := range evs {
		if e.at.Before(t0) {
			continue
		}
		switch {
		case e.channel == "+sdown" && strings.HasPrefix(e.payload, master):
			first(&p.sdown, e)
		case e.channel == "+odown" && strings.HasPrefix(e.payload, master):
			first(&p.odown, e)
		case e.channel == "+try-failover" && strings.HasPrefix(e.payload, master):
			first(&p.start, e)
		case e.channel == "+elected-leader" && strings.HasPrefix(e.payload, master):
			if first(&p.elected, e) {
				p.leader = e.sentinel
			}
		case e.channel == "+promoted-slave" && strings.Contains(e.payload, " @ "+name+" "):
			first(&p.promoted, e)
		}
	}
	return p
}

// String renders the phases for the progress lines on stderr.
func (p phaseTimes) String() string {
	return fmt.Sprintf("sdown %v odown %v try-failover %v elected %v promoted %v",
		p.sdown, p.odown, p.start, p.elected, p.promoted)
}

// mixedFleet is a fleet of failoverSentinels Sentinels of which redis run
// redis-sentinel (the first ones) and the others go-sentinel; its name says
// so: "mixed (2 go + 1 redis)".
func mixedFleet(gs, rs impl, redis int) impl {
	members := make([]impl, failoverSentinels)
	for k := range members {
		members[k] = gs
		if k < redis {
			members[k] = rs
		}
	}
	return impl{name: fmt.Sprintf("mixed (%d go + %d redis)", failoverSentinels-redis, redis), bin: gs.bin, members: members}
}
