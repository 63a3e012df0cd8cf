package monitor

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/glob"
)

// globalParams are SENTINEL CONFIG's parameters in reply order.
var globalParams = []string{"resolve-hostnames", "announce-hostnames", "announce-ip", "announce-port",
	"sentinel-user", "sentinel-pass"}

func yesno(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// ConfigGet returns the global parameters matching any of the glob
// patterns (case-insensitive), each once, in Redis's fixed order.
func (s *Sentinel) ConfigGet(patterns []string) []KV {
	g := s.global
	values := map[string]string{
		"resolve-hostnames":  yesno(g.ResolveHostnames),
		"announce-hostnames": yesno(g.AnnounceHostnames),
		"announce-ip":        g.AnnounceIP,
		"announce-port":      strconv.Itoa(g.AnnouncePort),
		"sentinel-user":      g.SentinelUser,
		"sentinel-pass":      g.SentinelPass,
	}
	var out []KV
	for _, p := range globalParams {
		for _, pat := range patterns {
			if glob.Match(pat, p, true) {
				out = append(out, KV{p, values[p]})
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
	s.persist("config set")
	if dropSentinels {
		for _, name := range s.names {
			for _, si := range s.masters[name].sortedSentinels() {
				s.closeLinks(si)
			}
		}
	}
	return nil
}
