package acl

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// describeSelectorCommands is the shortest-looking rule list that
// recreates s's command bitmap, computed as Redis does: start from +@all
// or -@all, greedily apply the best matching categories, then fix single
// commands.
func (s *selector) describeSelectorCommands() string {
	var rules []string
	fake := newSelector(false, false, s.surface)
	additive := !s.future
	if additive {
		rules = append(rules, "-@all")
		fake.setAll(false)
	} else {
		rules = append(rules, "+@all")
		fake.setAll(true)
	}
	temp := &selector{bits: s.bits}
	applied := make([]bool, len(commands.CategoryNames))
	for {
		best := -1
		var minDiff, maxSame = int(^uint(0) >> 1), 0
		for j := range commands.CategoryNames {
			if applied[j] {
				continue
			}
			on, off := 0, 0
			for _, cmd := range catalogue.ListedOn(s.surface) {
				if cmd.Categories&(1<<j) != 0 {
					if temp.bits.get(cmd.ID) {
						on++
					} else {
						off++
					}
				}
			}
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		fake.changeCategory(1<<best, additive)
		temp.changeCategory(1<<best, !additive)
		sign := "-@"
		if additive {
			sign = "+@"
		}
		rules = append(rules, sign+commands.CategoryNames[best])
		applied[best] = true
	}
	for _, top := range catalogue.Tops() {
		rules = s.describeSingle(fake, top, rules)
	}
	return strings.Join(rules, " ")
}

func (s *selector) describeSingle(fake *selector, cmd *commands.Spec, rules []string) []string {
	user, want := s.bits.get(cmd.ID), fake.bits.get(cmd.ID)
	if user != want {
		if user {
			rules = append(rules, "+"+cmd.Name)
		} else {
			rules = append(rules, "-"+cmd.Name)
		}
		fake.changePerm(cmd, user)
	}
	for _, sub := range cmd.ListedSubsOn(s.surface) {
		rules = s.describeSingle(fake, sub, rules)
	}
	if !user {
		for _, a := range s.firstArgs[cmd.ID] {
			rules = append(rules, "+"+cmd.Name+"|"+a)
		}
	}
	return rules
}

func (p keyPattern) String() string {
	switch p.perm {
	case keyRead:
		return "%R~" + p.pattern
	case keyWrite:
		return "%W~" + p.pattern
	}
	return "~" + p.pattern
}

// describe returns s as ACL rules: keys, channels, commands.
func (s *selector) describe() []string {
	var out []string
	if s.allKeys {
		out = append(out, "~*")
	} else {
		for _, k := range s.keys {
			out = append(out, k.String())
		}
	}
	if s.allChannels {
		out = append(out, "&*")
	} else {
		out = append(out, "resetchannels")
		for _, c := range s.channels {
			out = append(out, "&"+c)
		}
	}
	return append(out, s.describeSelectorCommands())
}

// flagNames are the user flags in Redis's order (ACL LIST, ACL GETUSER).
func (usr *user) flagNames() []string {
	var out []string
	if usr.enabled {
		out = append(out, "on")
	} else {
		out = append(out, "off")
	}
	if usr.nopass {
		out = append(out, "nopass")
	}
	switch usr.sanitize {
	case sanitizeSkip:
		out = append(out, "skip-sanitize-payload")
	case sanitizeOn:
		out = append(out, "sanitize-payload")
	}
	return out
}

// rules returns the user as the rule list of a `user` directive (without
// the name): flags, password hashes, root rules, then each selector as
// one `(...)` argument.
func (usr *user) rules() []string {
	out := usr.flagNames()
	for _, p := range usr.passwords {
		out = append(out, "#"+p)
	}
	for _, s := range usr.selectors {
		d := s.describe()
		if s.root {
			// The command rules are one string of words separated by
			// single spaces; a first argument may hold other white space
			// (`+ping|\f0`), which must stay in its word.
			out = append(out, d[:len(d)-1]...)
			for _, w := range strings.Split(d[len(d)-1], " ") {
				if w != "" {
					out = append(out, w)
				}
			}
		} else {
			out = append(out, "("+strings.Join(d, " ")+")")
		}
	}
	return out
}

// describe is the user as ACL LIST shows it after `user <name> `.
func (usr *user) describe() string { return strings.Join(usr.rules(), " ") }

// info is s as ACL GETUSER shows it: keys and channels as one string
// each ("~*" and "&*" for all), and the command rules.
func (s *selector) info() SelectorInfo {
	keys := "~*"
	if !s.allKeys {
		parts := make([]string, len(s.keys))
		for i, k := range s.keys {
			parts[i] = k.String()
		}
		keys = strings.Join(parts, " ")
	}
	chans := "&*"
	if !s.allChannels {
		parts := make([]string, len(s.channels))
		for i, c := range s.channels {
			parts[i] = "&" + c
		}
		chans = strings.Join(parts, " ")
	}
	return SelectorInfo{Commands: s.describeSelectorCommands(), Keys: keys, Channels: chans}
}
