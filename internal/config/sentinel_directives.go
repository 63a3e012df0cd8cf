package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// sentinelDirective is one `sentinel <name> ...` directive: how a line is
// applied when loading (Redis's sentinelHandleConfiguration) and how the
// rewrite writes it (rewriteConfigSentinelOption), side by side.
type sentinelDirective struct {
	name string
	// alias is another spelling of the name; the rewrite writes the name
	// over the lines spelled so unless keepAlias is set.
	alias     string
	keepAlias bool
	// argc lists the accepted word counts, the name included; any other
	// count is an unrecognized statement.
	argc []int
	// pass is when the lines are applied: 0 before the monitor lines, 1
	// the monitor lines, 2 after them (per-master lines may precede their
	// monitor line).
	pass int
	// load applies one line (argv[0] is the name) and returns Redis's
	// message on error.
	load func(l *sentinelLoader, argv []string) string
	// write writes a global directive; writeMaster a per-master one, once
	// for each master.
	write       func(w *sentinelWriter, p *settings.Persisted)
	writeMaster func(w *sentinelWriter, m *settings.MasterSpec)
	// keep: the rewrite leaves the directive's lines as they are (it
	// neither writes nor removes them).
	keep bool
}

// sentinelDirectives are the sentinel directives in the order the rewrite
// writes them (the per-master ones for each master in turn, where the first
// of them stands), which is Redis's.
var sentinelDirectives = []sentinelDirective{
	{
		name: "myid", argc: []int{2},
		load: func(l *sentinelLoader, argv []string) string {
			if len(argv[1]) != runIDSize {
				return msgMalformedID
			}
			l.p.MyID = argv[1]
			return ""
		},
		write: func(w *sentinelWriter, p *settings.Persisted) {
			// An empty myid has no loadable line, even forced.
			if p.MyID == "" {
				w.st.markProcessed("sentinel myid")
				return
			}
			w.line("myid", p.MyID)
		},
	},
	{
		name: "deny-scripts-reconfig", argc: []int{2},
		load: yesNoSetting("Please specify yes or no for the deny-scripts-reconfig options.",
			func(p *settings.Persisted) *bool { return &p.DenyScriptsReconfig }),
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.yesNo("deny-scripts-reconfig", p.DenyScriptsReconfig, true)
		},
	},
	{
		name: "resolve-hostnames", argc: []int{2},
		load: yesNoSetting("Please specify yes or no for the resolve-hostnames option.",
			func(p *settings.Persisted) *bool { return &p.ResolveHostnames }),
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.yesNo("resolve-hostnames", p.ResolveHostnames, false)
		},
	},
	{
		name: "announce-hostnames", argc: []int{2},
		load: yesNoSetting("Please specify yes or no for the announce-hostnames option.",
			func(p *settings.Persisted) *bool { return &p.AnnounceHostnames }),
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.yesNo("announce-hostnames", p.AnnounceHostnames, false)
		},
	},
	{
		name: "monitor", argc: []int{5}, pass: 1,
		load: func(l *sentinelLoader, argv []string) string {
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
				spec:      settings.NewMasterSpec(argv[1], a, quorum),
				replicas:  map[string]bool{},
				sentinels: map[string]bool{},
				renames:   map[string]bool{},
			}
			return ""
		},
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.line("monitor", m.Name, m.Addr.Host, strconv.Itoa(m.Addr.Port), strconv.Itoa(m.Quorum))
		},
	},
	{
		name: settings.OptionDownAfter, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionDownAfter, msgZeroTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionDownAfter, m, m.DownAfterMs != w.defDownAfter, millisText(m.DownAfterMs))
		},
	},
	{
		name: settings.OptionFailoverTimeout, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionFailoverTimeout, msgZeroTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionFailoverTimeout, m, m.FailoverTimeoutMs != w.defFailover, millisText(m.FailoverTimeoutMs))
		},
	},
	{
		name: settings.OptionParallelSyncs, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionParallelSyncs, ""),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionParallelSyncs, m, m.ParallelSyncs != settings.DefaultParallelSyncs, strconv.Itoa(m.ParallelSyncs))
		},
	},
	{
		name: settings.OptionNotificationScript, argc: []int{3}, pass: 2,
		load: masterScript(msgNotificationScript, func(m *settings.MasterSpec) *string { return &m.NotificationScript }),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionNotificationScript, m, m.NotificationScript != "", m.NotificationScript)
		},
	},
	{
		name: settings.OptionClientReconfigScript, argc: []int{3}, pass: 2,
		load: masterScript(msgReconfigScript, func(m *settings.MasterSpec) *string { return &m.ClientReconfigScript }),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionClientReconfigScript, m, m.ClientReconfigScript != "", m.ClientReconfigScript)
		},
	},
	{
		name: settings.OptionAuthPass, argc: []int{3}, pass: 2,
		load: masterString(func(m *settings.MasterSpec) *string { return &m.AuthPass }),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionAuthPass, m, m.AuthPass != "", m.AuthPass)
		},
	},
	{
		name: settings.OptionAuthUser, argc: []int{3}, pass: 2,
		load: masterString(func(m *settings.MasterSpec) *string { return &m.AuthUser }),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionAuthUser, m, m.AuthUser != "", m.AuthUser)
		},
	},
	{
		name: settings.OptionRebootDownAfter, alias: settings.OptionRebootDownAfterAlias, keepAlias: true,
		argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionRebootDownAfter, msgNegativeTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionRebootDownAfter, m, m.RebootDownAfterMs != 0, millisText(m.RebootDownAfterMs))
		},
	},
	{
		name: "config-epoch", argc: []int{3}, pass: 2,
		load: forMaster(func(l *sentinelLoader, m *masterState, argv []string) string {
			m.spec.ConfigEpoch = strtoull10(argv[2])
			l.p.CurrentEpoch = max(l.p.CurrentEpoch, m.spec.ConfigEpoch)
			return ""
		}),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.line("config-epoch", m.Name, strconv.FormatUint(m.ConfigEpoch, 10))
		},
	},
	{
		name: "leader-epoch", argc: []int{3}, pass: 2,
		load: forMaster(func(_ *sentinelLoader, m *masterState, argv []string) string {
			m.spec.LeaderEpoch = strtoull10(argv[2])
			return ""
		}),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.line("leader-epoch", m.Name, strconv.FormatUint(m.LeaderEpoch, 10))
		},
	},
	{
		// A go-sentinel extension, written only once a lease was granted.
		name: "leases-granted", argc: []int{3}, pass: 2,
		load: forMaster(func(_ *sentinelLoader, m *masterState, argv []string) string {
			v := yesNo(argv[2])
			if v < 0 {
				return msgYesNo
			}
			m.spec.LeasesGranted = v == 1
			return ""
		}),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			if m.LeasesGranted {
				w.line("leases-granted", m.Name, "yes")
			}
		},
	},
	{
		name: "known-replica", alias: "known-slave", argc: []int{4}, pass: 2,
		load: forMaster(func(l *sentinelLoader, m *masterState, argv []string) string {
			a, msg := l.addr(argv[2], argv[3])
			if msg != "" {
				return msg
			}
			if m.replicas[a.String()] {
				return msgDuplicateReplica
			}
			m.replicas[a.String()] = true
			m.spec.KnownReplicas = append(m.spec.KnownReplicas, a)
			return ""
		}),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			for _, r := range m.KnownReplicas {
				w.line("known-replica", m.Name, r.Host, strconv.Itoa(r.Port))
			}
		},
	},
	{
		name: "known-sentinel", argc: []int{4, 5}, pass: 2,
		load: func(l *sentinelLoader, argv []string) string {
			if len(argv) == 4 {
				return "" // the old form without a run id is ignored
			}
			return forMaster(func(l *sentinelLoader, m *masterState, argv []string) string {
				a, msg := l.addr(argv[2], argv[3])
				if msg != "" {
					return msg
				}
				if m.sentinels[argv[4]] {
					return msgDuplicateSentinel
				}
				m.sentinels[argv[4]] = true
				m.spec.KnownSentinels = append(m.spec.KnownSentinels, settings.SentinelSpec{Addr: a, RunID: argv[4]})
				return ""
			})(l, argv)
		},
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			for _, s := range m.KnownSentinels {
				if s.RunID != "" {
					w.line("known-sentinel", m.Name, s.Addr.Host, strconv.Itoa(s.Addr.Port), s.RunID)
				}
			}
		},
	},
	{
		name: settings.OptionRenameCommand, argc: []int{4}, pass: 2,
		load: forMaster(func(l *sentinelLoader, m *masterState, argv []string) string {
			key := strings.ToLower(argv[2])
			if m.renames[key] {
				return msgSameRename
			}
			m.renames[key] = true
			if l.inState && strings.EqualFold(argv[2], argv[3]) {
				// The state file's "not renamed" (SENTINEL SET's too).
				return ""
			}
			m.spec.RenameCommands = append(m.spec.RenameCommands, settings.Rename{Command: argv[2], Renamed: argv[3]})
			return ""
		}),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			for _, r := range m.RenameCommands {
				w.line(settings.OptionRenameCommand, m.Name, r.Command, r.Renamed)
			}
		},
	},
	proxyAddrs(settings.OptionProxy, func(m *settings.MasterSpec) *[]settings.Addr { return &m.Proxy }),
	{
		name: settings.OptionProxyFenceAfter, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionProxyFenceAfter, msgZeroTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyFenceAfter, m, m.ProxyFenceAfterMs != settings.DefaultProxyFenceAfterMs, millisText(m.ProxyFenceAfterMs))
		},
	},
	{
		name: settings.OptionProxyHold, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionProxyHold, msgNegativeTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyHold, m, m.ProxyHoldMs != settings.DefaultProxyHoldMs, millisText(m.ProxyHoldMs))
		},
	},
	{
		name: settings.OptionProxyFencing, argc: []int{3}, pass: 2,
		load: masterYesNo(settings.OptionProxyFencing),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyFencing, m, m.ProxyNoFencing, settings.YesNoText(!m.ProxyNoFencing))
		},
	},
	{
		name: settings.OptionProxyProtectedMode, argc: []int{3}, pass: 2,
		load: masterYesNo(settings.OptionProxyProtectedMode),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyProtectedMode, m, m.ProxyNoProtectedMode, settings.YesNoText(!m.ProxyNoProtectedMode))
		},
	},
	// proxy-replicas (go-sentinel's extension, issue 33): the read port,
	// one line per address, as proxy.
	proxyAddrs(settings.OptionProxyReplicas, func(m *settings.MasterSpec) *[]settings.Addr { return &m.ProxyReplicas }),
	{
		name: settings.OptionProxyReplicaMaxLag, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionProxyReplicaMaxLag, msgNegativeTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyReplicaMaxLag, m, m.ProxyReplicaMaxLagMs != settings.DefaultProxyReplicaMaxLagMs, millisText(m.ProxyReplicaMaxLagMs))
		},
	},
	{
		name: settings.OptionProxyReplicasPriorityZero, argc: []int{3}, pass: 2,
		load: masterYesNo(settings.OptionProxyReplicasPriorityZero),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyReplicasPriorityZero, m, m.ProxyReplicasNoPriorityZero, settings.YesNoText(!m.ProxyReplicasNoPriorityZero))
		},
	},
	{
		name: settings.OptionProxyReplicasFallback, argc: []int{3}, pass: 2,
		load: masterYesNo(settings.OptionProxyReplicasFallback),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionProxyReplicasFallback, m, m.ProxyReplicasNoFallback, settings.YesNoText(!m.ProxyReplicasNoFallback))
		},
	},
	{
		// forget-replica-after (go-sentinel's extension, issue 21): 0,
		// the default, never forgets a replica.
		name: settings.OptionForgetReplicaAfter, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionForgetReplicaAfter, msgNegativeTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionForgetReplicaAfter, m, m.ForgetReplicaAfterMs != 0, millisText(m.ForgetReplicaAfterMs))
		},
	},
	{
		// voters (go-sentinel's extension, issue 21): the floor of the
		// number of Sentinels a leader's majority is counted over; 0,
		// the default, counts the known ones, as Redis.
		name: settings.OptionVoters, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionVoters, msgVoters),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionVoters, m, m.Voters != 0, strconv.Itoa(m.Voters))
		},
	},
	{
		// forget-sentinel-after (go-sentinel's extension): 0, the
		// default, never forgets a Sentinel; it acts only with voters.
		name: settings.OptionForgetSentinelAfter, argc: []int{3}, pass: 2,
		load: masterNumber(settings.OptionForgetSentinelAfter, msgNegativeTime),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			w.masterOptional(settings.OptionForgetSentinelAfter, m, m.ForgetSentinelAfterMs != 0, millisText(m.ForgetSentinelAfterMs))
		},
	},
	{
		// state-config-file (issue 21; valkey pull request 4085): the
		// config file is only read, and the state goes to this file
		// (state.go).
		name: "state-config-file", argc: []int{2}, keep: true,
		load: func(l *sentinelLoader, argv []string) string {
			if argv[1] == "" {
				return msgStateFileEmpty
			}
			l.stateFile = l.path(argv[1])
			return ""
		},
		write: func(*sentinelWriter, *settings.Persisted) {},
	},
	{
		// command-surface (go-sentinel's extension, issue 34): the
		// command surface the port presents, 7.0 (the default) or 7.2.
		// Read at start only; the rewrite leaves its lines as they are.
		name: optionCommandSurface, argc: []int{2}, keep: true,
		load: func(l *sentinelLoader, argv []string) string {
			sf, err := commands.ParseSurface(argv[1])
			if err != nil {
				return msgCommandSurface
			}
			l.surface = sf
			return ""
		},
		write: func(*sentinelWriter, *settings.Persisted) {},
	},
	{
		name: "current-epoch", argc: []int{2},
		load: func(l *sentinelLoader, argv []string) string {
			l.p.CurrentEpoch = max(l.p.CurrentEpoch, strtoull10(argv[1]))
			return ""
		},
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.line("current-epoch", strconv.FormatUint(p.CurrentEpoch, 10))
		},
	},
	{
		name: "announce-ip", argc: []int{2},
		load: nonEmptySetting(func(p *settings.Persisted) *string { return &p.AnnounceIP }),
		write: func(w *sentinelWriter, p *settings.Persisted) {
			// Written with sdscatrepr, always quoted, as Redis does.
			if p.AnnounceIP == "" && !w.force {
				w.st.markProcessed("sentinel announce-ip")
				return
			}
			w.st.rewriteLine("sentinel announce-ip", "sentinel announce-ip "+splitargs.Repr(p.AnnounceIP), true)
		},
	},
	{
		name: "announce-port", argc: []int{2},
		load: func(l *sentinelLoader, argv []string) string {
			l.p.AnnouncePort = atoi(argv[1])
			return ""
		},
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.optional("announce-port", p.AnnouncePort != 0, strconv.Itoa(p.AnnouncePort))
		},
	},
	{
		name: "sentinel-user", argc: []int{2},
		load: nonEmptySetting(func(p *settings.Persisted) *string { return &p.SentinelUser }),
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.optional("sentinel-user", p.SentinelUser != "", p.SentinelUser)
		},
	},
	{
		name: "sentinel-pass", argc: []int{2},
		load: nonEmptySetting(func(p *settings.Persisted) *string { return &p.SentinelPass }),
		write: func(w *sentinelWriter, p *settings.Persisted) {
			w.optional("sentinel-pass", p.SentinelPass != "", p.SentinelPass)
		},
	},
}

