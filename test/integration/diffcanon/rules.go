package diffcanon

import (
	"sort"
	"strings"
)

// A Rule rewrites one Sentinel's event sequence to absorb a race that
// redis-sentinel has by design, so that two fleets behaving alike give the
// same sequence. Rules only drop events that the race makes optional;
// nothing is reordered here (see Concurrent for that).
//
// A RedisOnly rule absorbs a defect of redis-sentinel 7.0.15 that
// go-sentinel deliberately does not copy (docs/compatibility.md): it
// clears the reference's recordings only, so go-sentinel is still held
// to the behaviour without the defect, and the self-check (redis-sentinel
// against itself) stays stable.
type Rule struct {
	Name      string
	Reason    string
	Apply     func([]Event) []Event
	RedisOnly bool
}

// Rules are applied in this order to every Sentinel's sequence: first
// the RedisOnly ones, which turn a redis-sentinel sequence into the one
// it would have published without its defect, then the races.
var Rules = []Rule{
	{
		Name: "redis-dead-flap",
		Reason: "redis-sentinel defect (docs/compatibility.md, Failure detection): its first reconnect attempt " +
			"to a dead instance restarts the down-after clock and counts the connection being dialled as " +
			"live, so an instance marked down before that attempt is marked up and down again while dead; " +
			"go-sentinel does not flap (a flap of go-sentinel shows)",
		Apply:     dropRedisDeadFlap,
		RedisOnly: true,
	},
	{
		Name: "lost-elections",
		Reason: "every Sentinel that reaches ODOWN may start an election after a random delay of up to 1 s; " +
			"which one wins is a race, and a loser either times out (-failover-abort-not-elected after " +
			"failover-timeout) or is switched by the winner's hello first",
		Apply: dropLostElections,
	},
	{
		Name: "observer-detection",
		Reason: "a Sentinel that does not lead a failover detects the failure on its own clock (its PINGs are " +
			"up to a PING period apart from the others') and asks the others whether the master is down every " +
			"second; whether its +sdown and +odown of the old master come before the leader's hello switches " +
			"it is a race (in redis-sentinel +odown often loses, +sdown rarely; go-sentinel's accelerated " +
			"failover, done 0.1-0.4 s after ODOWN, often beats both); and any Sentinel may see -odown before " +
			"its switch once a Sentinel that already switched answers \"not down\" for the old address",
		Apply: dropSwitchedDetection,
	},
	{
		Name: "observer-sees-promotion",
		Reason: "a Sentinel that does not lead polls the replicas' INFO every second while the master is down; " +
			"whether it sees the promoted replica report the master role (-role-change) before the leader's " +
			"hello switches it is a race",
		Apply: dropObserverPromotionRole,
	},
	{
		Name: "convert-to-slave",
		Reason: "once an old master has reported the master role for 8 s, every Sentinel whose INFO poll " +
			"(every 10 s) comes first sends SLAVEOF: usually one, sometimes two; the fleet is checked to " +
			"have sent at least one (see Facts)",
		Apply: dropConvertToSlave,
	},
}

// isAbort reports whether e ends a failover attempt without success.
func isAbort(e Event) bool { return strings.HasPrefix(e.Type, "-failover-abort-") }

