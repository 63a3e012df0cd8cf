package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// This file defines the entries of the directive table, in the spirit of
// Redis 7.0.15's standardConfig: one entry per directive holds its name and
// alias, how its value is validated (with Redis's exact messages), the
// Server field it sets with its default, how the rewrite writes it and how
// `go-sentinel check` shows it. Parsing, rewriting, Format and the SENTINEL
// CONFIG GET/SET exposure are all driven by the table (directiveTable);
// nothing else spells a directive out.

// dirKind is the grammar of a directive: a standard config of one of
// Redis's value types, a line loadServerConfigFromString handles itself, or
// a deprecated name that is accepted and ignored.
type dirKind uint8

const (
	kindBool dirKind = iota
	kindString
	kindEnum
	kindNumber
	kindSpecial
	// kindLoader is a line Redis's config loader handles itself (include,
	// rename-command, user, loadmodule, sentinel): a bad word count is
	// "Bad directive or wrong number of arguments".
	kindLoader
	// kindDeprecated is accepted and ignored with exactly argc words, and
	// unknown to the rewrite (its lines become "# ???" comments).
	kindDeprecated
)

// numFlags are the accepted spellings of a numeric directive.
type numFlags uint8

const (
	numMemory numFlags = 1 << iota
	numPercent
	numOctal
)

// directive is one entry of the directive table.
type directive struct {
	name  string
	alias string
	kind  dirKind
	// multi directives take several values (a single value with spaces,
	// as "--bind '1.2.3.4 5.6.7.8'" gives, is split again).
	multi    bool
	enum     []string
	flags    numFlags
	unsigned bool
	// Bounds of a number: ulo..uhi when unsigned, lo..hi otherwise.
	lo, hi   int64
	ulo, uhi uint64
	// check validates the value(s) beyond the type; it returns Redis's
	// message or "".
	check func(args []string) string
	// argc is the word count (directive included) a loader or deprecated
	// directive accepts: exactly argc when > 0, at least -argc when < 0,
	// any when 0.
	argc int

	// set stores the validated values into the Server field the directive
	// owns; nil for a directive that is accepted and ignored.
	set func(s *Server, args []string)
	// get returns the field's value as the config words that set would
	// store it from (nil for a multi directive set to no value).
	get func(s *Server) []string
	// def is the Sentinel's default of the field, as the value text of a
	// config line (split into words for multi directives).
	def string
	// rewriteDef, when not "", is the default the rewrite compares with
	// instead of def: Redis's own, for the directives whose Sentinel
	// default Redis changes at start-up (port, protected-mode), which
	// the rewrite therefore always writes.
	rewriteDef string
	// dropDefault directives have no line at all at their default: the
	// rewrite removes their old lines (Redis's NULL strings, and bind).
	dropDefault bool
	// each returns the words of each line of a repeated directive (user,
	// rename-command), for Format and the rewrite.
	each func(s *Server) [][]string

	// apply handles a line the parser acts on itself (dir, include,
	// rename-command, user, loadmodule, sentinel), once its words were
	// validated. It returns Redis's message for a bad line, or an error
	// that already carries its position (from an included file).
	apply func(p *parser, l Line, args []string, depth int) (string, error)
	// rewrite replaces the standard rewrite of the directive (dir, user,
	// sentinel); nil with set nil means the rewrite keeps its lines as
	// they are.
	rewrite func(st *rewriteState, in *rewriteInput)

	// secret values are shown as ****** by Format; mask, when set, hides
	// the secret words of a repeated directive instead.
	secret bool
	mask   func(words []string) []string
	// runtime directives are also read and changed by SENTINEL CONFIG
	// GET/SET on the 7.2 command surface (only loglevel; the `sentinel`
	// globals belong to the core).
	runtime bool
	// extension marks a go-sentinel directive Redis 7.0 does not have.
	extension bool
	// since is the first command surface whose servers know the
	// directive (Valkey 8's enable-debug-assert: Surface72); a
	// configuration that selects an earlier surface refuses it, as
	// Redis 7.0.15 does (checkSurface).
	since commands.Surface
}

const (
	intMax   = math.MaxInt32
	intMin   = math.MinInt32
	longMax  = math.MaxInt64
	llongMax = math.MaxInt64
	uintMax  = math.MaxUint32
)

func boolDir(name, alias string) directive {
	return directive{name: name, alias: alias, kind: kindBool}
}

func strDir(name, alias string) directive {
	return directive{name: name, alias: alias, kind: kindString}
}

func enumDir(name string, values ...string) directive {
	return directive{name: name, kind: kindEnum, enum: values}
}

func intDir(name, alias string, lo, hi int64, flags numFlags) directive {
	return directive{name: name, alias: alias, kind: kindNumber, lo: lo, hi: hi, flags: flags}
}

func uintDir(name, alias string, lo, hi uint64, flags numFlags) directive {
	return directive{name: name, alias: alias, kind: kindNumber, unsigned: true, ulo: lo, uhi: hi, flags: flags}
}

