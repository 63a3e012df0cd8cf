package diffcanon

import (
	"sort"
)

// Canonical is one Sentinel's canonical record: its grouped event
// sequence, then one line per client-reconfig-script invocation.
type Canonical struct {
	Sentinel string
	Lines    []string
	// Dropped counts the events each rule removed (by Rule name), to show
	// which races a run went through; it is not compared.
	Dropped map[string]int
}

// Canonicalize reduces a Sentinel's recording: events are parsed with the
// fleet's labels, those drop matches are removed (the allowances of
// docs/compatibility.md), Rules are applied in order (RedisOnly ones to
// a redis-sentinel recording only) and the result is
// grouped into Runs. client-reconfig-script invocations follow, in the
// order they ran (a Sentinel runs it at most once per switch, seconds
// apart).
func Canonicalize(r Recording, labels Labels, drop func(string) bool) Canonical {
	var evs []Event
	for _, raw := range r.Events {
		e := Parse(raw, labels)
		if drop != nil && e.Type != Mark && drop(e.String()) {
			continue
		}
		evs = append(evs, e)
	}
	dropped := map[string]int{}
	for _, rule := range Rules {
		if rule.RedisOnly && !r.Redis {
			continue
		}
		n := len(evs)
		evs = rule.Apply(evs)
		if n > len(evs) {
			dropped[rule.Name] += n - len(evs)
		}
	}
	lines := Group(evs)
	for _, l := range r.Reconfig {
		s := ParseReconfig(l, labels)
		if drop != nil && drop(s) {
			continue
		}
		lines = append(lines, s)
	}
	return Canonical{Sentinel: r.Sentinel, Lines: lines, Dropped: dropped}
}

// Facts are what a fleet as a whole did where which of its Sentinels did
// it is a race (see the convert-to-slave rule): the sorted set of such
// canonical events published by at least one Sentinel.
func Facts(recs []Recording, labels Labels, drop func(string) bool) []string {
	set := map[string]bool{}
	for _, r := range recs {
		for _, raw := range r.Events {
			e := Parse(raw, labels)
			if e.Type == "+convert-to-slave" && (drop == nil || !drop(e.String())) {
				set[e.String()+" (by at least one Sentinel)"] = true
			}
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
