package monitor

// This file applies the commands about this Sentinel's own settings:
// SENTINEL CONFIG GET/SET, DEBUG and SIMULATE-FAILURE.

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/glob"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// globalParams are SENTINEL CONFIG's parameters in reply order.
var globalParams = []string{"resolve-hostnames", "announce-hostnames", "announce-ip", "announce-port",
	"sentinel-user", "sentinel-pass"}

// ConfigGet returns the global parameters matching any of the glob
// patterns (case-insensitive), each once, in Redis's fixed order.
func (s *Sentinel) ConfigGet(patterns []string) []view.KV {
	g := s.global
	values := map[string]string{
		"resolve-hostnames":  settings.YesNoText(g.ResolveHostnames),
		"announce-hostnames": settings.YesNoText(g.AnnounceHostnames),
		"announce-ip":        g.AnnounceIP,
		"announce-port":      strconv.Itoa(g.AnnouncePort),
		"sentinel-user":      g.SentinelUser,
		"sentinel-pass":      g.SentinelPass,
	}
	var out []view.KV
	for _, p := range globalParams {
		for _, pat := range patterns {
			if glob.Match(pat, p, true) {
				out = append(out, view.KV{Key: p, Value: values[p]})
				break
			}
		}
	}
	return out
}

// configSet changes global parameters (ConfigSet). Every pair is checked
// before any is applied; then the config is persisted, and new Sentinel
// credentials drop the links to other Sentinels.
func (s *Sentinel) configSet(args []string) error {
	if len(args) == 0 || len(args)%2 != 0 {
		return ErrConfigSetShape
	}
	next := s.global
	seen := map[string]bool{}
	dropSentinels := false
	for j := 0; j < len(args); j += 2 {
		p, v := strings.ToLower(args[j]), args[j+1]
		if seen[p] {
			return &ArgError{Cmd: "CONFIG SET", Option: args[j], Duplicate: true}
		}
		seen[p] = true
		bad := &ArgError{Cmd: "CONFIG SET", Option: args[j], Value: v}
		switch p {
		case "resolve-hostnames", "announce-hostnames":
			var b bool
			switch strings.ToLower(v) {
			case "yes":
				b = true
			case "no":
			default:
				return bad
			}
			if p == "resolve-hostnames" {
				next.ResolveHostnames = b
			} else {
				next.AnnounceHostnames = b
			}
		case "announce-ip":
			next.AnnounceIP = v
		case "announce-port":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 65535 {
				return bad
			}
			next.AnnouncePort = n
		case "sentinel-user":
			next.SentinelUser = v
			dropSentinels = true
		case "sentinel-pass":
			next.SentinelPass = v
			dropSentinels = true
		default:
			return &ArgError{Cmd: "CONFIG SET", Option: args[j], Unknown: true}
		}
	}
	s.global = next
	s.out.persist("config set")
	if dropSentinels {
		for _, name := range s.names {
			for _, si := range s.masters[name].sortedSentinels() {
				s.links.closeLinks(si)
			}
		}
	}
	return nil
}

// debugParams lists SENTINEL DEBUG's parameters in reply order.
var debugParams = []struct {
	name string
	get  func(*settings.Timing) *int64
}{
	{"info-period", func(t *settings.Timing) *int64 { return &t.InfoPeriodMs }},
	{"ping-period", func(t *settings.Timing) *int64 { return &t.PingPeriodMs }},
	{"ask-period", func(t *settings.Timing) *int64 { return &t.AskPeriodMs }},
	{"publish-period", func(t *settings.Timing) *int64 { return &t.PublishPeriodMs }},
	{"default-down-after", func(t *settings.Timing) *int64 { return &t.DefaultDownAfterMs }},
	{"default-failover-timeout", func(t *settings.Timing) *int64 { return &t.DefaultFailoverTimeoutMs }},
	{"tilt-trigger", func(t *settings.Timing) *int64 { return &t.TiltTriggerMs }},
	{"tilt-period", func(t *settings.Timing) *int64 { return &t.TiltPeriodMs }},
	{"slave-reconf-timeout", func(t *settings.Timing) *int64 { return &t.SlaveReconfTimeoutMs }},
	{"min-link-reconnect-period", func(t *settings.Timing) *int64 { return &t.MinLinkReconnectPeriodMs }},
	{"election-timeout", func(t *settings.Timing) *int64 { return &t.ElectionTimeoutMs }},
	{"script-max-runtime", func(t *settings.Timing) *int64 { return &t.ScriptMaxRuntimeMs }},
	{"script-retry-delay", func(t *settings.Timing) *int64 { return &t.ScriptRetryDelayMs }},
}

// DebugValues returns the timing knobs as SENTINEL DEBUG shows them:
// upper-case names, values in ms.
func (s *Sentinel) DebugValues() []view.KV {
	out := make([]view.KV, 0, len(debugParams))
	for _, p := range debugParams {
		out = append(out, view.KV{Key: strings.ToUpper(p.name), Value: strconv.FormatInt(*p.get(&s.timing), 10)})
	}
	return out
}

// debugSet sets the knobs of t (Debug), left to right as Redis does:
// pairs before a bad one stay applied. They are not persisted.
func debugSet(t *settings.Timing, args []string) error {
	for j := 0; j < len(args); j += 2 {
		var target *int64
		for _, p := range debugParams {
			if strings.EqualFold(p.name, args[j]) {
				target = p.get(t)
			}
		}
		if target == nil || j+1 >= len(args) {
			return &ArgError{Cmd: "DEBUG", Option: args[j], Unknown: true}
		}
		v, err := strconv.ParseInt(args[j+1], 10, 64)
		if err != nil || v <= 0 {
			return &ArgError{Cmd: "DEBUG", Option: args[j], Value: args[j+1]}
		}
		*target = v
	}
	return nil
}

// simulateFailure resets the SIMULATE-FAILURE flags, then sets them from
// names left to right as Redis does (SimulateFailure): it stops at "help"
// (reporting help) or at an unknown name (an error), keeping the flags
// set so far.
func (s *Sentinel) simulateFailure(names []string) (help bool, err error) {
	s.simFailure = 0
	for _, n := range names {
		switch strings.ToLower(n) {
		case "crash-after-election":
			s.simFailure |= failover.SimCrashAfterElection
			s.out.log(event.LevelWarning, "Failure simulation: this Sentinel will crash after being successfully elected as failover leader")
		case "crash-after-promotion":
			s.simFailure |= failover.SimCrashAfterPromotion
			s.out.log(event.LevelWarning, "Failure simulation: this Sentinel will crash after promoting the selected replica to master")
		case "help":
			return true, nil
		default:
			return false, ErrUnknownSimulation
		}
	}
	return false, nil
}
