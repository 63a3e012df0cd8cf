package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/test/history"
)

// histLateReturn is how long after the returning old master's fault ends
// it may still acknowledge a write that is then lost (go-sentinel's
// claim: converted at first contact; the contact comes once the process
// has loaded its data or the heal is seen, well within it).
const histLateReturn = 2_000_000_000

// histRow is the summary of one route under one fault kind, over every
// episode of that kind.
type histRow struct {
	fleet, route string
	fault        histFault
	episodes     int
	ops          int
	keys, bad    int // keys checked, keys not linearizable
	excused      int // acknowledged writes of the fence window, excused
	lost         [3]int
	lateReturned int   // lost, acknowledged by a returning old master past histLateReturn
	staleNs      int64 // worst read staleness (read route)
	staleOver    int   // reads over max-lag + slack
}

// histJudgement is the verdict of a run: its rows and the claims broken.
type histJudgement struct {
	dir      string
	seed     int64
	rows     map[string]*histRow
	failures []string // "<claim>: <what>", go-sentinel's only
	visuals  []string
}

func (j *histJudgement) row(fleet, route string, f histFault) *histRow {
	if j.rows == nil {
		j.rows = map[string]*histRow{}
	}
	k := fleet + "|" + route + "|" + string(f)
	if j.rows[k] == nil {
		j.rows[k] = &histRow{fleet: fleet, route: route, fault: f}
	}
	return j.rows[k]
}

// The claims the judgement asserts for go-sentinel, by name.
const (
	claimCoordinated = "linearizable across COORDINATED failovers"
	claimProxy       = "proxy linearizable but for one fence window"
	claimNoSentinel  = "no Sentinel-caused loss in unplanned failovers"
	claimReturn      = "a returning old master takes no writes"
	claimStale       = "no read staler than max-lag"
)

func (j *histJudgement) fail(hf *histFleet, claim, what string) {
	if hf.kind == goSentinel {
		j.failures = append(j.failures, claim+": "+what)
	}
}

// judge checks one episode of one fleet.
func (j *histJudgement) judge(t *testing.T, rec *histRecorder, hf *histFleet, ep *histEpisode, final map[string][]string) {
	windows := []history.Window{{Label: string(ep.fault), Start: ep.start, End: ep.end}}
	switches := hf.switches(rec)
	for _, r := range []string{"sentinel", "proxy", "fixed"} {
		route := hf.route(r)
		ops := rec.opsOf(histKey(route, ep.n))
		row := j.row(string(hf.kind), r, ep.fault)
		row.episodes++
		row.ops += len(ops)
		checked := ops
		if r == "proxy" && ep.fault.masterFault() {
			fence := history.Window{Label: "fence window", Start: ep.start - 1_000_000_000, End: ep.start + histFenceAfter.Nanoseconds() + 500_000_000}
			var n int
			checked, n = history.Excuse(ops, []history.Window{fence})
			row.excused += n
			windows = append(windows, fence)
		}
		name := fmt.Sprintf("%s-ep%d-%s", route, ep.n, ep.fault)
		vs := history.Linearizable(checked, windows, j.dir, name)
		bad := history.Failed(vs)
		row.keys += len(vs)
		row.bad += len(bad)
		for _, v := range bad {
			if v.Visualization != "" {
				j.visuals = append(j.visuals, v.Visualization)
			}
		}
		lost := history.LostWrites(ops, final, hf.nodeFaults, switches)
		late := 0
		for _, l := range lost {
			row.lost[l.Class]++
			if l.Class == history.Returned && l.Op.Return > ep.end+histLateReturn {
				late++
			}
		}
		row.lateReturned += late
		n := history.CountByClass(lost)
		switch {
		case ep.fault == histCoordinated && r != "fixed" && len(bad) > 0:
			j.fail(hf, claimCoordinated, fmt.Sprintf("episode %d, %s: %d keys not linearizable (%s)", ep.n, route, len(bad), histVisuals(bad)))
		case r == "proxy" && ep.fault != histPlanned && len(bad) > 0:
			// A plain SENTINEL FAILOVER is not claimed lossless (about 1
			// write in 68,000, docs/coordinated-failover.md): measured.
			j.fail(hf, claimProxy, fmt.Sprintf("episode %d (%s), %s: %d keys not linearizable (%s)", ep.n, ep.fault, route, len(bad), histVisuals(bad)))
		}
		if !ep.fault.planned() && n[history.SentinelCaused] > 0 {
			j.fail(hf, claimNoSentinel, fmt.Sprintf("episode %d (%s), %s: %d lost, e.g. %s", ep.n, ep.fault, route, n[history.SentinelCaused], histLostExample(lost, history.SentinelCaused)))
		}
		if late > 0 {
			j.fail(hf, claimReturn, fmt.Sprintf("episode %d (%s), %s: %d writes acknowledged by the old master more than %d s after it came back, then lost (%s)",
				ep.n, ep.fault, route, late, histLateReturn/1_000_000_000, histVisuals(bad)))
		}
	}
	if len(hf.reads) == 0 {
		return
	}
	route := hf.route("read")
	ops := rec.opsOf(histKey(route, ep.n))
	row := j.row(string(hf.kind), "read", ep.fault)
	row.episodes++
	row.ops += len(ops)
	var writes, reads []*history.Op
	for _, o := range ops {
		if o.Client == 0 {
			writes = append(writes, o)
		} else {
			reads = append(reads, o)
		}
	}
	worst, over := history.Staleness(writes, reads, (histMaxLag + histStaleSlack).Nanoseconds())
	// After an unplanned or plain failover the writer's lost writes make
	// staleness undefined: those episodes are measured, not judged.
	judged := !ep.fault.masterFault() && ep.fault != histPlanned
	if judged {
		row.staleNs = max(row.staleNs, worst)
		row.staleOver += len(over)
	}
	if judged && len(over) > 0 {
		// The offending key's operations around the stalest read.
		worstRead := over[0]
		for _, o := range over {
			if o.Call > worstRead.Call {
				worstRead = o
			}
		}
		var keyOps []*history.Op
		for _, o := range ops {
			if o.Key == worstRead.Key && o.Call > worstRead.Call-(histMaxLag+histStaleSlack+time.Second).Nanoseconds() && o.Call <= worstRead.Call {
				keyOps = append(keyOps, o)
			}
		}
		vs := history.Failed(history.Linearizable(keyOps, windows, j.dir, fmt.Sprintf("%s-ep%d-%s-stale", route, ep.n, ep.fault)))
		for _, v := range vs {
			j.visuals = append(j.visuals, v.Visualization)
		}
		j.fail(hf, claimStale, fmt.Sprintf("episode %d (%s): %d reads staler than %v, the worst %.2f s (%s)", ep.n, ep.fault, len(over),
			histMaxLag+histStaleSlack, float64(worst)/1e9, histVisuals(vs)))
	}
}

