// Package commands is the catalogue of the commands a Sentinel answers:
// each command and subcommand once, with its arity, flags, ACL categories
// and documentation, as Redis's src/commands/*.json describe them. COMMAND
// and its subcommands, dispatch (existence and arity errors), CLIENT
// PAUSE and every ACL rule and check read it; the RESP server binds a
// handler to each entry by its full name.
//
// No Sentinel command takes keys: every entry's key specs are empty, so
// COMMAND INFO reports first/last/step 0 and no key specs, and COMMAND
// GETKEYS always finds no keys.
package commands

import (
	"fmt"
	"sort"
	"strings"
)

// Arg documents one argument of a command (COMMAND DOCS arguments).
type Arg struct {
	Name, Type, Token, Since, DeprecatedSince string
	Flags                                     ArgFlag
	// Args are the members of a "oneof" or "block" argument.
	Args []Arg
}

// Spec is one command or subcommand. The fields above ID are data; New
// fills in the rest.
type Spec struct {
	// Name is the full lower-case name: `ping`, `sentinel|masters`.
	Name string
	// Arity counts the arguments including the name(s): n > 0 means
	// exactly n, n < 0 at least -n.
	Arity int
	// ExtensionArgs is how many optional arguments beyond Redis 7.0.15's
	// fixed Arity go-sentinel accepts (SENTINEL FAILOVER's COORDINATED,
	// from Valkey 9); COMMAND shows 7.0.15's arity and arguments.
	ExtensionArgs int
	Flags         Flag
	// Categories are the ACL categories; New adds the ones Redis derives
	// from the flags to those written in the data.
	Categories Category
	Tips       []string
	Summary    string
	Since      string
	Group      string
	Complexity string
	DocFlags   DocFlag
	// DeprecatedSince and ReplacedBy are set for deprecated commands.
	DeprecatedSince, ReplacedBy string
	// History is a list of (version, change) pairs.
	History [][2]string
	Args    []Arg

	// ID is the entry's index in All(), the bit ACL rules work on. An
	// alias has the ID of the command it stands for.
	ID int
	// Parent is the container of a subcommand, nil for a top-level one.
	Parent *Spec
	// Subs are a container's subcommands in name order; nil for others.
	Subs []*Spec
	// AliasOf is set on a hidden alias: the command whose arity, flags,
	// permissions and handler it shares.
	AliasOf *Spec
	// Unlisted commands run and are permission-checked like any other,
	// but COMMAND, ACL CAT and ACL rules do not know them on any surface:
	// go-sentinel's own SENTINEL EXPLAIN, so that COMMAND's output stays
	// Redis's, byte for byte (its test suites count the entries).
	Unlisted bool
	// ListedFrom is the first command surface whose COMMAND lists the
	// command (7.2's CLIENT SETINFO); on the surfaces before it the
	// command runs but is unlisted, as Unlisted ones are.
	ListedFrom Surface
	// Arity72 is the arity on Surface72 when it differs from Arity
	// (SENTINEL CONFIG's -4 of Redis 7.2); 0 when it does not.
	Arity72 int

	subByName map[string]*Spec // Subs and aliases by short name
}

// ArityOK reports whether a command line of n arguments (name included)
// fits s's arity on Surface70.
func (s *Spec) ArityOK(n int) bool { return s.ArityOKOn(n, Surface70) }

// ArityOn returns s's arity on surface sf, as COMMAND INFO shows it.
func (s *Spec) ArityOn(sf Surface) int {
	if sf >= Surface72 && s.Arity72 != 0 {
		return s.Arity72
	}
	return s.Arity
}

// ArityOKOn reports whether a command line of n arguments (name
// included) fits s's arity on surface sf.
func (s *Spec) ArityOKOn(n int, sf Surface) bool {
	a := s.ArityOn(sf)
	if a > 0 {
		return n >= a && n <= a+s.ExtensionArgs
	}
	return n >= -a
}

// ListedOn reports whether COMMAND lists s on surface sf.
func (s *Spec) ListedOn(sf Surface) bool { return !s.Unlisted && s.ListedFrom <= sf }

// Sub returns the subcommand of container s called name
// (case-insensitive), aliases included, or nil.
func (s *Spec) Sub(name string) *Spec {
	return s.subByName[strings.ToLower(name)]
}

// Canonical returns the command an alias stands for, or s itself.
func (s *Spec) Canonical() *Spec {
	if s.AliasOf != nil {
		return s.AliasOf
	}
	return s
}

// Catalogue is a static command set.
type Catalogue struct {
	all    []*Spec // COMMAND LIST order: each top, then its subs
	tops   []*Spec
	byName map[string]*Spec // visible commands by full name
}