// sentinelIndex maps every name and alias of a sentinel directive to it.
var sentinelIndex = func() map[string]*sentinelDirective {
	m := map[string]*sentinelDirective{}
	for i := range sentinelDirectives {
		d := &sentinelDirectives[i]
		m[d.name] = d
		if d.alias != "" {
			m[d.alias] = d
		}
	}
	return m
}()

// lookupSentinelDirective returns the sentinel directive called name
// (lower-case), or nil.
func lookupSentinelDirective(name string) *sentinelDirective {
	return sentinelIndex[name]
}

// sentinelPass returns the loading pass of a line whose directive is
// name, compared case-insensitively with the names (not the aliases): an
// unknown directive is reported with the per-master lines.
func sentinelPass(name string) int {
	for i := range sentinelDirectives {
		if strings.EqualFold(sentinelDirectives[i].name, name) {
			return sentinelDirectives[i].pass
		}
	}
	return 2
}

// Loading helpers.

// forMaster wraps the loading of a per-master line: argv[1] must name a
// master already monitored.
func forMaster(f func(l *sentinelLoader, m *masterState, argv []string) string) func(*sentinelLoader, []string) string {
	return func(l *sentinelLoader, argv []string) string {
		m := l.masters[argv[1]]
		if m == nil {
			return msgNoSuchMaster
		}
		return f(l, m, argv)
	}
}

