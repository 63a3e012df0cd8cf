package config

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// queuedLine is a `sentinel ...` line kept until the whole input was read.
type queuedLine struct {
	file string
	num  int
	text string
	// argv holds the words after `sentinel`; argv[0] is the sub-directive.
	argv []string
	// state: the line comes from the state-config-file.
	state bool
}

// Messages of the sentinel directives, exactly as Redis 7.0.15 words them.
const (
	msgQuorum             = "Quorum must be 1 or greater."
	msgNoSuchMaster       = "No such master with specified name."
	msgZeroTime           = "negative or zero time parameter."
	msgNegativeTime       = "negative time parameter."
	msgNotificationScript = "Notification script seems non existing or non executable."
	msgReconfigScript     = "Client reconfiguration script seems non existing or non executable."
	msgMalformedID        = "Malformed Sentinel id in myid option."
	msgUnrecognized       = "Unrecognized sentinel configuration statement."
	msgDuplicateMaster    = "Duplicate master name."
	msgDuplicateReplica   = "Duplicate hostname and port for replica."
	msgDuplicateSentinel  = "Duplicate runid for sentinel."
	msgCantResolve        = "Can't resolve instance hostname."
	msgInvalidPort        = "Invalid port number."
	msgSameRename         = "Same command renamed multiple times with rename-command."
)

// Messages of go-sentinel's own sentinel directives.
const (
	msgSameProxy      = "Duplicate address for proxy."
	msgYesNo          = "Please specify yes or no."
	msgVoters         = "Voters must be 0 or greater."
	msgCommandSurface = "Please specify " + commands.Surface70Name + " or " + commands.Surface72Name + " for the command-surface option."
)

// optionCommandSurface is the name of `sentinel command-surface`.
const optionCommandSurface = "command-surface"

// runIDSize is the length of a Sentinel id (CONFIG_RUN_ID_SIZE).
const runIDSize = 40

// sentinelLoader applies queued sentinel lines to a Persisted value,
// tracking the duplicate checks Redis' dictionaries perform.
type sentinelLoader struct {
	p       settings.Persisted
	masters map[string]*masterState
	// cwd is the directory script paths are relative to.
	cwd string
	// stateFile is the absolute path of `sentinel state-config-file`, ""
	// without one.
	stateFile string
	// inState: the line being applied comes from the state file, whose
	// forced forms of "no script" and "not renamed" are accepted.
	inState bool
	// surface is `sentinel command-surface`'s, Surface70 without one.
	surface commands.Surface
}

// masterState is one master being built plus its duplicate-detection keys.
type masterState struct {
	spec      settings.MasterSpec
	replicas  map[string]bool
	sentinels map[string]bool
	renames   map[string]bool
}

func newSentinelLoader(cwd string) *sentinelLoader {
	return &sentinelLoader{
		p:       settings.Persisted{DenyScriptsReconfig: true},
		masters: map[string]*masterState{},
		cwd:     cwd,
	}
}

// load applies the queue in Redis' three passes and returns the first
// error, reported at the line that caused it.
func (l *sentinelLoader) load(queue []queuedLine) error {
	for pass := 0; pass < 3; pass++ {
		for _, q := range queue {
			if sentinelPass(q.argv[0]) != pass {
				continue
			}
			l.inState = q.state
			if msg := l.handle(q.argv); msg != "" {
				return &Error{File: q.file, Line: q.num, Text: q.text, Msg: msg}
			}
		}
	}
	return nil
}

// persisted returns the result with masters sorted by name.
func (l *sentinelLoader) persisted() settings.Persisted {
	p := l.p
	p.Masters = make([]settings.MasterSpec, 0, len(l.masters))
	for _, m := range l.masters {
		p.Masters = append(p.Masters, m.spec)
	}
	slices.SortFunc(p.Masters, func(a, b settings.MasterSpec) int { return strings.Compare(a.Name, b.Name) })
	return p
}

// addr validates a host and port the way createSentinelAddr does.
func (l *sentinelLoader) addr(host, port string) (settings.Addr, string) {
	n := atoi(port)
	if n < 0 || n > 65535 {
		return settings.Addr{}, msgInvalidPort
	}
	h, ok := canonicalHost(host, l.p.ResolveHostnames)
	if !ok {
		return settings.Addr{}, msgCantResolve
	}
	return settings.Addr{Host: h, Port: n}, ""
}

func millis(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// path makes path absolute against the loader's directory.
func (l *sentinelLoader) path(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(l.cwd, path)
}

// executable reports whether path (relative to the loader's directory) is
// executable by this process, as access(X_OK) does.
func (l *sentinelLoader) executable(path string) bool {
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.cwd, path)
	}
	return syscall.Access(path, 1 /* X_OK */) == nil
}

// handle applies one sentinel directive (argv without the `sentinel`
// word) and returns Redis' message on error.
func (l *sentinelLoader) handle(argv []string) string {
	d := lookupSentinelDirective(strings.ToLower(argv[0]))
	if d == nil || !slices.Contains(d.argc, len(argv)) {
		return msgUnrecognized
	}
	return d.load(l, argv)
}
