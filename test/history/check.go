package history

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Window is a stretch of the history to mark in a visualization (a
// fault in force) or to excuse (a fence window): Start and End are on
// the recorder's clock.
type Window struct {
	Label      string
	Start, End int64
}

// Verdict is porcupine's judgement of one key's operations.
type Verdict struct {
	Key    string
	Model  Model
	Ops    int
	Result porcupine.CheckResult
	// Visualization is the HTML file written for a key that is not
	// linearizable ("" when none was written).
	Visualization string
}

// CheckTimeout bounds porcupine's search per key: a history it cannot
// decide in that time is reported Unknown, which fails the check too.
var CheckTimeout = 20 * time.Second

// Linearizable checks every key of ops on its own (a register, counter
// or list, by the kind of its operations), with the unknown reads left
// out and the unknown writes pending for ever. For a key that is not
// linearizable, or that porcupine could not decide, it writes porcupine's
// visualization of that key's history into dir (when dir is not ""),
// with the windows drawn over it, and returns the verdicts of every key,
// the failed ones first.
func Linearizable(ops []*Op, windows []Window, dir, name string) []Verdict {
	byKey := map[string][]porcupine.Operation{}
	models := map[string]Model{}
	for _, o := range ops {
		if o.Unknown && !o.Write() {
			continue
		}
		ret := o.Return
		if o.Unknown {
			ret = Never
		}
		byKey[o.Key] = append(byKey[o.Key], porcupine.Operation{ClientId: o.Client, Input: o, Output: o, Call: o.Call, Return: ret})
		models[o.Key] = ModelOf(o.Kind)
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Verdict
	for _, k := range keys {
		h := byKey[k]
		m := porcupineModel(models[k])
		res, info := porcupine.CheckOperationsVerbose(m, h, CheckTimeout)
		v := Verdict{Key: k, Model: models[k], Ops: len(h), Result: res}
		if res != porcupine.Ok && dir != "" {
			info.AddAnnotations(annotations(windows, h))
			path := filepath.Join(dir, fmt.Sprintf("%s-%s.html", name, fileSafe(k)))
			if err := porcupine.VisualizePath(m, info, path); err == nil {
				v.Visualization = path
			}
			writeText(strings.TrimSuffix(path, ".html")+".txt", h)
		}
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Result != porcupine.Ok && out[j].Result == porcupine.Ok
	})
	return out
}

// Failed is the verdicts that are not Ok.
func Failed(vs []Verdict) []Verdict {
	var bad []Verdict
	for _, v := range vs {
		if v.Result != porcupine.Ok {
			bad = append(bad, v)
		}
	}
	return bad
}

// annotations draws each window that overlaps the history as a band
// across it (ClientId -1: a row of its own, under the clients').
func annotations(ws []Window, h []porcupine.Operation) []porcupine.Annotation {
	if len(h) == 0 {
		return nil
	}
	first, last := h[0].Call, h[0].Call
	for _, o := range h {
		first = min(first, o.Call)
		if o.Return != Never {
			last = max(last, o.Return)
		}
	}
	var as []porcupine.Annotation
	for _, w := range ws {
		if w.End < first || w.Start > last {
			continue
		}
		as = append(as, porcupine.Annotation{ClientId: -1, Tag: "faults", Start: max(w.Start, first), End: min(w.End, last),
			Description: w.Label, Details: fmt.Sprintf("%s: %.3f s to %.3f s", w.Label, float64(w.Start)/1e9, float64(w.End)/1e9),
			BackgroundColor: "#f4c7c3"})
	}
	return as
}

// fileSafe turns a key into a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == ' ' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}

// Excuse returns ops with every write called inside one of the windows
// made unknown (it may or may not have taken effect: the fence window a
// claim allows) and every read called inside them left out, and how many
// acknowledged writes it excused.
func Excuse(ops []*Op, ws []Window) (out []*Op, excused int) {
	in := func(t int64) bool {
		for _, w := range ws {
			if t >= w.Start && t <= w.End {
				return true
			}
		}
		return false
	}
	for _, o := range ops {
		if !in(o.Call) {
			out = append(out, o)
			continue
		}
		if !o.Write() {
			continue
		}
		c := *o
		if !c.Unknown {
			excused++
		}
		c.Unknown, c.Return = true, Never
		out = append(out, &c)
	}
	return out, excused
}

// writeText writes a key's operations as text, in the order of their
// calls, beside its visualization: one line each, with its client, call
// and return times in seconds.
func writeText(path string, h []porcupine.Operation) {
	sorted := append([]porcupine.Operation(nil), h...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Call < sorted[j].Call })
	var b strings.Builder
	for _, o := range sorted {
		ret := "never"
		if o.Return != Never {
			ret = fmt.Sprintf("%.6f", float64(o.Return)/1e9)
		}
		fmt.Fprintf(&b, "client %d  %.6f … %s  %s\n", o.ClientId, float64(o.Call)/1e9, ret, o.Input.(*Op))
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
}
