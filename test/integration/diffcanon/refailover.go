package diffcanon

import (
	"strings"
)

// A refailover is redis-sentinel's hazard (b) (docs/compatibility.md):
// right after +switch-master to X it marks the healthy new master X down
// before it ever pinged it, and with enough Sentinels doing so it starts
// an election and a failover of X, which usually ends with -sdown and an
// abort. go-sentinel does not do this. Its trace in a redis-sentinel
// recording is the run of master:X events that starts with the first
// event about X after the switch being +sdown, and ends with the -sdown of
// X or, when a failover of X was tried in it, with that attempt's abort;
// and in every Sentinel of the fleet, the +new-epoch and +vote-for-leader
// of the election the attempt started.

// refailoverWindow returns the indexes [start, end] in rs of the refailover
// trace that follows the +switch-master at rs[sw], or ok false when the
// first event about the new master is not +sdown. The end is the last
// master:X event of the trace; a trace whose failover of X did not abort
// (a real second switch) is not a refailover the rules may absorb.
func refailoverWindow(rs []Raw, sw int) (start, end int, ok bool) {
	f := strings.Fields(rs[sw].Msg)
	if len(f) != 5 {
		return 0, 0, false
	}
	to := f[3] + ":" + f[4]
	about := func(r Raw) bool {
		kind, addr := Subject(r.Msg)
		return kind == "master" && addr == to
	}
	start = -1
	tried, down := false, false
	for i := sw + 1; i < len(rs); i++ {
		r := rs[i]
		if r.Type == Mark || r.Type == "+switch-master" {
			break
		}
		if !about(r) {
			continue
		}
		if start < 0 {
			if r.Type != "+sdown" {
				return 0, 0, false
			}
			start, end, down = i, i, true
			continue
		}
		switch {
		case r.Type == "+try-failover":
			tried = true
		case r.Type == "-sdown":
			down = false
		}
		end = i
		if strings.HasPrefix(r.Type, "-failover-abort-") {
			return start, end, !down
		}
		if !down && !tried {
			return start, end, true
		}
	}
	if start < 0 || down || tried {
		return 0, 0, false
	}
	return start, end, true
}

// epochOf returns the epoch a +new-epoch ("<epoch>") or +vote-for-leader
// ("<run id> <epoch>") message names, or "".
func epochOf(r Raw) string {
	f := strings.Fields(r.Msg)
	switch {
	case r.Type == "+new-epoch" && len(f) == 1:
		return f[0]
	case r.Type == "+vote-for-leader" && len(f) == 2:
		return f[1]
	}
	return ""
}

// DropRedisRefailovers removes the traces of redis-sentinel's refailover
// hazard from the redis-sentinel recordings of one fleet (those with
// Redis set): each Sentinel's run of events about the new master, and in
// every Sentinel the +new-epoch and +vote-for-leader of the elections
// such a run started. Events about other instances inside the run stay.
// It returns the recordings changed and how many events it removed.
func DropRedisRefailovers(recs []Recording) ([]Recording, int) {
	epochs := map[string]bool{}
	drops := make([]map[int]bool, len(recs))
	for k, r := range recs {
		drops[k] = map[int]bool{}
		if !r.Redis {
			continue
		}
		for i, e := range r.Events {
			if e.Type != "+switch-master" {
				continue
			}
			start, end, ok := refailoverWindow(r.Events, i)
			if !ok {
				continue
			}
			f := strings.Fields(e.Msg)
			addr := f[3] + ":" + f[4]
			for j := start; j <= end; j++ {
				if kind, a := Subject(r.Events[j].Msg); kind == "master" && a == addr {
					drops[k][j] = true
				}
				if ep := epochOf(r.Events[j]); ep != "" {
					epochs[ep] = true
				}
			}
		}
	}
	out := make([]Recording, len(recs))
	n := 0
	for k, r := range recs {
		out[k] = r
		if !r.Redis {
			continue
		}
		var evs []Raw
		for j, e := range r.Events {
			if drops[k][j] || (epochs[epochOf(e)] && epochOf(e) != "") {
				n++
				continue
			}
			evs = append(evs, e)
		}
		out[k].Events = evs
	}
	return out, n
}

// RedisSwitchedAgain reports whether a redis-sentinel recording of the
// fleet holds hazard (b) carried through: after a +switch-master to X the
// first event about X is its +sdown, and a later +switch-master moves the
// master away from X. Such a run is redis-sentinel failing over a healthy
// master, which go-sentinel does not do, so it cannot be compared; the
// differential test runs the scenario again. It returns the Sentinel of
// the first such recording.
func RedisSwitchedAgain(recs []Recording) (string, bool) {
	for _, r := range recs {
		if !r.Redis {
			continue
		}
		for i, e := range r.Events {
			if e.Type != "+switch-master" {
				continue
			}
			f := strings.Fields(e.Msg)
			if len(f) != 5 || !firstAboutIsSdown(r.Events, i, f[3]+":"+f[4]) {
				continue
			}
			for _, later := range r.Events[i+1:] {
				g := strings.Fields(later.Msg)
				if later.Type == "+switch-master" && len(g) == 5 && g[1]+":"+g[2] == f[3]+":"+f[4] {
					return r.Sentinel, true
				}
			}
		}
	}
	return "", false
}

// firstAboutIsSdown reports whether the first event about master addr
// after rs[sw] is its +sdown.
func firstAboutIsSdown(rs []Raw, sw int, addr string) bool {
	for _, r := range rs[sw+1:] {
		if kind, a := Subject(r.Msg); kind == "master" && a == addr {
			return r.Type == "+sdown"
		}
	}
	return false
}