func specialDir(name, alias string, multi bool, check func([]string) string) directive {
	return directive{name: name, alias: alias, kind: kindSpecial, multi: multi, check: check}
}

func loaderDir(name string, argc int, apply func(p *parser, l Line, args []string, depth int) (string, error)) directive {
	return directive{name: name, kind: kindLoader, argc: argc, apply: apply}
}

func deprecatedDir(name string) directive {
	return directive{name: name, kind: kindDeprecated, argc: 2}
}

func withCheck(d directive, check func(string) string) directive {
	d.check = func(args []string) string { return check(args[0]) }
	return d
}

// Field bindings: each ties a directive to the Server field it owns, with
// the field's default as config text.

// boolField binds a yes/no directive to a bool field.
func (d directive) boolField(f func(*Server) *bool, def string) directive {
	d.def = def
	d.set = func(s *Server, a []string) { *f(s) = yesNo(a[0]) == 1 }
	d.get = func(s *Server) []string { return []string{settings.YesNoText(*f(s))} }
	return d
}

// intField binds a number directive to an int field; the value is clamped
// to lo..hi when they differ from the accepted bounds (hz).
func (d directive) intField(f func(*Server) *int, def string) directive {
	d.def = def
	d.set = func(s *Server, a []string) { v, _ := d.parseNumber(a[0]); *f(s) = int(v) }
	d.get = func(s *Server) []string { return []string{strconv.Itoa(*f(s))} }
	return d
}

// clamp makes an int directive store its value clamped to lo..hi, as
// Redis does for hz.
func (d directive) clamp(f func(*Server) *int, lo, hi int64) directive {
	set := d.set
	d.set = func(s *Server, a []string) {
		set(s, a)
		*f(s) = int(min(max(int64(*f(s)), lo), hi))
	}
	return d
}

// octalField binds an octal number directive (unixsocketperm) to a
// uint32 field; the rewrite writes it in octal.
func (d directive) octalField(f func(*Server) *uint32, def string) directive {
	d.def = def
	d.set = func(s *Server, a []string) { v, _ := d.parseNumber(a[0]); *f(s) = uint32(v) }
	d.get = func(s *Server) []string { return []string{strconv.FormatUint(uint64(*f(s)), 8)} }
	return d
}

// enumField binds an enum directive to a string field holding the value
// lower-cased; an empty field counts as the default.
func (d directive) enumField(f func(*Server) *string, def string) directive {
	d.def = def
	d.set = func(s *Server, a []string) { *f(s) = strings.ToLower(a[0]) }
	d.get = func(s *Server) []string {
		if v := *f(s); v != "" {
			return []string{v}
		}
		return []string{def}
	}
	return d
}

// stringField binds a string directive to a string field. A nullable
// string is unset when empty: the rewrite then drops its lines.
func (d directive) stringField(f func(*Server) *string, def string, nullable bool) directive {
	d.def = def
	d.dropDefault = nullable
	d.set = func(s *Server, a []string) { *f(s) = a[0] }
	d.get = func(s *Server) []string { return []string{*f(s)} }
	return d
}

// index maps every name and alias, lower-case, to its entry of
// directiveTable. It is built by init: the table refers to the parser,
// which looks directives up.
var directiveIndex map[string]*directive

func init() {
	directiveIndex = make(map[string]*directive, 2*len(directiveTable))
	for i := range directiveTable {
		d := &directiveTable[i]
		for _, n := range []string{d.name, d.alias} {
			if n == "" {
				continue
			}
			if directiveIndex[n] != nil {
				panic("config: directive " + n + " defined twice")
			}
			directiveIndex[n] = d
		}
	}
}

// lookupDirective returns the directive called name (lower-case), or nil.
func lookupDirective(name string) *directive {
	return directiveIndex[name]
}

// knownForRewrite reports whether the rewrite engine keeps a line starting
// with this (lower-case) word as a directive rather than turning it into a
// "# ???" comment: every directive but the deprecated ones.
func knownForRewrite(name string) bool {
	d := lookupDirective(name)
	return d != nil && d.kind != kindDeprecated
}

// words returns the values of a line of d: argv without the directive
// name, a single value of a multi directive split again.
func (d *directive) words(argv []string) []string {
	vals := argv[1:]
	if d.multi && len(argv) == 2 && argv[1] != "" {
		// "--bind '1.2.3.4 5.6.7.8'" style: split the single value.
		vals, _ = splitargs.Split(argv[1])
	}
	return vals
}

// arityMessage returns Redis's message when a line of d has the wrong
// number of words (argc, the directive included), or "".
func (d *directive) arityMessage(argc int) string {
	switch d.kind {
	case kindLoader, kindDeprecated:
		if (d.argc > 0 && argc != d.argc) || (d.argc < 0 && argc < -d.argc) {
			return msgBadDirective
		}
	default:
		if !d.multi && argc != 2 {
			return "wrong number of arguments"
		}
	}
	return ""
}

