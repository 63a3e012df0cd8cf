package acl

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// keyPerm is the access a key pattern grants: read, write or both.
type keyPerm uint8

const (
	keyRead keyPerm = 1 << iota
	keyWrite
	keyAll = keyRead | keyWrite
)

type keyPattern struct {
	perm    keyPerm
	pattern string
}

// cmdBits has one bit per catalogue id.
type cmdBits [2]uint64

func (b *cmdBits) get(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }

func (b *cmdBits) set(id int, v bool) {
	if v {
		b[id/64] |= 1 << (id % 64)
	} else {
		b[id/64] &^= 1 << (id % 64)
	}
}

// selector is one set of permissions of a user, as Redis 7.0 keeps them:
// a command bitmap (plus the "future commands" bit that only +@all sets),
// allowed first arguments, key and channel patterns.
type selector struct {
	root        bool
	allKeys     bool
	allChannels bool
	allCommands bool
	bits        cmdBits
	future      bool
	firstArgs   map[int][]string
	keys        []keyPattern
	channels    []string
	// surface is the command surface whose listed commands the
	// selector's rules may name (client|setinfo from Surface72 on).
	surface commands.Surface
}

func newSelector(root, allChannels bool, sf commands.Surface) *selector {
	return &selector{root: root, allChannels: allChannels, surface: sf}
}

func (s *selector) clone() *selector {
	c := *s
	c.keys = append([]keyPattern(nil), s.keys...)
	c.channels = append([]string(nil), s.channels...)
	c.firstArgs = nil
	for id, args := range s.firstArgs {
		if c.firstArgs == nil {
			c.firstArgs = map[int][]string{}
		}
		c.firstArgs[id] = append([]string(nil), args...)
	}
	return &c
}

// setBit sets one command bit; clearing a bit also drops allcommands.
func (s *selector) setBit(id int, v bool) {
	s.bits.set(id, v)
	if !v {
		s.allCommands = false
	}
}

// changePerm allows or denies cmd and, for a container, every subcommand.
func (s *selector) changePerm(cmd *commands.Spec, allow bool) {
	s.setBit(cmd.ID, allow)
	delete(s.firstArgs, cmd.ID)
	for _, sub := range cmd.Subs {
		s.setBit(sub.ID, allow)
	}
}

// changeCategory applies changePerm to every command in cat.
func (s *selector) changeCategory(cat commands.Category, allow bool) {
	for _, cmd := range catalogue.All() {
		if cmd.Categories&cat != 0 {
			s.changePerm(cmd, allow)
		}
	}
}

func (s *selector) setAll(allow bool) {
	if allow {
		s.bits = cmdBits{^uint64(0), ^uint64(0)}
	} else {
		s.bits = cmdBits{}
	}
	s.future, s.allCommands = allow, allow
	s.firstArgs = nil
}

func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply applies one selector rule (everything but the user-level ones).
func (s *selector) apply(op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case strings.EqualFold(op, "resetkeys"):
		s.allKeys, s.keys = false, nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.allChannels, s.channels = true, nil
	case strings.EqualFold(op, "resetchannels"):
		s.allChannels, s.channels = false, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(false)
	case op[0] == '~' || op[0] == '%':
		return s.addKeyPattern(op)
	case op[0] == '&':
		if s.allChannels {
			return ErrChannelAfterAll
		}
		if hasSpaces(op[1:]) {
			return ErrSyntax
		}
		found := false
		for _, c := range s.channels {
			found = found || c == op[1:]
		}
		if !found {
			s.channels = append(s.channels, op[1:])
		}
		s.allChannels = false
	case op[0] == '+' && !strings.HasPrefix(op, "+@"):
		return s.allowCommand(op[1:])
	case op[0] == '-' && !strings.HasPrefix(op, "-@"):
		cmd := catalogue.LookupListedOn(op[1:], s.surface)
		if cmd == nil {
			return ErrUnknownCommand
		}
		s.changePerm(cmd, false)
	case op[0] == '+' || op[0] == '-':
		cat := commands.CategoryByName(op[2:])
		if cat == 0 {
			return ErrUnknownCommand
		}
		s.changeCategory(cat, op[0] == '+')
	default:
		return ErrSyntax
	}
	return nil
}

func (s *selector) addKeyPattern(op string) error {
	if s.allKeys {
		return ErrKeyAfterAll
	}
	perm, off := keyAll, 1
	if op[0] == '%' {
		perm = 0
		for ; off < len(op); off++ {
			c := op[off]
			if (c == 'R' || c == 'r') && perm&keyRead == 0 {
				perm |= keyRead
			} else if (c == 'W' || c == 'w') && perm&keyWrite == 0 {
				perm |= keyWrite
			} else if c == '~' {
				off++
				break
			} else {
				return ErrSyntax
			}
		}
		if perm == 0 {
			// Redis 7.0.15 accepts `%~x` and then aborts when describing
			// it; refusing it is the only safe reading.
			return ErrSyntax
		}
	}
	pat := op[off:]
	if hasSpaces(pat) {
		return ErrSyntax
	}
	found := false
	for i := range s.keys {
		if s.keys[i].pattern == pat {
			s.keys[i].perm |= perm
			found = true
		}
	}
	if !found {
		s.keys = append(s.keys, keyPattern{perm: perm, pattern: pat})
	}
	s.allKeys = false
	return nil
}

// allowCommand applies `+name`, `+container|sub` or `+cmd|firstarg`.
func (s *selector) allowCommand(name string) error {
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		cmd := catalogue.LookupListedOn(name, s.surface)
		if cmd == nil {
			return ErrUnknownCommand
		}
		s.changePerm(cmd, true)
		return nil
	}
	base, sub := name[:i], name[i+1:]
	cmd := catalogue.LookupListedOn(base, s.surface)
	switch {
	case cmd == nil:
		return ErrUnknownCommand
	case cmd.Parent != nil:
		return ErrFirstArgOfSub
	case sub == "", strings.ContainsAny(sub, " \t\n\v\f\r"):
		// A first argument with white space is refused: ACL SAVE writes
		// rules as they are, one user per line, so Redis 7.0 accepts
		// `+ping|a\nb` and then writes an aclfile it cannot load.
		return ErrSyntax
	case cmd.Subs != nil:
		full := catalogue.LookupListedOn(name, s.surface)
		if full == nil {
			return ErrUnknownCommand
		}
		s.changePerm(full, true)
	default:
		for _, a := range s.firstArgs[cmd.ID] {
			if strings.EqualFold(a, sub) {
				return nil
			}
		}
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		s.firstArgs[cmd.ID] = append(s.firstArgs[cmd.ID], sub)
	}
	return nil
}