// dropLostElections removes the +try-failover of every election the
// Sentinel did not win (no +elected-leader before its next attempt, abort,
// switch or scenario step) and every -failover-abort-not-elected. The
// +new-epoch and +vote-for-leader of such an election stay: they fall in
// the election run that Concurrent merges.
func dropLostElections(in []Event) []Event {
	var out []Event
	for i, e := range in {
		if e.Type == "-failover-abort-not-elected" {
			continue
		}
		if e.Type == "+try-failover" && !wonElection(in[i+1:]) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// wonElection reports whether the events after a +try-failover show it
// won: +elected-leader before anything that ends the attempt.
func wonElection(after []Event) bool {
	for _, e := range after {
		switch {
		case e.Type == "+elected-leader":
			return true
		case e.Type == "+try-failover", e.Type == "+switch-master", e.Type == Mark, isAbort(e):
			return false
		}
	}
	return false
}

// segments splits a sequence after each +switch-master: the events of one
// master address each. The last segment may not end with a switch.
func segments(in []Event) [][]Event {
	var out [][]Event
	start := 0
	for i, e := range in {
		if e.Type == "+switch-master" {
			out = append(out, in[start:i+1])
			start = i + 1
		}
	}
	if start < len(in) {
		out = append(out, in[start:])
	}
	return out
}

// ledSwitch reports whether a segment ends with a switch this Sentinel
// made itself as the elected leader (rather than learnt from a hello).
func ledSwitch(seg []Event) bool {
	for _, e := range seg {
		if e.Type == "+elected-leader" {
			return true
		}
	}
	return false
}

func endsWithSwitch(seg []Event) bool {
	return len(seg) > 0 && seg[len(seg)-1].Type == "+switch-master"
}

// dropSwitchedDetection removes, in every segment that ends with a
// switch, the -odown events and, when the Sentinel did not lead it, its
// +sdown and +odown of the master it switches from. Segments without a
// switch (no failover possible) keep them all, and a -sdown of the old
// master (a flap) stays everywhere.
func dropSwitchedDetection(in []Event) []Event {
	var out []Event
	for _, seg := range segments(in) {
		if !endsWithSwitch(seg) {
			out = append(out, seg...)
			continue
		}
		led := ledSwitch(seg)
		sw := seg[len(seg)-1]
		from := sw.Label[:strings.Index(sw.Label, ">")]
		for _, e := range seg {
			if e.Type == "-odown" {
				continue
			}
			if !led && (e.Type == "+odown" || e.Type == "+sdown") && e.Kind == "master" && e.Label == from {
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

// dropObserverPromotionRole removes, in a segment ending with a switch
// the Sentinel did not lead, the -role-change of the replica the switch
// goes to.
func dropObserverPromotionRole(in []Event) []Event {
	var out []Event
	for _, seg := range segments(in) {
		if !endsWithSwitch(seg) || ledSwitch(seg) {
			out = append(out, seg...)
			continue
		}
		sw := seg[len(seg)-1]
		to := sw.Label[strings.Index(sw.Label, ">")+1:]
		for _, e := range seg {
			if e.Type == "-role-change" && e.Kind == "slave" && e.Label == to {
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

// dropRedisDeadFlap removes each "-sdown X" whose next event about X
// is "+sdown X", with that +sdown: the instance never answered in between
// as far as the events show. (No scenario brings an instance back and
// then fails it again, where such a pair would be real.)
func dropRedisDeadFlap(in []Event) []Event {
	drop := map[int]bool{}
	for i, e := range in {
		if e.Type != "-sdown" || drop[i] {
			continue
		}
		for j := i + 1; j < len(in); j++ {
			if in[j].Kind != e.Kind || in[j].Label != e.Label {
				continue
			}
			if in[j].Type == "+sdown" {
				drop[i], drop[j] = true, true
			}
			break
		}
	}
	var out []Event
	for i, e := range in {
		if !drop[i] {
			out = append(out, e)
		}
	}
	return out
}

// dropConvertToSlave removes +convert-to-slave: which Sentinels send it
// is a race; Facts records whether any did.
func dropConvertToSlave(in []Event) []Event {
	var out []Event
	for _, e := range in {
		if e.Type != "+convert-to-slave" {
			out = append(out, e)
		}
	}
	return out
}

// Concurrent is a set of events whose order inside a contiguous run of
// them is a race in redis-sentinel; such a run is sorted (and, with
// Dedupe, repeated events in it are counted once). Order and counts
// outside runs are kept, so a flap (+sdown -sdown +sdown) or a missing,
// extra or misplaced event still shows.
type Concurrent struct {
	Name   string
	Reason string
	Member func(Event) bool
	Dedupe bool
	// SameInstance ends a run at the first event about another instance.
	SameInstance bool
}

// Runs are the concurrent sets, tried in this order for each event.
var Runs = []Concurrent{
	{
		Name: "detection-and-election",
		Reason: "Sentinels mark the master down up to a PING period apart, so a Sentinel may be asked for its " +
			"vote (+new-epoch, +vote-for-leader) before its own +sdown/+odown; a candidate's +try-failover, " +
			"its own vote and +elected-leader follow its ODOWN by a random delay; a split vote repeats " +
			"+new-epoch, +vote-for-leader and +try-failover",
		Member: func(e Event) bool {
			switch e.Type {
			case "+sdown", "+odown":
				return e.Kind == "master"
			case "+new-epoch", "+vote-for-leader", "+try-failover", "+elected-leader":
				return true
			}
			return false
		},
		Dedupe: true,
	},
	{
		Name: "discovery",
		Reason: "the replicas a switch re-creates are announced (+slave) in the order of a hash table that " +
			"redis-sentinel seeds per process; after MONITOR, replicas come from INFO and Sentinels from " +
			"hellos, whichever arrives first",
		Member: func(e Event) bool { return e.Type == "+slave" || e.Type == "+sentinel" },
	},
	{
		Name: "recovery",
		Reason: "when an instance answers again, redis-sentinel publishes what its INFO reply shows (+reboot, " +
			"-role-change) from the reply callback but -sdown from the next timer run after the PING reply: " +
			"the order depends on whether both replies arrive in one read",
		Member: func(e Event) bool {
			return e.Kind != "" && (e.Type == "-sdown" || e.Type == "+reboot" || e.Type == "-role-change")
		},
		SameInstance: true,
	},
}

// runOf returns the index in Runs of the set e belongs to, or -1.
func runOf(e Event) int {
	for i, c := range Runs {
		if c.Member(e) {
			return i
		}
	}
	return -1
}

// Group writes the sequence as canonical lines: an event outside any run
// is one line; a run of two or more events of one Concurrent set is one
// line "{a, b, c}", sorted (deduplicated for Dedupe sets). A run that
// dedupes to a single event is written as that event.
func Group(in []Event) []string {
	var out []string
	for i := 0; i < len(in); {
		r := runOf(in[i])
		if r < 0 {
			out = append(out, in[i].String())
			i++
			continue
		}
		j := i
		var run []string
		seen := map[string]bool{}
		for ; j < len(in) && runOf(in[j]) == r; j++ {
			if Runs[r].SameInstance && (in[j].Kind != in[i].Kind || in[j].Label != in[i].Label) {
				break
			}
			s := in[j].String()
			if Runs[r].Dedupe && seen[s] {
				continue
			}
			seen[s] = true
			run = append(run, s)
		}
		sort.Strings(run)
		if len(run) == 1 {
			out = append(out, run[0])
		} else {
			out = append(out, "{"+strings.Join(run, ", ")+"}")
		}
		i = j
	}
	return out
}
