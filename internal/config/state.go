package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
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
// The rule: the state file is a delta over the config file. It holds
// only what the runtime learned or was told, relative to the config file,
// so that configuration management keeps owning the config file.
//   - A key is a global directive (myid, current-epoch, announce-ip,
//     resolve-hostnames, ..., and loglevel) or a (master, directive)
//     pair (monitor: address and quorum; down-after-milliseconds;
//     auth-pass; config-epoch; ...); each list (known-replica,
//     known-sentinel, rename-command, proxy) is one key.
//   - Writing (StateBytes, state_diff.go): the node keeps what the config
//     file alone loaded to at start (the base, Config.StateBase). At each
//     write, the lines of every key are made in a forced form (written
//     even at the default: `sentinel auth-pass m ""`,
//     `sentinel down-after-milliseconds m 30000`) for the current state
//     and for the base, and the current lines of the keys whose lines
//     differ are written. Learned facts (the myid made at the first
//     start, epochs, known replicas and Sentinels, the address after a
//     failover) differ from the base and land in the state file; a
//     master added at runtime (SENTINEL MONITOR) has all its lines there;
//     a config-file master SENTINEL REMOVE removed is listed as
//     `sentinel removed-master <name>` (a line only a state file may
//     hold; SENTINEL MONITOR of the name drops it, and the list never
//     outgrows the config file).
//   - Forms without a loadable default: an empty myid is never written
//     (the runtime always has one). A script cleared by SENTINEL SET is
//     written `sentinel notification-script m ""`, a rename undone as a
//     rename to itself (`sentinel rename-command m CONFIG CONFIG`), both
//     what SENTINEL SET takes, and read so only from a state file (a
//     config file refuses the first as Redis does). known-replica,
//     known-sentinel and proxy have no line for an empty list: they are
//     carried by the master's monitor line — a state file holding a
//     master's monitor line holds those three lists too (absent: empty),
//     so the writer writes the monitor line with them whenever the
//     monitor line changed (a failover), the master is new, or one of the
//     three was emptied while the config file fills it (SENTINEL RESET).
//   - Loading: the config file's sentinel lines are applied, except those
//     of the keys the state file holds, whose state lines replace them;
//     a state monitor line for a master the config file declares stands
//     in the place of the config file's, and then the config file's
//     known-replica, known-sentinel and proxy lines of that master are
//     not applied; the lines of a removed master are not applied; the
//     state's other lines come after, but for a master neither file's
//     monitor line declares (configuration management took it out of the
//     config file): that master is gone, its learned lines with it. The
//     state's loglevel, when present, wins over the config file's.
//
// So an edit of the config file (a changed down-after-milliseconds, an
// added forget-replica-after, a new announce-ip, a new master) takes
// effect at the next start for every key the runtime never set or
// learned; a key the runtime set (SENTINEL SET/CONFIG SET) keeps the
// runtime's value over a later config edit of it, as it was told after
// the config file was read — until it is set back to the config file's
// value, when it leaves the state file at the next write. A master's
// address and quorum after a failover, and its carried lists, come from
// the state file. A state file written by earlier versions (a full dump)
// still loads: it wins for every key it holds, and the config file's
// keys it lacks apply. Users and the other server directives are not
// state: they come from the config file (ACL SETUSER without an aclfile
// lasts until the restart; an aclfile and ACL SAVE keep it).

// The messages of the state file's errors.
const (
	msgStateFileEmpty = "sentinel state-config-file needs a path."
	msgStateLine      = "Only sentinel lines and loglevel belong in a state-config-file (go-sentinel writes it; the config file holds the rest)."
	msgRemovedArity   = "sentinel removed-master takes one master name."
	msgStateIsConfig  = "sentinel state-config-file must differ from the main config file (go-sentinel writes the state file and only reads the config file)."
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

// StateBytes returns the content of a state file holding p and the log
// level as a delta over base, what the config file alone yields (see the
// rule above and stateDiff): the lines of the settings that differ from
// the config file's, and a removed-master line for each master of the
// config file (base.Masters) that p does not monitor. A zero base writes
// every setting.
func StateBytes(loglevel string, p settings.Persisted, base StateBase, opts RewriteOptions) []byte {
	out := []byte(stateHeader)
	for _, l := range stateDiff(loglevel, p, base, opts) {
		out = append(out, l+"\n"...)
	}
	monitored := make(map[string]bool, len(p.Masters))
	for _, m := range p.Masters {
		monitored[m.Name] = true
	}
	written := map[string]bool{}
	for _, name := range base.Masters {
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
