package acl

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/glob"
)

// Result is the outcome of a permission check, ordered as Redis
// orders them when several selectors fail.
type Result int

// The results of a permission check.
const (
	Allowed Result = iota
	DeniedCommand
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// String is the reason ACL LOG shows for a denial.
func (r Result) String() string {
	switch r {
	case Allowed:
		return "allowed"
	case DeniedKey:
		return "key"
	case DeniedAuth:
		return "auth"
	case DeniedChannel:
		return "channel"
	}
	return "command"
}

// channelArgs returns the argument positions holding channels that a
// permission check looks at, and whether they are patterns.
func channelArgs(cmd *commands.Spec, nargs int) (first, last int, pattern bool) {
	switch cmd.Name {
	case "publish":
		return 1, 1, false
	case "subscribe":
		return 1, nargs - 1, false
	case "psubscribe":
		return 1, nargs - 1, true
	}
	return 0, -1, false
}

func channelAllowed(list []string, ch string, pattern bool) bool {
	for _, p := range list {
		if (pattern && p == ch) || (!pattern && glob.Match(p, ch, false)) {
			return true
		}
	}
	return false
}

// check is ACLSelectorCheckCmd: the command bit (or an allowed first
// argument), then the channels.
func (s *selector) check(cmd *commands.Spec, args []string) (Result, int) {
	if !s.allCommands && cmd.Flags&commands.FlagNoAuth == 0 && !s.bits.get(cmd.ID) {
		idx := 1
		if cmd.Parent != nil {
			idx = 2
		}
		ok := false
		if len(args) > idx {
			for _, a := range s.firstArgs[cmd.ID] {
				ok = ok || strings.EqualFold(a, args[idx])
			}
		}
		if !ok {
			return DeniedCommand, 0
		}
	}
	if !s.allChannels {
		first, last, pattern := channelArgs(cmd, len(args))
		for i := first; i <= last && i < len(args); i++ {
			if !channelAllowed(s.channels, args[i], pattern) {
				return DeniedChannel, i
			}
		}
	}
	return Allowed, 0
}

// check is ACLCheckAllUserCommandPerm: any selector allowing the command
// is enough; otherwise the most relevant failure is returned with the
// argument position it concerns.
func (usr *user) check(cmd *commands.Spec, args []string) (Result, int) {
	res, pos := DeniedCommand, 0
	for _, s := range usr.selectors {
		r, p := s.check(cmd, args)
		if r == Allowed {
			return Allowed, 0
		}
		if r > res || (r == res && p > pos) {
			res, pos = r, p
		}
	}
	return res, pos
}

// ChannelLoss is what a user may still subscribe to after a change that
// took channel permissions away.
type ChannelLoss struct {
	allowed []string // the channel patterns of every selector
}

// Allows reports whether the user may still hold a subscription to
// channel (a pattern subscription when pattern is set).
func (l *ChannelLoss) Allows(channel string, pattern bool) bool {
	return channelAllowed(l.allowed, channel, pattern)
}

// channelsRevoked returns, when going from old to usr lost some channel
// permission (Redis then disconnects the user's subscribers whose
// subscriptions are no longer allowed), the channel patterns usr now
// allows; nil when nothing was lost.
func channelsRevoked(old, usr *user) *ChannelLoss {
	var upcoming []string
	for _, s := range usr.selectors {
		if s.allChannels {
			return nil
		}
		upcoming = append(upcoming, s.channels...)
	}
	for _, s := range old.selectors {
		if s.allChannels {
			return &ChannelLoss{allowed: upcoming}
		}
		for _, c := range s.channels {
			found := false
			for _, u := range upcoming {
				found = found || u == c
			}
			if !found {
				return &ChannelLoss{allowed: upcoming}
			}
		}
	}
	return nil
}
