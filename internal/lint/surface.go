package lint

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// The first Redis version whose Sentinel has the 7.2 command surface
// (CLIENT SETINFO, SENTINEL CONFIG GET/SET of several parameters and of
// loglevel). Every Valkey release has it (Valkey forked from Redis 7.2.4).
const (
	surface72MinMajor = 7
	surface72MinMinor = 2
)

// serverSurface returns the command surface the Sentinel of i's server
// release presents, and false when i's version cannot tell.
func serverSurface(i Instance) (commands.Surface, bool) {
	if i.Valkey && i.Version != "" {
		return commands.Surface72, true
	}
	major, minor, ok := parseVersion(i.Version)
	if !ok {
		return commands.Surface70, false
	}
	if major > surface72MinMajor || (major == surface72MinMajor && minor >= surface72MinMinor) {
		return commands.Surface72, true
	}
	return commands.Surface70, true
}

// commandSurfaceRule warns, in a live check, when the command surface the
// configuration selects (`sentinel command-surface`) is not the one of
// the Sentinels of the master's and replicas' server release: the
// fleet's clients and tools are those of its data nodes.
func commandSurfaceRule(t *target) []Finding {
	if t.live == nil {
		return nil
	}
	var other []string
	want := t.surface
	consider := func(i Instance) {
		if !i.reachable() || i.Addr == "" {
			return
		}
		if sf, ok := serverSurface(i); ok && sf != t.surface {
			other = append(other, fmt.Sprintf("%s (%s)", i.Addr, serverName(i)))
			want = sf
		}
	}
	consider(t.live.Master)
	for _, r := range t.live.Replicas {
		consider(r)
	}
	if len(other) == 0 {
		return nil
	}
	name := t.spec.Name
	nodes := strings.Join(other, ", ")
	run := "run"
	if len(other) == 1 {
		run = "runs"
	}
	if t.surface == commands.Surface70 {
		return []Finding{t.finding(Warning, RuleCommandSurface,
			fmt.Sprintf("this configuration selects the 7.0 command surface (%s) but %s of %s %s a newer release, whose clients and tools expect the Sentinel "+
				"of Redis 7.2 and later or Valkey: CLIENT SETINFO listed by COMMAND, SENTINEL CONFIG GET/SET of several parameters and of loglevel; "+
				"on 7.0 those SENTINEL CONFIG forms are refused as redis-sentinel 7.0.15 refuses them.", commands.Surface70.Describe(), nodes, name, run),
			fmt.Sprintf("Add `sentinel command-surface %s` to this file (or start with `--sentinel command-surface %s`) if the fleet's clients are those of "+
				"Redis 7.2 or later or Valkey; keep 7.0 while any of its Sentinels is a redis-sentinel 7.0.", want, want))}
	}
	return []Finding{t.finding(Warning, RuleCommandSurface,
		fmt.Sprintf("this configuration selects the %s command surface (%s) but %s of %s %s a release older than 7.2, whose clients and tools "+
			"expect Redis 7.0's Sentinel: COMMAND lists 73 names instead of 72 and SENTINEL CONFIG GET * answers loglevel too.",
			t.surface, t.surface.Describe(), nodes, name, run),
		fmt.Sprintf("Remove `sentinel command-surface %s` (7.0 is the default) unless the fleet's clients are those of Redis 7.2 or later; "+
			"upgrading the data nodes also ends the mismatch.", t.surface))}
}