// New builds a catalogue from specs (in any order) and aliases (hidden
// full names mapped to the visible full name they stand for). Entries
// are ordered by name, each container followed by its subcommands, and
// numbered in that order. It panics on inconsistent data (a duplicate, a
// subcommand without its container, an alias of nothing), which the
// package's tests rule out for Sentinel.
func New(specs []Spec, aliases map[string]string) *Catalogue {
	sorted := make([]*Spec, len(specs))
	for i := range specs {
		sorted[i] = &specs[i]
	}
	sort.Slice(sorted, func(i, j int) bool {
		ti, si, _ := strings.Cut(sorted[i].Name, "|")
		tj, sj, _ := strings.Cut(sorted[j].Name, "|")
		if ti != tj {
			return ti < tj
		}
		return si < sj
	})
	cat := &Catalogue{byName: map[string]*Spec{}}
	for _, s := range sorted {
		if cat.byName[s.Name] != nil || s.Name != strings.ToLower(s.Name) {
			panic(fmt.Sprintf("commands: bad or duplicate name %q", s.Name))
		}
		s.ID = len(cat.all)
		s.Categories |= implicitCategories(s.Flags, s.Categories)
		if top, sub, ok := strings.Cut(s.Name, "|"); ok {
			parent := cat.byName[top]
			if parent == nil || parent.Parent != nil {
				panic(fmt.Sprintf("commands: %s has no container", s.Name))
			}
			s.Parent = parent
			parent.Subs = append(parent.Subs, s)
			if parent.subByName == nil {
				parent.subByName = map[string]*Spec{}
			}
			parent.subByName[sub] = s
		} else {
			cat.tops = append(cat.tops, s)
		}
		cat.all = append(cat.all, s)
		cat.byName[s.Name] = s
	}
	for name, of := range aliases {
		target := cat.byName[of]
		top, sub, _ := strings.Cut(name, "|")
		parent := cat.byName[top]
		if target == nil || target.Parent == nil || target.Parent != parent || parent.subByName[sub] != nil {
			panic(fmt.Sprintf("commands: bad alias %s of %s", name, of))
		}
		alias := *target
		alias.Name, alias.AliasOf = name, target
		parent.subByName[sub] = &alias
	}
	return cat
}

// All returns every visible command and subcommand, each container
// followed by its subcommands (COMMAND LIST's order).
func (cat *Catalogue) All() []*Spec { return cat.all }

// Tops returns the top-level commands (what COMMAND and COMMAND COUNT
// report).
func (cat *Catalogue) Tops() []*Spec { return cat.tops }

// Listed returns All without the commands Surface70 does not list: what
// COMMAND LIST and ACL CAT show and ACL rules may name.
func (cat *Catalogue) Listed() []*Spec { return cat.ListedOn(Surface70) }

// ListedOn returns All without the commands surface sf does not list.
func (cat *Catalogue) ListedOn(sf Surface) []*Spec { return listed(cat.all, sf) }

// ListedSubs returns a container's subcommands that Surface70 lists, nil
// for a command that is not a container.
func (s *Spec) ListedSubs() []*Spec { return s.ListedSubsOn(Surface70) }

// ListedSubsOn returns a container's subcommands that surface sf lists,
// nil for a command that is not a container.
func (s *Spec) ListedSubsOn(sf Surface) []*Spec {
	if s.Subs == nil {
		return nil
	}
	return listed(s.Subs, sf)
}

// LookupListed is LookupFull for what COMMAND and ACL rules may name on
// Surface70: a command it does not list is not found.
func (cat *Catalogue) LookupListed(name string) *Spec { return cat.LookupListedOn(name, Surface70) }

// LookupListedOn is LookupFull for what COMMAND may name on surface sf.
func (cat *Catalogue) LookupListedOn(name string, sf Surface) *Spec {
	if s := cat.LookupFull(name); s != nil && s.ListedOn(sf) {
		return s
	}
	return nil
}

func listed(specs []*Spec, sf Surface) []*Spec {
	out := make([]*Spec, 0, len(specs))
	for _, s := range specs {
		if s.ListedOn(sf) {
			out = append(out, s)
		}
	}
	return out
}

// Top returns the top-level command called name (case-insensitive), as
// dispatch looks up a command line's first argument: a `|` form names
// nothing.
func (cat *Catalogue) Top(name string) *Spec {
	s := cat.byName[strings.ToLower(name)]
	if s == nil || s.Parent != nil {
		return nil
	}
	return s
}

// LookupFull finds a visible command by full name (`ping`,
// `sentinel|masters`, case-insensitive), as Redis's lookupCommandBySds
// does: a `|` form only names a subcommand of a container.
func (cat *Catalogue) LookupFull(name string) *Spec {
	parts := strings.Split(strings.ToLower(name), "|")
	switch len(parts) {
	case 1:
		return cat.Top(parts[0])
	case 2:
		base := cat.Top(parts[0])
		if base == nil || base.Subs == nil {
			return nil
		}
		return cat.byName[parts[0]+"|"+parts[1]]
	}
	return nil
}

// LookupArgs finds the visible command a command line runs, as Redis's
// lookupCommand does: the second argument picks a subcommand only for
// containers, and a container given alone is returned itself.
func (cat *Catalogue) LookupArgs(args []string) *Spec {
	if len(args) == 0 {
		return nil
	}
	base := cat.Top(args[0])
	if base == nil || len(args) == 1 || base.Subs == nil {
		return base
	}
	return cat.byName[base.Name+"|"+strings.ToLower(args[1])]
}
