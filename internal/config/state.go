package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// This file holds `sentinel state-config-file <path>` (issue 21; the
// semantics of valkey pull request 4085 and redis 15422, where sound):
// with it the config file is only read, never rewritten (not at a
// change of state, FLUSHCONFIG, SENTINEL RESET or SIGTERM: it may be
// read-only), and what the Sentinel learns or is told at runtime goes to
// the state file, written atomically (atomicfile: a temporary file,
// fsync, rename, fsync of the directory) and read over the config file
// at start.
//
// The rule of the merge, at start:
//   - The config file is read first, then the state file when it exists
//     (a missing one is a first start: the config file alone, as Redis
//     reads it).
//   - The state file go-sentinel writes holds every global sentinel
//     setting (myid, epochs, announce-*, resolve-hostnames,
//     sentinel-user/pass, ...), and always a myid line: when it has one,
//     none of the config file's global sentinel lines is applied, so a
//     setting CONFIG SET cleared back to its default (not written) does
//     not come back from the config file (valkey reads the state over
//     the config line by line, where it would). A state file without a
//     myid line (empty, made by hand or by a volume's init) is read over
//     the config file's global lines, which are applied first: a myid
//     pinned in the config file is not lost to it.
//   - A master the state file holds is taken from it whole (its address
//     after failovers, its settings after SENTINEL SET, its known
//     replicas and Sentinels, its epochs); the config file's lines for it
//     are not applied.
//   - A master the config file declares and the state file neither holds
//     nor lists as removed is monitored as the config file says: one
//     configuration management added after the state was written.
//   - A master the config file declares and SENTINEL REMOVE removed at
//     runtime stays removed: the state file lists it as
//     `sentinel removed-master <name>` (a line only a state file may
//     hold), and its config lines are not applied. SENTINEL MONITOR of
//     the name monitors it again (and drops the line). The state file
//     lists exactly the config file's masters not monitored, so the list
//     never outgrows the config file.
//   - The state file's loglevel (SENTINEL CONFIG SET loglevel) wins over
//     the config file's.
//
// So the config file seeds: configuration management may add masters to
// it, and what the Sentinel changed at runtime (failovers, SENTINEL
// MONITOR/REMOVE/SET/CONFIG SET) is never lost to it. Taking a master or
// a setting away from the config file changes nothing once the state
// holds it: SENTINEL REMOVE and SENTINEL SET are the way. Users and the
// other server directives are not state: they come from the config file
// (ACL SETUSER without an aclfile lasts until the restart; an aclfile
// and ACL SAVE keep it).

// The messages of the state file's errors.
const (
	msgStateFileEmpty = "sentinel state-config-file needs a path."
	msgStateLine      = "Only sentinel lines and loglevel belong in a state-config-file (go-sentinel writes it; the config file holds the rest)."
	msgRemovedArity   = "sentinel removed-master takes one master name."
	msgStateIsConfig  = "sentinel state-config-file must name another file than the config file (go-sentinel writes it)."
)

// stateRemovedMaster is the state file's line for a master the config
// file declares and SENTINEL REMOVE removed (see the rule above).
const stateRemovedMaster = "removed-master"

// stateHeader opens every state file.
const stateHeader = "# go-sentinel state (sentinel state-config-file): written by go-sentinel\n" +
	"# at every change of its state; read over the config file at start. Do\n" +
	"# not edit it while go-sentinel runs.\n"

// StateFileError is a state file that exists but cannot be read.
type StateFileError struct {
	Path string
	Err  error
}

func (e *StateFileError) Error() string {
	return fmt.Sprintf("can't read the state-config-file '%s': %s", e.Path, strerror(e.Err))
}

func (e *StateFileError) Unwrap() error { return e.Err }

// stateFilePath returns the path of the last `sentinel state-config-file`
// line of queue, absolute against cwd, and that line; "" for none.
func stateFilePath(queue []queuedLine, cwd string) (string, queuedLine) {
	path, line := "", queuedLine{}
	for _, q := range queue {
		if len(q.argv) == 2 && strings.EqualFold(q.argv[0], "state-config-file") && q.argv[1] != "" {
			path, line = (&sentinelLoader{cwd: cwd}).path(q.argv[1]), q
		}
	}
	return path, line
}

// sameFile reports whether the state file path is the config file (by
// name, or as the same file on disk).
func sameFile(state, config, cwd string) bool {
	if !filepath.IsAbs(config) {
		config = filepath.Join(cwd, config)
	}
	if filepath.Clean(config) == state {
		return true
	}
	a, errA := os.Stat(state)
	b, errB := os.Stat(config)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// readState reads the state file at path over the lines the config file
// queued (see the rule above). A missing file changes nothing.
func (p *parser) readState(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &StateFileError{Path: path, Err: err}
	}
	main := p.queue
	p.queue = nil
	p.state = true
	err = p.parseText(path, string(data), 0)
	p.state = false
	if err != nil {
		return stateError(err)
	}
	merged, err := mergeState(main, p.queue)
	if err != nil {
		return stateError(err)
	}
	p.queue = merged
	p.cfg.StateRead = true
	return nil
}