// slicesContain reports whether as holds a.
func slicesContain(as []settings.Addr, a settings.Addr) bool {
	for _, o := range as {
		if o == a {
			return true
		}
	}
	return false
}

// masterNumber loads a per-master number, read with Redis's atoi, through
// the option's rule (settings.Number), else msg.
func masterNumber(option, msg string) func(*sentinelLoader, []string) string {
	rule, ok := settings.Number(option)
	if !ok {
		panic("config: no number rule for " + option)
	}
	return forMaster(func(_ *sentinelLoader, m *masterState, argv []string) string {
		v := int64(atoi(argv[2]))
		if rule.Max != 0 && v > rule.Max {
			return fmt.Sprintf("%s must be at most %d.", option, rule.Max)
		}
		if rule.SetFromFile(&m.spec.Master, v) != nil {
			return msg
		}
		return ""
	})
}

// masterScript loads a per-master script path, which must be executable.
func masterScript(msg string, f func(*settings.MasterSpec) *string) func(*sentinelLoader, []string) string {
	return forMaster(func(l *sentinelLoader, m *masterState, argv []string) string {
		if argv[2] == "" && l.inState {
			// The state file's "no script" (what SENTINEL SET takes).
			*f(&m.spec) = ""
			return ""
		}
		if !l.executable(argv[2]) {
			return msg
		}
		*f(&m.spec) = argv[2]
		return ""
	})
}

