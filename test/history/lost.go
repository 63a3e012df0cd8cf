package history

import (
	"sort"
)

// LossClass is why an acknowledged write was lost, in the classes
// docs/coordinated-failover.md ("Every lost write explained") uses.
type LossClass uint8

// The classes. Replication is class (a)/(c) there: acknowledged by a
// master a fault took away (killed, frozen or cut off) before the
// promoted replica had it, up to the moment the master was deposed, or
// after it while the fault still kept it apart (a client that could
// still reach it). Returned is (e): acknowledged by an old master after
// its fault ended and after it was deposed, before it was converted.
// SentinelCaused is every other loss: acknowledged by a master that no
// fault touched (a failover of a healthy master, a promotion that
// threw away what it had, a demotion of the real master); the claim is
// that go-sentinel causes none in unplanned failovers.
const (
	Replication LossClass = iota
	Returned
	SentinelCaused
	lossClasses
)

func (c LossClass) String() string {
	return [...]string{"asynchronous replication", "old master returning", "Sentinel-caused"}[c]
}

// NodeFault is a fault as the loss classifier sees it: which data node
// it took away (Node, an address) and when it was in force.
type NodeFault struct {
	Node       string
	Start, End int64
}

// Switch is a +switch-master of the data set: the master From was
// deposed for To at At (the first Sentinel's announcement).
type Switch struct {
	From, To string
	At       int64
}

// Lost is one acknowledged write the final data lacks, and its class.
type Lost struct {
	Op    *Op
	Class LossClass
}

// LostWrites finds the acknowledged RPUSHes whose element the final
// lists (key → elements) lack, and classifies each by the node that
// acknowledged it (Op.Node), the faults and the switches. An element of
// an unknown RPUSH may or may not be there; it is never counted.
func LostWrites(ops []*Op, final map[string][]string, faults []NodeFault, switches []Switch) []Lost {
	have := map[string]map[string]bool{}
	for k, items := range final {
		have[k] = map[string]bool{}
		for _, it := range items {
			have[k][it] = true
		}
	}
	sort.Slice(switches, func(i, j int) bool { return switches[i].At < switches[j].At })
	var lost []Lost
	for _, o := range ops {
		if o.Kind != RPush || o.Unknown {
			continue
		}
		if _, ok := final[o.Key]; !ok || have[o.Key][o.Value] {
			continue
		}
		lost = append(lost, Lost{Op: o, Class: classify(o, faults, switches)})
	}
	return lost
}

// classify puts one lost write in its class.
func classify(o *Op, faults []NodeFault, switches []Switch) LossClass {
	// The switch that deposed the node: if the last switch that named it
	// before the write deposed it (an old master not converted yet), that
	// one; otherwise it was the master when it acknowledged, and the
	// first switch away from it after the write (or just before it: the
	// announcement lags the promotion) deposed it.
	deposed := int64(-1)
	for _, s := range switches {
		if s.At >= o.Return-int64(relInFlight) {
			break
		}
		if s.From == o.Node {
			deposed = s.At
		} else if s.To == o.Node {
			deposed = -1
		}
	}
	if deposed < 0 {
		for _, s := range switches {
			if s.From == o.Node && s.At >= o.Return-int64(relInFlight) {
				deposed = s.At
				break
			}
		}
	}
	if deposed < 0 {
		// Never deposed after it acknowledged: its data is the data.
		return SentinelCaused
	}
	// The fault that deposed it: on the node, begun by the deposition,
	// and in force at it or ended at most relInFlight before (the first
	// announcement can lag the promotion).
	for _, f := range faults {
		if f.Node != o.Node || f.Start > deposed || f.End < deposed-int64(relInFlight) {
			continue
		}
		if o.Return < f.Start-int64(replicationWindow) {
			// Acknowledged long before the fault: its replicas had it.
			continue
		}
		if o.Return <= deposed || o.Return <= f.End {
			return Replication
		}
		return Returned
	}
	return SentinelCaused
}

// relInFlight is how long before the first announcement a switch may
// already have happened (the promotion comes first, the announcement
// after the promoted replica's INFO confirms it: up to an INFO period).
const relInFlight = 1_500_000_000

// replicationWindow is how long before a fault a write acknowledged by
// the master can still have been missing on its replicas. Replication
// is asynchronous: milliseconds on an idle machine, but on the loaded
// 2-core machine of make histories (two fleets, a dozen clients, every
// node fsyncing each write) writes acknowledged 1.1 s before a cut were
// seen missing on the promoted replica, whose acknowledged offset the
// read port's lag check also saw pass 2 s; a write acknowledged earlier
// than this before the fault and lost is counted Sentinel-caused.
const replicationWindow = 3_000_000_000

// CountByClass counts lost writes per class.
func CountByClass(ls []Lost) [lossClasses]int {
	var n [lossClasses]int
	for _, l := range ls {
		n[l.Class]++
	}
	return n
}