// removedMasters returns the names of c.ConfigMasters that c does not
// monitor: those the state file lists as removed.
func removedMasters(c *Config) []string {
	monitored := make(map[string]bool, len(c.Sentinel.Masters))
	for _, m := range c.Sentinel.Masters {
		monitored[m.Name] = true
	}
	var out []string
	for _, name := range c.ConfigMasters {
		if !monitored[name] && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// formatState writes, for Format (`go-sentinel check`), the
// state-config-file line and the config file's masters the state file
// lists as removed.
func formatState(b *strings.Builder, c *Config) {
	if c.StateFile == "" {
		return
	}
	status := "not written yet: the config file alone"
	if c.StateRead {
		status = "read over the config file: what follows is the merge"
	}
	fmt.Fprintf(b, "%-26s %s (%s)\n", "state-config-file", splitargs.Quote(c.StateFile), status)
	for _, name := range removedMasters(c) {
		fmt.Fprintf(b, "%-26s %s (SENTINEL REMOVE: the config file declares it, it is not monitored)\n", stateRemovedMaster, splitargs.Quote(name))
	}
}

// monitorNames returns the names of the masters queue declares (its
// `sentinel monitor` lines), in order.
func monitorNames(queue []queuedLine) []string {
	var names []string
	for _, q := range queue {
		if len(q.argv) > 1 && strings.EqualFold(q.argv[0], "monitor") {
			names = append(names, q.argv[1])
		}
	}
	return names
}

// stateError marks an *Error of the state file's lines as such.
func stateError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		e.State = true
	}
	return err
}

// stateLineMessage returns msgStateLine for a line that does not belong
// in a state file, "" for one that does.
func stateLineMessage(argv []string) string {
	switch {
	case argv[0] == "loglevel":
		return ""
	case argv[0] != "sentinel", len(argv) > 1 && strings.EqualFold(argv[1], "state-config-file"):
		return msgStateLine
	}
	return ""
}

// mergeState returns the sentinel lines to apply: the config file's
// (main) without its global settings (when the state file has a myid
// line) and without the lines of the
// masters the state file holds or lists as removed, then the state
// file's (without its removed-master lines, which only drop lines of
// main).
func mergeState(main, state []queuedLine) ([]queuedLine, error) {
	held := map[string]bool{}
	for _, name := range monitorNames(state) {
		held[name] = true
	}
	written := false // the state file has a myid line: it holds every global
	kept := make([]queuedLine, 0, len(state))
	for _, q := range state {
		written = written || strings.EqualFold(q.argv[0], "myid")
		if !strings.EqualFold(q.argv[0], stateRemovedMaster) {
			kept = append(kept, q)
			continue
		}
		if len(q.argv) != 2 {
			return nil, &Error{File: q.file, Line: q.num, Text: q.text, Msg: msgRemovedArity}
		}
		held[q.argv[1]] = true
	}
	out := make([]queuedLine, 0, len(main)+len(kept))
	for _, q := range main {
		d := lookupSentinelDirective(strings.ToLower(q.argv[0]))
		switch {
		case d == nil, d.keep:
			// Unknown lines stay, so that their error is reported.
		case d.pass == 0 && written:
			continue
		case d.pass == 0:
			// Applied before the state file's, which come later.
		case len(q.argv) > 1 && held[q.argv[1]]:
			continue
		}
		out = append(out, q)
	}
	return append(out, kept...), nil
}

// StateBytes returns the content of a state file holding p and the
// log level: the sentinel lines the rewrite writes, every one of them
// (there is no old file to keep lines of), a loglevel line, and a
// removed-master line for each name of seeds (the masters the config
// file declares, Config.ConfigMasters) that p does not monitor.
func StateBytes(loglevel string, p monitor.Persisted, seeds []string, opts RewriteOptions) []byte {
	st := readRewriteState(nil, nil)
	st.needsSignature = false
	st.sentinel(p, opts)
	st.rewriteLine("loglevel", "loglevel "+loglevel, true)
	st.removeOrphaned()
	out := append([]byte(stateHeader), st.content()...)
	monitored := make(map[string]bool, len(p.Masters))
	for _, m := range p.Masters {
		monitored[m.Name] = true
	}
	written := map[string]bool{}
	for _, name := range seeds {
		if monitored[name] || written[name] {
			continue
		}
		written[name] = true
		out = append(out, "sentinel "+stateRemovedMaster+" "+quoteWords([]string{name})+"\n"...)
	}
	return out
}

// MergedBytes returns c's config file with the state folded in, as the
// rewrite of a Sentinel without state-config-file would write it
// (RewriteBytes of the merged c), minus the state-config-file line: a file
// redis-sentinel reads, for a rollback (`go-sentinel check
// --print-merged`). `dir` is written as c's working directory (its `dir`
// directive, else the caller's).
func MergedBytes(c *Config) ([]byte, error) {
	old, err := os.ReadFile(c.File)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", c.File, err)
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(old), "\n") {
		argv, err := splitargs.Split(strings.Trim(line, " \t\r\n"))
		if err == nil && len(argv) > 1 && strings.EqualFold(argv[0], "sentinel") && strings.EqualFold(argv[1], "state-config-file") {
			continue
		}
		b.WriteString(line)
	}
	return RewriteBytes([]byte(b.String()), c.Server, c.Sentinel, RewriteOptions{Cwd: c.WorkDir}), nil
}