// masterString loads a per-master string as it is.
func masterString(f func(*settings.MasterSpec) *string) func(*sentinelLoader, []string) string {
	return forMaster(func(_ *sentinelLoader, m *masterState, argv []string) string {
		*f(&m.spec) = argv[2]
		return ""
	})
}

// masterYesNo loads a per-master yes/no through the option's rule
// (settings.YesNo), else msgYesNo.
func masterYesNo(option string) func(*sentinelLoader, []string) string {
	rule, ok := settings.YesNo(option)
	if !ok {
		panic("config: no yes/no rule for " + option)
	}
	return forMaster(func(_ *sentinelLoader, m *masterState, argv []string) string {
		if rule.Set(&m.spec.Master, argv[2]) != nil {
			return msgYesNo
		}
		return ""
	})
}

// yesNoSetting loads a global yes/no, else msg.
func yesNoSetting(msg string, f func(*settings.Persisted) *bool) func(*sentinelLoader, []string) string {
	return func(l *sentinelLoader, argv []string) string {
		v := yesNo(argv[1])
		if v < 0 {
			return msg
		}
		*f(&l.p) = v == 1
		return ""
	}
}

// nonEmptySetting loads a global string; an empty one changes nothing.
func nonEmptySetting(f func(*settings.Persisted) *string) func(*sentinelLoader, []string) string {
	return func(l *sentinelLoader, argv []string) string {
		if argv[1] != "" {
			*f(&l.p) = argv[1]
		}
		return ""
	}
}

