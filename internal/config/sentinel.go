package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// queuedLine is a `sentinel ...` line kept until the whole input was read.
type queuedLine struct {
	file string
	num  int
	text string
	// argv holds the words after `sentinel`; argv[0] is the sub-directive.
	argv []string
}

// preMonitorDirectives are applied in the first pass, before any monitor.
var preMonitorDirectives = []string{
	"announce-ip", "announce-port", "deny-scripts-reconfig", "sentinel-user",
	"sentinel-pass", "current-epoch", "myid", "resolve-hostnames",
	"announce-hostnames",
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

// runIDSize is the length of a Sentinel id (CONFIG_RUN_ID_SIZE).
const runIDSize = 40

// sentinelLoader applies queued sentinel lines to a Persisted value,
// tracking the duplicate checks Redis' dictionaries perform.
type sentinelLoader struct {
	p       monitor.Persisted
	masters map[string]*masterState
	// cwd is the directory script paths are relative to.
	cwd string
}

// masterState is one master being built plus its duplicate-detection keys.
type masterState struct {
	spec      monitor.MasterSpec
	replicas  map[string]bool
	sentinels map[string]bool
	renames   map[string]bool
}

func newSentinelLoader(cwd string) *sentinelLoader {
	return &sentinelLoader{
		p:       monitor.Persisted{DenyScriptsReconfig: true},
		masters: map[string]*masterState{},
		cwd:     cwd,
	}
}

// load applies the queue in Redis' three passes and returns the first
// error, reported at the line that caused it.
func (l *sentinelLoader) load(queue []queuedLine) error {
	passOf := func(q queuedLine) int {
		switch {
		case strings.EqualFold(q.argv[0], "monitor"):
			return 1
		case containsFold(preMonitorDirectives, q.argv[0]):
			return 0
		}
		return 2
	}
	for pass := 0; pass < 3; pass++ {
		for _, q := range queue {
			if passOf(q) != pass {
				continue
			}
			if msg := l.handle(q.argv); msg != "" {
				return &Error{File: q.file, Line: q.num, Text: q.text, Msg: msg}
			}
		}
	}
	return nil
}

// persisted returns the result with masters sorted by name.
func (l *sentinelLoader) persisted() monitor.Persisted {
	p := l.p
	p.Masters = make([]monitor.MasterSpec, 0, len(l.masters))
	for _, m := range l.masters {
		p.Masters = append(p.Masters, m.spec)
	}
	slices.SortFunc(p.Masters, func(a, b monitor.MasterSpec) int { return strings.Compare(a.Name, b.Name) })
	return p
}

// addr validates a host and port the way createSentinelAddr does.
func (l *sentinelLoader) addr(host, port string) (monitor.Addr, string) {
	n := atoi(port)
	if n < 0 || n > 65535 {
		return monitor.Addr{}, msgInvalidPort
	}
	h, ok := canonicalHost(host, l.p.ResolveHostnames)
	if !ok {
		return monitor.Addr{}, msgCantResolve
	}
	return monitor.Addr{Host: h, Port: n}, ""
}

// addrKey is the name Redis gives a replica: "ip:port" or "[ipv6]:port".
func addrKey(a monitor.Addr) string {
	if strings.Contains(a.Host, ":") {
		return fmt.Sprintf("[%s]:%d", a.Host, a.Port)
	}
	return fmt.Sprintf("%s:%d", a.Host, a.Port)
}

func millis(n int) time.Duration { return time.Duration(n) * time.Millisecond }

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
	argc := len(argv)
	kw := strings.ToLower(argv[0])
	var m *masterState
	if argc >= 3 {
		m = l.masters[argv[1]]
	}

	switch {
	case kw == "monitor" && argc == 5:
		quorum := atoi(argv[4])
		if quorum <= 0 {
			return msgQuorum
		}
		a, msg := l.addr(argv[2], argv[3])
		if msg != "" {
			return msg
		}
		if l.masters[argv[1]] != nil {
			return msgDuplicateMaster
		}
		l.masters[argv[1]] = &masterState{
			spec:      monitor.NewMasterSpec(argv[1], a, quorum),
			replicas:  map[string]bool{},
			sentinels: map[string]bool{},
			renames:   map[string]bool{},
		}
	case kw == "down-after-milliseconds" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		v := atoi(argv[2])
		m.spec.DownAfter = millis(v)
		if v <= 0 {
			return msgZeroTime
		}
	case kw == "failover-timeout" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		v := atoi(argv[2])
		m.spec.FailoverTimeout = millis(v)
		if v <= 0 {
			return msgZeroTime
		}
	case kw == "parallel-syncs" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		m.spec.ParallelSyncs = atoi(argv[2])
	case kw == "notification-script" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		if !l.executable(argv[2]) {
			return msgNotificationScript
		}
		m.spec.NotificationScript = argv[2]
	case kw == "client-reconfig-script" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		if !l.executable(argv[2]) {
			return msgReconfigScript
		}
		m.spec.ClientReconfigScript = argv[2]
	case kw == "auth-pass" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		m.spec.AuthPass = argv[2]
	case kw == "auth-user" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		m.spec.AuthUser = argv[2]
	case kw == "current-epoch" && argc == 2:
		l.p.CurrentEpoch = max(l.p.CurrentEpoch, strtoull10(argv[1]))
	case kw == "myid" && argc == 2:
		if len(argv[1]) != runIDSize {
			return msgMalformedID
		}
		l.p.MyID = argv[1]
	case kw == "config-epoch" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		m.spec.ConfigEpoch = strtoull10(argv[2])
		l.p.CurrentEpoch = max(l.p.CurrentEpoch, m.spec.ConfigEpoch)
	case kw == "leader-epoch" && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		m.spec.LeaderEpoch = strtoull10(argv[2])
	case (kw == "known-replica" || kw == "known-slave") && argc == 4:
		if m = l.masters[argv[1]]; m == nil {
			return msgNoSuchMaster
		}
		a, msg := l.addr(argv[2], argv[3])
		if msg != "" {
			return msg
		}
		if m.replicas[addrKey(a)] {
			return msgDuplicateReplica
		}
		m.replicas[addrKey(a)] = true
		m.spec.KnownReplicas = append(m.spec.KnownReplicas, a)
	case kw == "known-sentinel" && (argc == 4 || argc == 5):
		if argc == 4 {
			return "" // the old form without a run id is ignored
		}
		if m = l.masters[argv[1]]; m == nil {
			return msgNoSuchMaster
		}
		a, msg := l.addr(argv[2], argv[3])
		if msg != "" {
			return msg
		}
		if m.sentinels[argv[4]] {
			return msgDuplicateSentinel
		}
		m.sentinels[argv[4]] = true
		m.spec.KnownSentinels = append(m.spec.KnownSentinels, monitor.SentinelSpec{Addr: a, RunID: argv[4]})
	case kw == "rename-command" && argc == 4:
		if m = l.masters[argv[1]]; m == nil {
			return msgNoSuchMaster
		}
		key := strings.ToLower(argv[2])
		if m.renames[key] {
			return msgSameRename
		}
		m.renames[key] = true
		m.spec.RenameCommands = append(m.spec.RenameCommands, monitor.Rename{Command: argv[2], Renamed: argv[3]})
	case kw == "announce-ip" && argc == 2:
		if argv[1] != "" {
			l.p.AnnounceIP = argv[1]
		}
	case kw == "announce-port" && argc == 2:
		l.p.AnnouncePort = atoi(argv[1])
	case kw == "deny-scripts-reconfig" && argc == 2:
		v := yesNo(argv[1])
		if v < 0 {
			return "Please specify yes or no for the deny-scripts-reconfig options."
		}
		l.p.DenyScriptsReconfig = v == 1
	case kw == "sentinel-user" && argc == 2:
		if argv[1] != "" {
			l.p.SentinelUser = argv[1]
		}
	case kw == "sentinel-pass" && argc == 2:
		if argv[1] != "" {
			l.p.SentinelPass = argv[1]
		}
	case kw == "resolve-hostnames" && argc == 2:
		v := yesNo(argv[1])
		if v < 0 {
			return "Please specify yes or no for the resolve-hostnames option."
		}
		l.p.ResolveHostnames = v == 1
	case kw == "announce-hostnames" && argc == 2:
		v := yesNo(argv[1])
		if v < 0 {
			return "Please specify yes or no for the announce-hostnames option."
		}
		l.p.AnnounceHostnames = v == 1
	case (kw == "master-reboot-down-after-period" || kw == "primary-reboot-down-after-period") && argc == 3:
		if m == nil {
			return msgNoSuchMaster
		}
		v := atoi(argv[2])
		m.spec.RebootDownAfter = millis(v)
		if v < 0 {
			return msgNegativeTime
		}
	default:
		return msgUnrecognized
	}
	return ""
}
