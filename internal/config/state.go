package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// This file holds `sentinel state-config-file <path>` (issue 21; the
// semantics of valkey pull request 4085 and redis 15422, where sound):
// with it the config file is only read, never rewritten, and what the
// Sentinel learns or is told at runtime goes to the state file, which is
// read over the config file at start.
//
// The rule of the merge, at start:
//   - The config file is read first, then the state file when it exists
//     (a missing one is a first start).
//   - The state file holds every global sentinel setting (myid, epochs,
//     announce-*, resolve-hostnames, ...): when it exists the config
//     file's global sentinel lines are not applied.
//   - A master the state file holds is taken from it whole (its address
//     after failovers, its settings after SENTINEL SET, its known
//     replicas and Sentinels); the config file's lines for it are not
//     applied. A master only the config file declares is monitored as
//     the config file says (one added there after the state was written).
//   - The state file's loglevel (SENTINEL CONFIG SET loglevel) wins over
//     the config file's.
//
// So the config file seeds: configuration management may add masters to
// it; what the Sentinel changed at runtime is never lost to it.

// The messages of the state file's errors.
const (
	msgStateFileEmpty = "sentinel state-config-file needs a path."
	msgStateLine      = "Only sentinel lines and loglevel belong in a state-config-file (go-sentinel writes it; the config file holds the rest)."
)

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
// line of queue, absolute against cwd; "" for none.
func stateFilePath(queue []queuedLine, cwd string) string {
	path := ""
	for _, q := range queue {
		if len(q.argv) == 2 && strings.EqualFold(q.argv[0], "state-config-file") && q.argv[1] != "" {
			path = (&sentinelLoader{cwd: cwd}).path(q.argv[1])
		}
	}
	return path
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
	p.queue = mergeState(main, p.queue)
	return nil
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
// (main) without its global settings and without the lines of the
// masters the state file holds, then the state file's.
func mergeState(main, state []queuedLine) []queuedLine {
	held := map[string]bool{}
	for _, q := range state {
		if len(q.argv) > 1 && strings.EqualFold(q.argv[0], "monitor") {
			held[q.argv[1]] = true
		}
	}
	out := make([]queuedLine, 0, len(main)+len(state))
	for _, q := range main {
		d := lookupSentinelDirective(strings.ToLower(q.argv[0]))
		switch {
		case d == nil, d.keep:
			// Unknown lines stay, so that their error is reported.
		case d.pass == 0:
			continue
		case len(q.argv) > 1 && held[q.argv[1]]:
			continue
		}
		out = append(out, q)
	}
	return append(out, state...)
}

// StateBytes returns the content of a state file holding p and the
// log level: the sentinel lines the rewrite writes, every one of them
// (there is no old file to keep lines of), and a loglevel line.
func StateBytes(loglevel string, p monitor.Persisted, opts RewriteOptions) []byte {
	st := readRewriteState(nil, nil)
	st.needsSignature = false
	st.sentinel(p, opts)
	st.rewriteLine("loglevel", "loglevel "+loglevel, true)
	st.removeOrphaned()
	return append([]byte(stateHeader), st.content()...)
}