// Writing helpers.

// sentinelWriter writes sentinel lines into a rewrite, with the current
// defaults of new masters.
type sentinelWriter struct {
	st                        *rewriteState
	defDownAfter, defFailover int64
	// force writes every setting, even at its default, in a form the
	// loader takes back (the state file's diff, state_diff.go).
	force bool
}

// line writes `sentinel <name> <words...>`, quoting words as needed.
func (w *sentinelWriter) line(name string, words ...string) {
	w.st.rewriteLine("sentinel "+name, "sentinel "+name+" "+quoteWords(words), true)
}

// optional writes a global line when set, else drops the old lines.
func (w *sentinelWriter) optional(name string, set bool, value string) {
	if !set && !w.force {
		w.st.markProcessed("sentinel " + name)
		return
	}
	w.line(name, value)
}

// masterOptional writes a per-master line when set.
func (w *sentinelWriter) masterOptional(name string, m *settings.MasterSpec, set bool, value string) {
	if set || w.force {
		w.line(name, m.Name, value)
	}
}

// yesNo writes a global yes/no, forced when it differs from def.
func (w *sentinelWriter) yesNo(name string, v, def bool) {
	w.st.rewriteLine("sentinel "+name, "sentinel "+name+" "+settings.YesNoText(v), v != def || w.force)
}

