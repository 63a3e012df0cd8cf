package acl

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// sanitize is the user's sanitize-payload setting (shown, never used: a
// Sentinel has no RESTORE).
type sanitize uint8

const (
	sanitizeUnset sanitize = iota
	sanitizeSkip
	sanitizeOn
)

// user is one ACL user. Passwords are kept as lower-case hex SHA-256
// digests, in the order they were added, as Redis keeps them.
type user struct {
	name      string
	enabled   bool
	nopass    bool
	sanitize  sanitize
	passwords []string
	selectors []*selector // selectors[0] is the root selector
}

func newUser(name string, allChannels bool, sf commands.Surface) *user {
	return &user{name: name, selectors: []*selector{newSelector(true, allChannels, sf)}}
}

func (usr *user) clone() *user {
	c := *usr
	c.passwords = append([]string(nil), usr.passwords...)
	c.selectors = make([]*selector, len(usr.selectors))
	for i, s := range usr.selectors {
		c.selectors[i] = s.clone()
	}
	return &c
}

func hashPassword(p string) string {
	d := sha256.Sum256([]byte(p))
	return hex.EncodeToString(d[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !(h[i] >= '0' && h[i] <= '9' || h[i] >= 'a' && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// apply applies one rule of ACL SETUSER to usr. allChannels is the
// acl-pubsub-default of new selectors and of `reset`.
func (usr *user) apply(op string, allChannels bool) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		usr.enabled = true
	case strings.EqualFold(op, "off"):
		usr.enabled = false
	case strings.EqualFold(op, "skip-sanitize-payload"):
		usr.sanitize = sanitizeSkip
	case strings.EqualFold(op, "sanitize-payload"):
		usr.sanitize = sanitizeOn
	case strings.EqualFold(op, "nopass"):
		usr.nopass, usr.passwords = true, nil
	case strings.EqualFold(op, "resetpass"):
		usr.nopass, usr.passwords = false, nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = hashPassword(op[1:])
		} else if !validHash(h) {
			return ErrBadHash
		}
		found := false
		for _, p := range usr.passwords {
			found = found || p == h
		}
		if !found {
			usr.passwords = append(usr.passwords, h)
		}
		usr.nopass = false
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = hashPassword(op[1:])
		} else if !validHash(h) {
			return ErrBadHash
		}
		for i, p := range usr.passwords {
			if p == h {
				usr.passwords = append(usr.passwords[:i:i], usr.passwords[i+1:]...)
				return nil
			}
		}
		return ErrNoSuchPassword
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(false, allChannels, usr.selectors[0].surface)
		ops, err := splitargs.Split(op[1 : len(op)-1])
		if err != nil {
			ops = nil // sdssplitargs fails: Redis adds an empty selector
		}
		for _, o := range ops {
			if o == "" {
				continue
			}
			if strings.HasSuffix(o, ")") {
				return ErrSelectorParen
			}
			if err := s.apply(o); err != nil {
				return err
			}
		}
		usr.selectors = append(usr.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		usr.selectors = usr.selectors[:1]
	case strings.EqualFold(op, "reset"):
		usr.nopass, usr.passwords = false, nil
		root := usr.selectors[0]
		root.allKeys, root.keys = false, nil
		root.allChannels, root.channels = allChannels, nil
		usr.enabled = false
		usr.sanitize = sanitizeOn
		usr.selectors = usr.selectors[:1]
		root.setAll(false)
	default:
		return usr.selectors[0].apply(op)
	}
	return nil
}

// mergeSelectorArgs joins rules that spread one `(...)` selector over
// several arguments. It returns the index of an unmatched `(` on error.
func mergeSelectorArgs(rules []string) ([]string, int, bool) {
	var out []string
	open := -1
	var cur string
	for j, op := range rules {
		if open < 0 && strings.HasPrefix(op, "(") && !strings.HasSuffix(op, ")") {
			cur, open = op, j
			continue
		}
		if open >= 0 {
			cur += " " + op
			if strings.HasSuffix(op, ")") {
				out = append(out, cur)
				open = -1
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, open, false
	}
	return out, 0, true
}
