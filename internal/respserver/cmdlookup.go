package respserver

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// The catalogue finds a command by a lower-cased copy of its name, which
// costs an allocation for every command sent in capitals (as most clients
// send them). lookup instead lower-cases a name of ASCII letters into a
// buffer on the stack and finds it in tables made from the catalogue's
// own answers; any other name is looked up by the catalogue, so the
// answer is always the catalogue's.

// maxFastName bounds the names the tables are used for: the longest
// command or subcommand name fits.
const maxFastName = 32

// topCommands maps each top-level command's name to catalogue.Top's
// answer for it; subCommands maps a container, then a subcommand's name
// (the part after the `|`), to the container's Sub answer.
var (
	topCommands = map[string]*commands.Spec{}
	subCommands = map[*commands.Spec]map[string]*commands.Spec{}
)

func init() {
	for _, s := range catalogue.All() {
		if s.Parent == nil {
			if t := catalogue.Top(s.Name); t != nil {
				topCommands[s.Name] = t
			}
			continue
		}
		_, name, _ := strings.Cut(s.Name, "|")
		if sub := s.Parent.Sub(name); sub != nil {
			if subCommands[s.Parent] == nil {
				subCommands[s.Parent] = map[string]*commands.Spec{}
			}
			subCommands[s.Parent][name] = sub
		}
	}
}

// lowerASCII writes name lower-cased into buf and returns it, or false
// when name is longer than buf or holds a byte that is not ASCII.
func lowerASCII(buf *[maxFastName]byte, name []byte) ([]byte, bool) {
	if len(name) > len(buf) {
		return nil, false
	}
	for i, c := range name {
		if c >= 0x80 {
			return nil, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(name)], true
}

// topCommand is catalogue.Top(string(name)).
func topCommand(name []byte) *commands.Spec {
	var buf [maxFastName]byte
	if low, ok := lowerASCII(&buf, name); ok {
		if s, ok := topCommands[string(low)]; ok {
			return s
		}
	}
	return catalogue.Top(string(name))
}

// subCommand is parent.Sub(string(name)).
func subCommand(parent *commands.Spec, name []byte) *commands.Spec {
	var buf [maxFastName]byte
	if low, ok := lowerASCII(&buf, name); ok {
		if s, ok := subCommands[parent][string(low)]; ok {
			return s
		}
	}
	return parent.Sub(string(name))
}
