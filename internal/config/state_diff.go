package config

import (
	"slices"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// This file holds the keys of the state file's delta over the config file
// (the rule is in state.go): which lines belong to which setting, the
// lines of a Persisted in their forced form, and the diff StateBytes
// writes.

// StateBase is what the config file alone yields at start: the base the
// state file is written as a delta over.
type StateBase struct {
	// Loglevel is the config file's log level.
	Loglevel string
	// Sentinel is the state the config file's sentinel lines load to.
	Sentinel settings.Persisted
	// Masters are the names of the masters the config file declares
	// (Config.ConfigMasters).
	Masters []string
}

// stateKey names one setting: a global sentinel directive (master ""), a
// (master, directive) pair, or loglevel. The lists (known-replica,
// known-sentinel, rename-command, proxy) are one key each.
type stateKey struct {
	name, master string
}

// loglevelKey is the key of the loglevel line.
var loglevelKey = stateKey{name: "loglevel"}

// carriedLists are the per-master lists that cannot be written empty: a
// state file holding a master's monitor line holds them too (an absent
// one is empty), and the config file's lines of them are not applied.
var carriedLists = map[string]bool{
	"known-replica":              true,
	"known-sentinel":             true,
	settings.OptionProxy:         true,
	settings.OptionProxyReplicas: true,
}

// lineKey returns the key of a queued sentinel line (argv without the
// `sentinel` word), false for a line of no key (an unknown directive, a
// per-master one without its master, state-config-file).
func lineKey(argv []string) (stateKey, bool) {
	d := lookupSentinelDirective(strings.ToLower(argv[0]))
	switch {
	case d == nil, d.keep:
		return stateKey{}, false
	case d.writeMaster != nil && len(argv) > 1:
		return stateKey{name: d.name, master: argv[1]}, true
	case d.write != nil:
		return stateKey{name: d.name}, true
	}
	return stateKey{}, false
}

// stateLine is one written line and its words.
type stateLine struct {
	text string
	argv []string
}

// keyedLines returns the lines of p and loglevel in their forced form
// (every setting written, at its default too), grouped by key, and the
// keys in the order written.
func keyedLines(p settings.Persisted, loglevel string, opts RewriteOptions) ([]stateKey, map[stateKey][]stateLine) {
	st := readRewriteState(nil, nil)
	st.needsSignature = false
	opts.force = true
	st.sentinel(p, opts)
	var order []stateKey
	lines := map[stateKey][]stateLine{}
	add := func(k stateKey, l stateLine) {
		if _, seen := lines[k]; !seen {
			order = append(order, k)
		}
		lines[k] = append(lines[k], l)
	}
	for _, text := range strings.Split(string(st.content()), "\n") {
		argv, err := splitargs.Split(text)
		if err != nil || len(argv) < 2 || argv[0] != "sentinel" {
			continue
		}
		if k, ok := lineKey(argv[1:]); ok {
			add(k, stateLine{text: text, argv: argv[1:]})
		}
	}
	if loglevel != "" {
		add(loglevelKey, stateLine{text: "loglevel " + loglevel, argv: []string{"loglevel", loglevel}})
	}
	return order, lines
}

// sameLines reports whether two keys' lines are the same, in any order.
func sameLines(a, b []stateLine) bool {
	if len(a) != len(b) {
		return false
	}
	texts := func(ls []stateLine) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.text
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(texts(a), texts(b))
}

// stateDiff returns the lines of the state file for p and loglevel over
// base: the current lines of every key whose lines differ from the
// base's; for a master the base lacks, or whose monitor line changed, or
// one of whose carried lists the runtime emptied while the base's is not
// empty, its monitor line and all its carried lists; for a rename-command
// list emptied at runtime, a "not renamed" line (`rename-command m C C`)
// for each command the base renames.
func stateDiff(loglevel string, p settings.Persisted, base StateBase, opts RewriteOptions) []string {
	order, cur := keyedLines(p, loglevel, opts)
	_, old := keyedLines(base.Sentinel, base.Loglevel, opts)
	carry := map[string]bool{}
	for _, m := range p.Masters {
		mon := stateKey{name: "monitor", master: m.Name}
		c := !sameLines(cur[mon], old[mon])
		for name := range carriedLists {
			k := stateKey{name: name, master: m.Name}
			c = c || (len(cur[k]) == 0 && len(old[k]) > 0)
		}
		carry[m.Name] = c
	}
	var out []string
	for _, k := range order {
		if sameLines(cur[k], old[k]) && !(carry[k.master] && (k.name == "monitor" || carriedLists[k.name])) {
			continue
		}
		for _, l := range cur[k] {
			out = append(out, l.text)
		}
	}
	for _, m := range p.Masters {
		k := stateKey{name: settings.OptionRenameCommand, master: m.Name}
		if len(cur[k]) > 0 {
			continue
		}
		for _, l := range old[k] {
			out = append(out, "sentinel "+quoteWords([]string{settings.OptionRenameCommand, m.Name, l.argv[2], l.argv[2]}))
		}
	}
	return out
}

// mergeState returns the sentinel lines to apply (the rule in state.go):
// the config file's (main), without the lines of the keys the state file
// holds, of the masters it lists as removed, and of the carried lists of
// the masters whose monitor line it holds, that monitor line standing in
// place of the config file's; then the state file's other lines (without
// its removed-master lines, and without the lines of a master neither
// file declares: one taken out of the config file).
func mergeState(main, state []queuedLine) ([]queuedLine, error) {
	held := map[stateKey]bool{}
	monitors := map[string]queuedLine{}
	removed := map[string]bool{}
	kept := make([]queuedLine, 0, len(state))
	for _, q := range state {
		if strings.EqualFold(q.argv[0], stateRemovedMaster) {
			if len(q.argv) != 2 {
				return nil, &Error{File: q.file, Line: q.num, Text: q.text, Msg: msgRemovedArity}
			}
			removed[q.argv[1]] = true
			continue
		}
		if k, ok := lineKey(q.argv); ok {
			held[k] = true
			if k.name == "monitor" {
				monitors[k.master] = q
			}
		}
		kept = append(kept, q)
	}
	placed := map[string]bool{}
	out := make([]queuedLine, 0, len(main)+len(kept))
	for _, q := range main {
		k, ok := lineKey(q.argv)
		switch {
		case !ok:
			// Unknown lines stay, so that their error is reported.
		case k.master != "" && removed[k.master]:
			continue
		case k.name == "monitor" && !placed[k.master]:
			if sq, in := monitors[k.master]; in {
				out = append(out, sq)
				placed[k.master] = true
				continue
			}
		case k.master != "" && carriedLists[k.name] && monitors[k.master].argv != nil:
			continue
		case held[k]:
			continue
		}
		out = append(out, q)
	}
	declared := map[string]bool{}
	for _, name := range append(monitorNames(out), monitorNames(kept)...) {
		declared[name] = true
	}
	for _, q := range kept {
		k, ok := lineKey(q.argv)
		if ok && k.name == "monitor" && placed[k.master] {
			continue
		}
		if ok && k.master != "" && !declared[k.master] {
			// A master configuration management took out of the config
			// file, whose monitor line the state file does not hold: it
			// goes with the config file, its learned lines with it.
			continue
		}
		out = append(out, q)
	}
	return out, nil
}
