package event

import (
	"strconv"
	"strings"
	"time"
)

// Phase names the steps a failover timeline records, in the order they
// happen.
type Phase string

// The phases of a failover, as this Sentinel saw them.
const (
	PhaseSDown     Phase = "sdown"         // the master became subjectively down
	PhaseODown     Phase = "odown"         // objectively down (quorum reached)
	PhaseStart     Phase = "try-failover"  // this Sentinel started a failover
	PhaseElected   Phase = "elected"       // it won the election
	PhaseSelected  Phase = "selected"      // it chose the replica to promote
	PhasePaused    Phase = "paused"        // the old master's writes were paused (until the promotion)
	PhasePromoted  Phase = "promoted"      // the replica reported role master
	PhaseEnd       Phase = "failover-end"  // every replica reconfigured (or the timeout)
	PhaseSwitched  Phase = "switched"      // the master address changed (+switch-master)
	PhaseAborted   Phase = "aborted"       // the failover was given up
	PhaseConfigHop Phase = "config-update" // a peer's newer config was adopted (observer)
)

// Mark is one phase of a timeline and when it began.
type Mark struct {
	Phase Phase
	At    time.Time
	// Note says more where a phase needs it (the abort reason, the
	// promoted replica).
	Note string
}

// Timeline is the record of one failover of a master: the phases this
// Sentinel saw, in order. Led reports whether this Sentinel led it
// (otherwise it only followed a peer's hello).
type Timeline struct {
	Led bool
	// Coordinated: the failover was SENTINEL FAILOVER ... COORDINATED.
	Coordinated bool
	Marks       []Mark
}

// Durations returns each phase's duration, up to the next mark.
func (t Timeline) Durations() []time.Duration {
	out := make([]time.Duration, len(t.Marks))
	for k := 0; k+1 < len(t.Marks); k++ {
		out[k] = t.Marks[k+1].At.Sub(t.Marks[k].At)
	}
	return out
}

// Total is the time from the first mark to the last.
func (t Timeline) Total() time.Duration {
	if len(t.Marks) < 2 {
		return 0
	}
	return t.Marks[len(t.Marks)-1].At.Sub(t.Marks[0].At)
}

// String renders the timeline on one line:
// `sdown+0.05s odown+0.01s try-failover+0.02s ... total 1.21s`, each
// phase followed by how long it lasted until the next one.
func (t Timeline) String() string {
	var b strings.Builder
	d := t.Durations()
	for k, m := range t.Marks {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(m.Phase))
		if k+1 < len(t.Marks) {
			b.WriteByte('+')
			b.WriteString(seconds(d[k]))
		}
	}
	b.WriteString(" total ")
	b.WriteString(seconds(t.Total()))
	return b.String()
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
}