// msgBadDirective is Redis's message for an unknown directive or a
// loader directive with the wrong number of words.
const msgBadDirective = "Bad directive or wrong number of arguments"

// defaultWords returns the words of d's default value.
func (d *directive) defaultWords() []string {
	if !d.multi {
		return []string{d.def}
	}
	w, _ := splitargs.Split(d.def)
	return w
}

// validate checks the value words of a standard directive (after the
// multi-argument splitting) and returns Redis' error message or "".
func (d *directive) validate(args []string) string {
	switch d.kind {
	case kindBool:
		if yesNo(args[0]) < 0 {
			return "argument must be 'yes' or 'no'"
		}
	case kindEnum:
		if len(args) == 0 || (!d.multi && len(args) != 1) {
			return d.enumError()
		}
		for _, a := range args {
			if !containsFold(d.enum, a) {
				return d.enumError()
			}
		}
	case kindNumber:
		if _, msg := d.parseNumber(args[0]); msg != "" {
			return msg
		}
	}
	if d.check != nil {
		return d.check(args)
	}
	return ""
}

func (d *directive) enumError() string {
	return "argument(s) must be one of the following: " + strings.Join(d.enum, ", ")
}

// parseNumber parses a numeric directive's value the way numericConfigSet
// does and checks its bounds.
func (d *directive) parseNumber(v string) (int64, string) {
	ll, ok := int64(0), false
	if d.flags&numMemory != 0 {
		var u uint64
		if u, ok = memtoull(v); ok {
			ll = int64(u)
		}
	}
	if !ok && d.flags&numPercent != 0 && len(v) > 1 && v[len(v)-1] == '%' {
		if n, ok2 := string2ll(v[:len(v)-1]); ok2 && n >= 0 {
			ll, ok = -n, true
		}
	}
	if !ok && d.flags&numOctal != 0 {
		i, neg := cPrefix(v)
		u, overflow, end := cDigits(v, i, 8)
		if end == len(v) && !overflow && u <= math.MaxInt64 {
			ll, ok = int64(u), true
			if neg {
				ll = -ll
			}
		}
	}
	if !ok && d.flags == 0 {
		ll, ok = string2ll(v)
	}
	if !ok {
		switch {
		case d.flags&numMemory != 0 && d.flags&numPercent != 0:
			return 0, "argument must be a memory or percent value"
		case d.flags&numMemory != 0:
			return 0, "argument must be a memory value"
		case d.flags&numOctal != 0:
			return 0, "argument couldn't be parsed as an octal number"
		}
		return 0, "argument couldn't be parsed into an integer"
	}
	if d.unsigned {
		u := uint64(ll)
		if u < d.ulo || u > d.uhi {
			if d.flags&numOctal != 0 {
				return 0, fmt.Sprintf("argument must be between %o and %o inclusive", d.ulo, d.uhi)
			}
			return 0, fmt.Sprintf("argument must be between %d and %d inclusive", d.ulo, d.uhi)
		}
		return ll, ""
	}
	if d.flags&numPercent != 0 && ll < 0 {
		if ll < d.lo {
			return 0, fmt.Sprintf("percentage argument must be less or equal to %d", -d.lo)
		}
		return ll, ""
	}
	if ll < d.lo || ll > d.hi {
		return 0, fmt.Sprintf("argument must be between %d and %d inclusive", d.lo, d.hi)
	}
	return ll, ""
}

// rewriteText returns the value words of a line as the rewrite writes
// them: strings always quoted (sdscatrepr), the words of a multi directive
// quoted when needed, `""` for a multi directive without words, anything
// else as is.
func (d *directive) rewriteText(w []string) string {
	switch {
	case d.kind == kindString:
		return splitargs.Repr(w[0])
	case d.multi && len(w) == 0:
		return `""`
	case d.multi:
		return quoteWords(w)
	}
	return w[0]
}

// showText returns the value words as Format shows them: strings quoted
// when needed and `""` when empty, octal numbers with a leading 0,
// secrets masked.
func (d *directive) showText(w []string) string {
	switch {
	case d.secret && w[0] == "":
		return "(not set)"
	case d.secret:
		return secretMask
	case d.kind == kindString && w[0] == "":
		return `""`
	case d.kind == kindString:
		return splitargs.Quote(w[0])
	case d.multi && len(w) == 0:
		return `""`
	case d.multi:
		return quoteWords(w)
	case d.flags&numOctal != 0:
		return "0" + w[0]
	}
	return w[0]
}

// yesNo is Redis' yesnotoi: 1 for "yes", 0 for "no" (case-insensitive),
// -1 otherwise.
func yesNo(s string) int {
	switch {
	case strings.EqualFold(s, "yes"):
		return 1
	case strings.EqualFold(s, "no"):
		return 0
	}
	return -1
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(v string) bool { return strings.EqualFold(v, s) })
}

// quoteWords joins words with spaces, quoting those that need it.
func quoteWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = splitargs.Quote(w)
	}
	return strings.Join(q, " ")
}