func histVisuals(vs []history.Verdict) string {
	var p []string
	for _, v := range vs {
		if v.Visualization != "" {
			p = append(p, v.Visualization)
		}
	}
	if len(p) == 0 {
		return "no visualization"
	}
	if len(p) > 2 {
		p = append(p[:2], fmt.Sprintf("%d more", len(p)-2))
	}
	return strings.Join(p, ", ")
}

func histLostExample(ls []history.Lost, c history.LossClass) string {
	for _, l := range ls {
		if l.Class == c {
			return fmt.Sprintf("%s %s at %.3f s", l.Op.Key, l.Op, float64(l.Op.Return)/1e9)
		}
	}
	return ""
}

// report writes the summary (summary.md in the artifacts directory) and
// logs it.
func (j *histJudgement) report(t *testing.T, fleets []*histFleet) {
	var keys []string
	for k := range j.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "histories, seed %d\n\n", j.seed)
	b.WriteString("| daemon | route | fault | episodes | operations | keys linearizable | fence-window writes excused | lost: replication / returning / Sentinel-caused | worst stale read (s) |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		r := j.rows[k]
		stale := ""
		if r.route == "read" {
			stale = fmt.Sprintf("%.2f (%d over %v)", float64(r.staleNs)/1e9, r.staleOver, histMaxLag+histStaleSlack)
		}
		lin := fmt.Sprintf("%d of %d", r.keys-r.bad, r.keys)
		if r.route == "read" {
			lin = "(staleness)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %d | %d / %d / %d | %s |\n", r.fleet, r.route, r.fault, r.episodes, r.ops, lin, r.excused,
			r.lost[0], r.lost[1], r.lost[2], stale)
	}
	b.WriteString("\n")
	if len(j.failures) == 0 {
		b.WriteString("go-sentinel: every claim held\n")
	}
	for _, f := range j.failures {
		fmt.Fprintf(&b, "BROKEN %s\n", f)
	}
	os.WriteFile(filepath.Join(j.dir, "summary.md"), []byte(b.String()), 0o644)
	t.Logf("summary (%s):\n%s", filepath.Join(j.dir, "summary.md"), b.String())
}