func millisText(v int64) string { return strconv.FormatInt(v, 10) }

// sentinel writes the sentinel lines: each directive of the table in
// turn, and at the first per-master one every master (those already in
// the file first, see masterOrder) with all its per-master lines. Every
// sentinel option is managed, so lines no longer needed disappear (after
// SENTINEL REMOVE, or back to a default).
func (st *rewriteState) sentinel(p settings.Persisted, opts RewriteOptions) {
	w := &sentinelWriter{st: st, defDownAfter: opts.DefaultDownAfterMs, defFailover: opts.DefaultFailoverTimeoutMs, force: opts.force}
	if w.defDownAfter == 0 {
		w.defDownAfter = settings.DefaultDownAfterMs
	}
	if w.defFailover == 0 {
		w.defFailover = settings.DefaultFailoverTimeoutMs
	}
	mastersWritten := false
	for i := range sentinelDirectives {
		d := &sentinelDirectives[i]
		if d.keep {
			continue
		}
		st.markProcessed("sentinel " + d.name)
		if d.write != nil {
			d.write(w, &p)
			continue
		}
		if mastersWritten {
			continue
		}
		mastersWritten = true
		for _, m := range st.masterOrder(p.Masters) {
			for j := range sentinelDirectives {
				if md := &sentinelDirectives[j]; md.writeMaster != nil {
					md.writeMaster(w, &m)
				}
			}
		}
	}
}

// proxyAddrs is the directive of a master's proxy listen addresses
// (proxy, proxy-replicas): one `sentinel <option> <master> <ip> <port>`
// line per address, none shared with the master's other port.
func proxyAddrs(option string, list func(*settings.MasterSpec) *[]settings.Addr) sentinelDirective {
	return sentinelDirective{
		name: option, argc: []int{4}, pass: 2,
		load: forMaster(func(_ *sentinelLoader, m *masterState, argv []string) string {
			a, err := settings.ParseProxyAddr(argv[2], argv[3])
			if err != nil {
				return err.Error()
			}
			if slicesContain(m.spec.Proxy, a) || slicesContain(m.spec.ProxyReplicas, a) {
				return msgSameProxy
			}
			l := list(&m.spec)
			*l = append(*l, a)
			return ""
		}),
		writeMaster: func(w *sentinelWriter, m *settings.MasterSpec) {
			for _, a := range *list(m) {
				w.line(option, m.Name, a.Host, strconv.Itoa(a.Port))
			}
		},
	}
}
