package respserver

import (
	"math"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/glob"
)

// specFlag is one of Redis's command flags (COMMAND INFO's third field,
// plus the hidden ones the server itself looks at).
type specFlag uint32

// The command flags Sentinel's commands carry in Redis 7.0.
const (
	cmdWrite specFlag = 1 << iota
	cmdReadonly
	cmdDenyOOM
	cmdAdmin
	cmdPubsub
	cmdNoscript
	cmdBlocking
	cmdLoading
	cmdStale
	cmdFast
	cmdNoAuth
	cmdNoMulti
	cmdAllowBusy
	// cmdMayReplicate commands are held by CLIENT PAUSE WRITE. Hidden.
	cmdMayReplicate
	// cmdSentinel and cmdOnlySentinel decide registration. Hidden.
	cmdSentinel
	cmdOnlySentinel
)

// specFlagNames lists the visible flags in the order Redis 7.0 prints them.
var specFlagNames = []struct {
	flag specFlag
	name string
}{
	{cmdWrite, "write"}, {cmdReadonly, "readonly"}, {cmdDenyOOM, "denyoom"},
	{cmdAdmin, "admin"}, {cmdPubsub, "pubsub"}, {cmdNoscript, "noscript"},
	{cmdBlocking, "blocking"}, {cmdLoading, "loading"}, {cmdStale, "stale"},
	{cmdFast, "fast"}, {cmdNoAuth, "no_auth"}, {cmdNoMulti, "no_multi"},
	{cmdAllowBusy, "allow_busy"},
}

// aclCategory is a bit set of ACL categories; bit i is aclCategoryNames[i].
type aclCategory uint32

// The ACL categories, in Redis's order (ACL CAT, COMMAND INFO).
const (
	catKeyspace aclCategory = 1 << iota
	catRead
	catWrite
	catSet
	catSortedset
	catList
	catHash
	catString
	catBitmap
	catHyperloglog
	catGeo
	catStream
	catPubsub
	catAdmin
	catFast
	catSlow
	catBlocking
	catDangerous
	catConnection
	catTransaction
	catScripting
)

// aclCategoryNames are the category names; index i names bit 1<<i.
var aclCategoryNames = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// categoryByName returns the category called name (case-insensitive), or 0.
func categoryByName(name string) aclCategory {
	for i, n := range aclCategoryNames {
		if strings.EqualFold(n, name) {
			return 1 << i
		}
	}
	return 0
}

// docFlag is a documentation flag (COMMAND DOCS doc_flags).
type docFlag uint8

const (
	docDeprecated docFlag = 1 << iota
	docSyscmd
)

// argFlag is an argument flag (COMMAND DOCS arguments.flags).
type argFlag uint8

const (
	argOptional argFlag = 1 << iota
	argMultiple
	argMultipleToken
)

// argDoc documents one argument of a command, as the json files of the
// Redis source do.
type argDoc struct {
	name, typ, token, since, deprecatedSince string
	flags                                    argFlag
	args                                     []argDoc
}

// commandSpec is one command or subcommand of Redis 7.0.15 in Sentinel
// mode: what COMMAND reports and what ACL rules work on. None of them has
// key specs.
type commandSpec struct {
	name       string // full lower-case name, `sentinel|masters`
	arity      int
	flags      specFlag
	categories aclCategory // the json's; implicit ones are added at init
	tips       []string
	summary    string
	since      string
	group      string
	complexity string
	docFlags   docFlag
	// deprecatedSince and replacedBy are set for deprecated commands.
	deprecatedSince, replacedBy string
	history                     [][2]string
	args                        []argDoc

	id     int // index in the catalogue, the ACL bit
	parent *commandSpec
	subs   []*commandSpec
}

// catalogue is the static command set a Sentinel exposes. COMMAND, ACL
// and the permission check all read it, so what is reported never depends
// on what happens to be registered in the dispatch table.
type catalogue struct {
	all    []*commandSpec // COMMAND LIST order: each top, then its subs
	tops   []*commandSpec
	byName map[string]*commandSpec
}

// sentinelCommands is Redis 7.0.15 Sentinel's command set: 15 commands,
// 72 names with subcommands.
var sentinelCommands = newCatalogue(sentinelCommandSpecs)

// specAliases maps dispatchable names that Redis 7.0 does not have (the
// Valkey spellings) to the command whose permissions they share. They are
// hidden from COMMAND and from ACL rules.
var specAliases = map[string]string{
	"sentinel|primaries":                "sentinel|masters",
	"sentinel|primary":                  "sentinel|master",
	"sentinel|get-primary-addr-by-name": "sentinel|get-master-addr-by-name",
	"sentinel|is-primary-down-by-addr":  "sentinel|is-master-down-by-addr",
}

// newCatalogue links specs (ordered: each top-level command followed by
// its subcommands), numbers them and adds Redis's implicit categories.
func newCatalogue(specs []commandSpec) *catalogue {
	cat := &catalogue{byName: map[string]*commandSpec{}}
	for i := range specs {
		s := &specs[i]
		s.id = len(cat.all)
		s.categories |= implicitCategories(s.flags, s.categories)
		if top, _, ok := strings.Cut(s.name, "|"); ok {
			s.parent = cat.byName[top]
			s.parent.subs = append(s.parent.subs, s)
		} else {
			cat.tops = append(cat.tops, s)
		}
		cat.all = append(cat.all, s)
		cat.byName[s.name] = s
	}
	return cat
}

// implicitCategories are the categories Redis derives from the flags: the
// write, read, admin (+dangerous), pubsub, fast and blocking ones, and
// slow for whatever is not fast.
func implicitCategories(f specFlag, explicit aclCategory) aclCategory {
	var c aclCategory
	if f&cmdWrite != 0 {
		c |= catWrite
	}
	if f&cmdReadonly != 0 && explicit&catScripting == 0 {
		c |= catRead
	}
	if f&cmdAdmin != 0 {
		c |= catAdmin | catDangerous
	}
	if f&cmdPubsub != 0 {
		c |= catPubsub
	}
	if f&cmdFast != 0 {
		c |= catFast
	}
	if f&cmdBlocking != 0 {
		c |= catBlocking
	}
	if (explicit|c)&catFast == 0 {
		c |= catSlow
	}
	return c
}

// lookupFull finds a command by full name (`ping`, `sentinel|masters`,
// case-insensitive), as Redis's lookupCommandBySds does: a `|` form only
// names a subcommand of a container.
func (cat *catalogue) lookupFull(name string) *commandSpec {
	parts := strings.Split(strings.ToLower(name), "|")
	switch len(parts) {
	case 1:
		s := cat.byName[parts[0]]
		if s == nil || s.parent != nil {
			return nil
		}
		return s
	case 2:
		base := cat.byName[parts[0]]
		if base == nil || base.parent != nil || base.subs == nil {
			return nil
		}
		return cat.byName[parts[0]+"|"+parts[1]]
	}
	return nil
}

// lookupArgs finds the command a command line runs, as Redis's
// lookupCommand does: the first argument picks a subcommand only for
// containers, and a container given alone is returned itself.
func (cat *catalogue) lookupArgs(args []string) *commandSpec {
	if len(args) == 0 {
		return nil
	}
	base := cat.lookupFull(args[0])
	if base == nil || strings.Contains(args[0], "|") {
		return nil
	}
	if len(args) == 1 || base.subs == nil {
		return base
	}
	return cat.byName[base.name+"|"+strings.ToLower(args[1])]
}

// forDispatch returns the spec whose permissions a dispatched command
// (by full name) is checked against, following specAliases; nil for a
// command outside the 7.0 set.
func (cat *catalogue) forDispatch(fullname string) *commandSpec {
	if s := cat.byName[fullname]; s != nil {
		return s
	}
	if alias, ok := specAliases[fullname]; ok {
		return cat.byName[alias]
	}
	return nil
}

// setReply is a RESP3 set (`~`); RESP2 clients get an array.
type setReply []Value

func (v setReply) appendTo(b []byte, proto int) []byte {
	if proto >= 3 {
		return appendAggregate(b, '~', len(v), v, proto)
	}
	return appendAggregate(b, '*', len(v), v, proto)
}

// doubleReply is a RESP3 double (`,`); RESP2 clients get a bulk string.
// Both use C's %.17g, as Redis does.
type doubleReply float64

func (v doubleReply) appendTo(b []byte, proto int) []byte {
	var s string
	switch {
	case math.IsInf(float64(v), 1):
		s = "inf"
	case math.IsInf(float64(v), -1):
		s = "-inf"
	default:
		s = strconv.FormatFloat(float64(v), 'g', 17, 64)
	}
	if proto < 3 {
		return Bulk(s).appendTo(b, proto)
	}
	b = append(b, ',')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// commandInfo is the 10-element COMMAND INFO entry of s.
func commandInfo(s *commandSpec) Value {
	flags := setReply{}
	for _, f := range specFlagNames {
		if s.flags&f.flag != 0 {
			flags = append(flags, Status(f.name))
		}
	}
	cats := setReply{}
	for i, n := range aclCategoryNames {
		if s.categories&(1<<i) != 0 {
			cats = append(cats, Status("@"+n))
		}
	}
	tips := setReply{}
	for _, t := range s.tips {
		tips = append(tips, Bulk(t))
	}
	var subs Value = setReply{}
	if s.subs != nil {
		arr := make(Array, len(s.subs))
		for i, sub := range s.subs {
			arr[i] = commandInfo(sub)
		}
		subs = arr
	}
	return Array{Bulk(s.name), Int(s.arity), flags, Int(0), Int(0), Int(0), cats, tips, setReply{}, subs}
}

// commandDocs is the COMMAND DOCS map of s.
func commandDocs(s *commandSpec) Value {
	m := Map{}
	if s.summary != "" {
		m = append(m, Bulk("summary"), Bulk(s.summary))
	}
	if s.since != "" {
		m = append(m, Bulk("since"), Bulk(s.since))
	}
	m = append(m, Bulk("group"), Bulk(s.group))
	if s.complexity != "" {
		m = append(m, Bulk("complexity"), Bulk(s.complexity))
	}
	if s.docFlags != 0 {
		f := setReply{}
		if s.docFlags&docDeprecated != 0 {
			f = append(f, Status("deprecated"))
		}
		if s.docFlags&docSyscmd != 0 {
			f = append(f, Status("syscmd"))
		}
		m = append(m, Bulk("doc_flags"), f)
	}
	if s.deprecatedSince != "" {
		m = append(m, Bulk("deprecated_since"), Bulk(s.deprecatedSince))
	}
	if s.replacedBy != "" {
		m = append(m, Bulk("replaced_by"), Bulk(s.replacedBy))
	}
	if s.history != nil {
		h := make(setReply, len(s.history))
		for i, e := range s.history {
			h[i] = Array{Bulk(e[0]), Bulk(e[1])}
		}
		m = append(m, Bulk("history"), h)
	}
	if s.args != nil {
		m = append(m, Bulk("arguments"), argDocs(s.args))
	}
	if s.subs != nil {
		sm := make(Map, 0, 2*len(s.subs))
		for _, sub := range s.subs {
			sm = append(sm, Bulk(sub.name), commandDocs(sub))
		}
		m = append(m, Bulk("subcommands"), sm)
	}
	return m
}

func argDocs(args []argDoc) Value {
	out := make(Array, len(args))
	for i, a := range args {
		m := Map{Bulk("name"), Bulk(a.name), Bulk("type"), Bulk(a.typ)}
		if a.token != "" {
			m = append(m, Bulk("token"), Bulk(a.token))
		}
		if a.since != "" {
			m = append(m, Bulk("since"), Bulk(a.since))
		}
		if a.deprecatedSince != "" {
			m = append(m, Bulk("deprecated_since"), Bulk(a.deprecatedSince))
		}
		if a.flags != 0 {
			f := setReply{}
			for _, fl := range []struct {
				f    argFlag
				name string
			}{{argOptional, "optional"}, {argMultiple, "multiple"}, {argMultipleToken, "multiple_token"}} {
				if a.flags&fl.f != 0 {
					f = append(f, Status(fl.name))
				}
			}
			m = append(m, Bulk("flags"), f)
		}
		if a.typ == "oneof" || a.typ == "block" {
			m = append(m, Bulk("arguments"), argDocs(a.args))
		}
		out[i] = m
	}
	return out
}

// commandSubcommands are COMMAND's subcommands with Redis 7.0's arities.
func commandSubcommands() []*command {
	return []*command{
		{name: "count", handler: cmdCommandCount},
		{name: "list", handler: cmdCommandList},
		{name: "info", handler: cmdCommandInfo},
		{name: "docs", handler: cmdCommandDocs},
		{name: "getkeys", handler: cmdCommandGetKeys},
		{name: "getkeysandflags", handler: cmdCommandGetKeys},
		{name: "help", handler: cmdCommandHelp},
	}
}

// cmdCommand is COMMAND without a subcommand: the info of every command.
func cmdCommand(x *ctx) Value {
	out := make(Array, len(sentinelCommands.tops))
	for i, s := range sentinelCommands.tops {
		out[i] = commandInfo(s)
	}
	return out
}

func cmdCommandCount(x *ctx) Value { return Int(len(sentinelCommands.tops)) }

// cmdCommandList is COMMAND LIST [FILTERBY MODULE|ACLCAT|PATTERN arg].
// No module exists and an unknown category matches nothing.
func cmdCommandList(x *ctx) Value {
	var match func(*commandSpec) bool
	for i := 2; i < len(x.args); i++ {
		if !strings.EqualFold(x.arg(i), "filterby") || len(x.args)-1-i != 2 {
			return Err("ERR syntax error")
		}
		arg := x.arg(i + 2)
		switch strings.ToLower(x.arg(i + 1)) {
		case "module":
			match = func(*commandSpec) bool { return false }
		case "aclcat":
			cat := categoryByName(arg)
			match = func(s *commandSpec) bool { return cat != 0 && s.categories&cat != 0 }
		case "pattern":
			match = func(s *commandSpec) bool { return glob.Match(arg, s.name, true) }
		default:
			return Err("ERR syntax error")
		}
		i += 2
	}
	out := Array{}
	for _, s := range sentinelCommands.all {
		if match == nil || match(s) {
			out = append(out, Bulk(s.name))
		}
	}
	return out
}

func cmdCommandInfo(x *ctx) Value {
	if len(x.args) == 2 {
		return cmdCommand(x)
	}
	out := make(Array, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		if s := sentinelCommands.lookupFull(string(a)); s != nil {
			out = append(out, commandInfo(s))
		} else {
			out = append(out, Null{})
		}
	}
	return out
}

func cmdCommandDocs(x *ctx) Value {
	var specs []*commandSpec
	if len(x.args) == 2 {
		specs = sentinelCommands.tops
	} else {
		for _, a := range x.args[2:] {
			if s := sentinelCommands.lookupFull(string(a)); s != nil {
				specs = append(specs, s)
			}
		}
	}
	out := make(Map, 0, 2*len(specs))
	for _, s := range specs {
		out = append(out, Bulk(s.name), commandDocs(s))
	}
	return out
}

// cmdCommandGetKeys serves GETKEYS and GETKEYSANDFLAGS: no Sentinel
// command has keys, so the reply is always one of Redis's two errors.
func cmdCommandGetKeys(x *ctx) Value {
	args := make([]string, len(x.args)-2)
	for i := range args {
		args[i] = x.arg(i + 2)
	}
	if sentinelCommands.lookupArgs(args) == nil {
		return Err("ERR Invalid command specified")
	}
	return Err("ERR The command has no key arguments")
}

func cmdCommandHelp(x *ctx) Value {
	return helpReply("COMMAND",
		"(no subcommand)",
		"    Return details about all Redis commands.",
		"COUNT",
		"    Return the total number of commands in this Redis server.",
		"LIST",
		"    Return a list of all commands in this Redis server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.",
	)
}

// helpReply is Redis's HELP reply: a header naming the command, the
// lines, and the HELP entry, all status replies.
func helpReply(cmd string, lines ...string) Value {
	out := make(Array, 0, len(lines)+3)
	out = append(out, Status(cmd+" <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"))
	for _, l := range lines {
		out = append(out, Status(l))
	}
	return append(out, Status("HELP"), Status("    Prints this help."))
}

// sentinelCommandSpecs is the data of Redis 7.0.15's src/commands/*.json
// for the commands flagged SENTINEL, ordered by name with subcommands
// after their container.
var sentinelCommandSpecs = []commandSpec{
	{
		name: "acl", arity: -2,
		flags:   cmdSentinel,
		summary: "A container for Access List Control commands ",
		since:   "6.0.0", group: "server",
		complexity: "Depends on subcommand.",
	},
	{
		name: "acl|cat", arity: -2,
		flags:   cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "List the ACL categories or the commands inside a category",
		since:   "6.0.0", group: "server",
		complexity: "O(1) since the categories and commands are a fixed set.",
		args: []argDoc{
			{name: "categoryname", typ: "string", flags: argOptional},
		},
	},
	{
		name: "acl|deluser", arity: -3,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Remove the specified ACL users and the associated rules",
		since:   "6.0.0", group: "server",
		complexity: "O(1) amortized time considering the typical user.",
		args: []argDoc{
			{name: "username", typ: "string", flags: argMultiple},
		},
	},
	{
		name: "acl|dryrun", arity: -4,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Returns whether the user can execute the given command without executing the command.",
		since:   "7.0.0", group: "server",
		complexity: "O(1).",
		args: []argDoc{
			{name: "username", typ: "string"},
			{name: "command", typ: "string"},
			{name: "arg", typ: "string", flags: argOptional | argMultiple},
		},
	},
	{
		name: "acl|genpass", arity: -2,
		flags:   cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Generate a pseudorandom secure password to use for ACL users",
		since:   "6.0.0", group: "server",
		complexity: "O(1)",
		args: []argDoc{
			{name: "bits", typ: "integer", flags: argOptional},
		},
	},
	{
		name: "acl|getuser", arity: 3,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Get the rules for a specific ACL user",
		since:   "6.0.0", group: "server",
		complexity: "O(N). Where N is the number of password, command and pattern rules that the user has.",
		history:    [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}},
		args: []argDoc{
			{name: "username", typ: "string"},
		},
	},
	{
		name: "acl|help", arity: 2,
		flags:   cmdLoading | cmdStale | cmdSentinel,
		summary: "Show helpful text about the different subcommands",
		since:   "6.0.0", group: "server",
		complexity: "O(1)",
	},
	{
		name: "acl|list", arity: 2,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "List the current ACL rules in ACL config file format",
		since:   "6.0.0", group: "server",
		complexity: "O(N). Where N is the number of configured users.",
	},
	{
		name: "acl|load", arity: 2,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Reload the ACLs from the configured ACL file",
		since:   "6.0.0", group: "server",
		complexity: "O(N). Where N is the number of configured users.",
	},
	{
		name: "acl|log", arity: -2,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "List latest events denied because of ACLs in place",
		since:   "6.0.0", group: "server",
		complexity: "O(N) with N being the number of entries shown.",
		args: []argDoc{
			{name: "operation", typ: "oneof", flags: argOptional, args: []argDoc{
				{name: "count", typ: "integer"},
				{name: "reset", typ: "pure-token", token: "RESET"},
			}},
		},
	},
	{
		name: "acl|save", arity: 2,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Save the current ACL rules in the configured ACL file",
		since:   "6.0.0", group: "server",
		complexity: "O(N). Where N is the number of configured users.",
	},
	{
		name: "acl|setuser", arity: -3,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Modify or create the rules for a specific ACL user",
		since:   "6.0.0", group: "server",
		complexity: "O(N). Where N is the number of rules provided.",
		history:    [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and key based permissions."}},
		args: []argDoc{
			{name: "username", typ: "string"},
			{name: "rule", typ: "string", flags: argOptional | argMultiple},
		},
	},
	{
		name: "acl|users", arity: 2,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "List the username of all the configured ACL rules",
		since:   "6.0.0", group: "server",
		complexity: "O(N). Where N is the number of configured users.",
	},
	{
		name: "acl|whoami", arity: 2,
		flags:   cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Return the name of the user associated to the current connection",
		since:   "6.0.0", group: "server",
		complexity: "O(1)",
	},
	{
		name: "auth", arity: -2,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdFast | cmdNoAuth | cmdSentinel | cmdAllowBusy,
		categories: catConnection,
		summary:    "Authenticate to the server",
		since:      "1.0.0", group: "connection",
		complexity: "O(N) where N is the number of passwords defined for the user",
		history:    [][2]string{{"6.0.0", "Added ACL style (username and password)."}},
		args: []argDoc{
			{name: "username", typ: "string", since: "6.0.0", flags: argOptional},
			{name: "password", typ: "string"},
		},
	},
	{
		name: "client", arity: -2,
		flags:   cmdSentinel,
		summary: "A container for client connection commands",
		since:   "2.4.0", group: "connection",
		complexity: "Depends on subcommand.",
	},
	{
		name: "client|caching", arity: 3,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Instruct the server about tracking or not keys in the next request",
		since:      "6.0.0", group: "connection",
		complexity: "O(1)",
		args: []argDoc{
			{name: "mode", typ: "oneof", args: []argDoc{
				{name: "yes", typ: "pure-token", token: "YES"},
				{name: "no", typ: "pure-token", token: "NO"},
			}},
		},
	},
	{
		name: "client|getname", arity: 2,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Get the current connection name",
		since:      "2.6.9", group: "connection",
		complexity: "O(1)",
	},
	{
		name: "client|getredir", arity: 2,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Get tracking notifications redirection client ID if any",
		since:      "6.0.0", group: "connection",
		complexity: "O(1)",
	},
	{
		name: "client|help", arity: 2,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Show helpful text about the different subcommands",
		since:      "5.0.0", group: "connection",
		complexity: "O(1)",
	},
	{
		name: "client|id", arity: 2,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Returns the client ID for the current connection",
		since:      "5.0.0", group: "connection",
		complexity: "O(1)",
	},
	{
		name: "client|info", arity: 2,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		tips:       []string{"nondeterministic_output"},
		summary:    "Returns information about the current client connection.",
		since:      "6.2.0", group: "connection",
		complexity: "O(1)",
	},
	{
		name: "client|kill", arity: -3,
		flags:      cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Kill the connection of a client",
		since:      "2.4.0", group: "connection",
		complexity: "O(N) where N is the number of client connections",
		history:    [][2]string{{"2.8.12", "Added new filter format."}, {"2.8.12", "`ID` option."}, {"3.2.0", "Added `master` type in for `TYPE` option."}, {"5.0.0", "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility."}, {"6.2.0", "`LADDR` option."}},
		args: []argDoc{
			{name: "filter", typ: "oneof", args: []argDoc{
				{name: "ip:port", typ: "string", deprecatedSince: "2.8.12"},
				{name: "new-format", typ: "oneof", flags: argMultiple, args: []argDoc{
					{name: "client-id", typ: "integer", token: "ID", since: "2.8.12", flags: argOptional},
					{name: "normal_master_slave_pubsub", typ: "oneof", token: "TYPE", since: "2.8.12", flags: argOptional, args: []argDoc{
						{name: "normal", typ: "pure-token", token: "NORMAL"},
						{name: "master", typ: "pure-token", token: "MASTER", since: "3.2.0"},
						{name: "slave", typ: "pure-token", token: "SLAVE"},
						{name: "replica", typ: "pure-token", token: "REPLICA", since: "5.0.0"},
						{name: "pubsub", typ: "pure-token", token: "PUBSUB"},
					}},
					{name: "username", typ: "string", token: "USER", flags: argOptional},
					{name: "ip:port", typ: "string", token: "ADDR", flags: argOptional},
					{name: "ip:port", typ: "string", token: "LADDR", since: "6.2.0", flags: argOptional},
					{name: "yes/no", typ: "string", token: "SKIPME", flags: argOptional},
				}},
			}},
		},
	},
	{
		name: "client|list", arity: -2,
		flags:      cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		tips:       []string{"nondeterministic_output"},
		summary:    "Get the list of client connections",
		since:      "2.4.0", group: "connection",
		complexity: "O(N) where N is the number of client connections",
		history:    [][2]string{{"2.8.12", "Added unique client `id` field."}, {"5.0.0", "Added optional `TYPE` filter."}, {"6.0.0", "Added `user` field."}, {"6.2.0", "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter."}, {"7.0.0", "Added `resp`, `multi-mem`, `rbs` and `rbp` fields."}, {"7.0.3", "Added `ssub` field."}},
		args: []argDoc{
			{name: "normal_master_replica_pubsub", typ: "oneof", token: "TYPE", since: "5.0.0", flags: argOptional, args: []argDoc{
				{name: "normal", typ: "pure-token", token: "NORMAL"},
				{name: "master", typ: "pure-token", token: "MASTER"},
				{name: "replica", typ: "pure-token", token: "REPLICA"},
				{name: "pubsub", typ: "pure-token", token: "PUBSUB"},
			}},
			{name: "id", typ: "block", token: "ID", since: "6.2.0", flags: argOptional, args: []argDoc{
				{name: "client-id", typ: "integer", flags: argMultiple},
			}},
		},
	},
	{
		name: "client|no-evict", arity: 3,
		flags:      cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Set client eviction mode for the current connection",
		since:      "7.0.0", group: "connection",
		complexity: "O(1)",
		args: []argDoc{
			{name: "enabled", typ: "oneof", args: []argDoc{
				{name: "on", typ: "pure-token", token: "ON"},
				{name: "off", typ: "pure-token", token: "OFF"},
			}},
		},
	},
	{
		name: "client|pause", arity: -3,
		flags:      cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Stop processing commands from clients for some time",
		since:      "2.9.50", group: "connection",
		complexity: "O(1)",
		history:    [][2]string{{"6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option."}},
		args: []argDoc{
			{name: "timeout", typ: "integer"},
			{name: "mode", typ: "oneof", since: "6.2.0", flags: argOptional, args: []argDoc{
				{name: "write", typ: "pure-token", token: "WRITE"},
				{name: "all", typ: "pure-token", token: "ALL"},
			}},
		},
	},
	{
		name: "client|reply", arity: 3,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Instruct the server whether to reply to commands",
		since:      "3.2.0", group: "connection",
		complexity: "O(1)",
		args: []argDoc{
			{name: "on_off_skip", typ: "oneof", args: []argDoc{
				{name: "on", typ: "pure-token", token: "ON"},
				{name: "off", typ: "pure-token", token: "OFF"},
				{name: "skip", typ: "pure-token", token: "SKIP"},
			}},
		},
	},
	{
		name: "client|setname", arity: 3,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Set the current connection name",
		since:      "2.6.9", group: "connection",
		complexity: "O(1)",
		args: []argDoc{
			{name: "connection-name", typ: "string"},
		},
	},
	{
		name: "client|tracking", arity: -3,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Enable or disable server assisted client side caching support",
		since:      "6.0.0", group: "connection",
		complexity: "O(1). Some options may introduce additional complexity.",
		args: []argDoc{
			{name: "status", typ: "oneof", args: []argDoc{
				{name: "on", typ: "pure-token", token: "ON"},
				{name: "off", typ: "pure-token", token: "OFF"},
			}},
			{name: "client-id", typ: "integer", token: "REDIRECT", flags: argOptional},
			{name: "prefix", typ: "string", token: "PREFIX", flags: argOptional | argMultiple | argMultipleToken},
			{name: "bcast", typ: "pure-token", token: "BCAST", flags: argOptional},
			{name: "optin", typ: "pure-token", token: "OPTIN", flags: argOptional},
			{name: "optout", typ: "pure-token", token: "OPTOUT", flags: argOptional},
			{name: "noloop", typ: "pure-token", token: "NOLOOP", flags: argOptional},
		},
	},
	{
		name: "client|trackinginfo", arity: 2,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Return information about server assisted client side caching for the current connection",
		since:      "6.2.0", group: "connection",
		complexity: "O(1)",
	},
	{
		name: "client|unblock", arity: -3,
		flags:      cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Unblock a client blocked in a blocking command from a different connection",
		since:      "5.0.0", group: "connection",
		complexity: "O(log N) where N is the number of client connections",
		args: []argDoc{
			{name: "client-id", typ: "integer"},
			{name: "timeout_error", typ: "oneof", flags: argOptional, args: []argDoc{
				{name: "timeout", typ: "pure-token", token: "TIMEOUT"},
				{name: "error", typ: "pure-token", token: "ERROR"},
			}},
		},
	},
	{
		name: "client|unpause", arity: 2,
		flags:      cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Resume processing of clients that were paused",
		since:      "6.2.0", group: "connection",
		complexity: "O(N) Where N is the number of paused clients",
	},
	{
		name: "command", arity: -1,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		tips:       []string{"nondeterministic_output_order"},
		summary:    "Get array of Redis command details",
		since:      "2.8.13", group: "server",
		complexity: "O(N) where N is the total number of Redis commands",
	},
	{
		name: "command|count", arity: 2,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Get total number of Redis commands",
		since:      "2.8.13", group: "server",
		complexity: "O(1)",
	},
	{
		name: "command|docs", arity: -2,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		tips:       []string{"nondeterministic_output_order"},
		summary:    "Get array of specific Redis command documentation",
		since:      "7.0.0", group: "server",
		complexity: "O(N) where N is the number of commands to look up",
		args: []argDoc{
			{name: "command-name", typ: "string", flags: argOptional | argMultiple},
		},
	},
	{
		name: "command|getkeys", arity: -4,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Extract keys given a full Redis command",
		since:      "2.8.13", group: "server",
		complexity: "O(N) where N is the number of arguments to the command",
	},
	{
		name: "command|getkeysandflags", arity: -4,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Extract keys and access flags given a full Redis command",
		since:      "7.0.0", group: "server",
		complexity: "O(N) where N is the number of arguments to the command",
	},
	{
		name: "command|help", arity: 2,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		summary:    "Show helpful text about the different subcommands",
		since:      "5.0.0", group: "server",
		complexity: "O(1)",
	},
	{
		name: "command|info", arity: -2,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		tips:       []string{"nondeterministic_output_order"},
		summary:    "Get array of specific Redis command details, or all when no argument is given.",
		since:      "2.8.13", group: "server",
		complexity: "O(N) where N is the number of commands to look up",
		history:    [][2]string{{"7.0.0", "Allowed to be called with no argument to get info on all commands."}},
		args: []argDoc{
			{name: "command-name", typ: "string", flags: argOptional | argMultiple},
		},
	},
	{
		name: "command|list", arity: -2,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catConnection,
		tips:       []string{"nondeterministic_output_order"},
		summary:    "Get an array of Redis command names",
		since:      "7.0.0", group: "server",
		complexity: "O(N) where N is the total number of Redis commands",
		args: []argDoc{
			{name: "filterby", typ: "oneof", token: "FILTERBY", flags: argOptional, args: []argDoc{
				{name: "module-name", typ: "string", token: "MODULE"},
				{name: "category", typ: "string", token: "ACLCAT"},
				{name: "pattern", typ: "pattern", token: "PATTERN"},
			}},
		},
	},
	{
		name: "hello", arity: -1,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdFast | cmdNoAuth | cmdSentinel | cmdAllowBusy,
		categories: catConnection,
		summary:    "Handshake with Redis",
		since:      "6.0.0", group: "connection",
		complexity: "O(1)",
		history:    [][2]string{{"6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context."}},
		args: []argDoc{
			{name: "arguments", typ: "block", flags: argOptional, args: []argDoc{
				{name: "protover", typ: "integer"},
				{name: "username_password", typ: "block", token: "AUTH", flags: argOptional, args: []argDoc{
					{name: "username", typ: "string"},
					{name: "password", typ: "string"},
				}},
				{name: "clientname", typ: "string", token: "SETNAME", flags: argOptional},
			}},
		},
	},
	{
		name: "info", arity: -1,
		flags:      cmdLoading | cmdStale | cmdSentinel,
		categories: catDangerous,
		tips:       []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
		summary:    "Get information and statistics about the server",
		since:      "1.0.0", group: "server",
		complexity: "O(1)",
		history:    [][2]string{{"7.0.0", "Added support for taking multiple section arguments."}},
		args: []argDoc{
			{name: "section", typ: "string", flags: argOptional | argMultiple},
		},
	},
	{
		name: "ping", arity: -1,
		flags:      cmdFast | cmdSentinel,
		categories: catConnection,
		tips:       []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		summary:    "Ping the server",
		since:      "1.0.0", group: "connection",
		complexity: "O(1)",
		args: []argDoc{
			{name: "message", typ: "string", flags: argOptional},
		},
	},
	{
		name: "psubscribe", arity: -2,
		flags:   cmdPubsub | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Listen for messages published to channels matching the given patterns",
		since:   "2.0.0", group: "pubsub",
		complexity: "O(N) where N is the number of patterns the client is already subscribed to.",
		args: []argDoc{
			{name: "pattern", typ: "block", flags: argMultiple, args: []argDoc{
				{name: "pattern", typ: "pattern"},
			}},
		},
	},
	{
		name: "publish", arity: 3,
		flags:   cmdPubsub | cmdLoading | cmdStale | cmdFast | cmdMayReplicate | cmdSentinel,
		summary: "Post a message to a channel",
		since:   "2.0.0", group: "pubsub",
		complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
		args: []argDoc{
			{name: "channel", typ: "string"},
			{name: "message", typ: "string"},
		},
	},
	{
		name: "punsubscribe", arity: -1,
		flags:   cmdPubsub | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Stop listening for messages posted to channels matching the given patterns",
		since:   "2.0.0", group: "pubsub",
		complexity: "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).",
		args: []argDoc{
			{name: "pattern", typ: "pattern", flags: argOptional | argMultiple},
		},
	},
	{
		name: "role", arity: 1,
		flags:      cmdNoscript | cmdLoading | cmdStale | cmdFast | cmdSentinel,
		categories: catAdmin | catDangerous,
		summary:    "Return the role of the instance in the context of replication",
		since:      "2.8.12", group: "server",
		complexity: "O(1)",
	},
	{
		name: "sentinel", arity: -2,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "A container for Sentinel commands",
		since:   "2.8.4", group: "sentinel",
		complexity: "Depends on subcommand.",
	},
	{
		name: "sentinel|ckquorum", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Check for a Sentinel quorum",
		since:   "2.8.4", group: "sentinel",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|config", arity: -3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Configure Sentinel",
		since:   "6.2.0", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "set_or_get", typ: "oneof", args: []argDoc{
				{name: "set_param_value", typ: "block", token: "SET", flags: argMultiple, args: []argDoc{
					{name: "parameter", typ: "string"},
					{name: "value", typ: "string"},
				}},
				{name: "parameter", typ: "string", token: "GET", flags: argMultiple},
			}},
		},
	},
	{
		name: "sentinel|debug", arity: -2,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "List or update the current configurable parameters",
		since:   "7.0.0", group: "sentinel",
		complexity: "O(N) where N is the number of configurable parameters",
		args: []argDoc{
			{name: "parameter_value", typ: "block", flags: argMultiple, args: []argDoc{
				{name: "parameter", typ: "string"},
				{name: "value", typ: "string"},
			}},
		},
	},
	{
		name: "sentinel|failover", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Force a failover",
		since:   "2.8.4", group: "sentinel",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|flushconfig", arity: 2,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Rewrite configuration file",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
	},
	{
		name: "sentinel|get-master-addr-by-name", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Get port and address of a master",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|help", arity: 2,
		flags:   cmdLoading | cmdStale | cmdSentinel | cmdOnlySentinel,
		summary: "Show helpful text about the different subcommands",
		since:   "6.2.0", group: "sentinel",
		complexity: "O(1)",
	},
	{
		name: "sentinel|info-cache", arity: -3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Get cached INFO from the instances in the deployment",
		since:   "3.2.0", group: "sentinel",
		complexity: "O(N) where N is the number of instances",
		args: []argDoc{
			{name: "nodename", typ: "string", flags: argMultiple},
		},
	},
	{
		name: "sentinel|is-master-down-by-addr", arity: 6,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Check if a master is down",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "ip", typ: "string"},
			{name: "port", typ: "integer"},
			{name: "current-epoch", typ: "integer"},
			{name: "runid", typ: "string"},
		},
	},
	{
		name: "sentinel|master", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Shows the state of a master",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|masters", arity: 2,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "List the monitored masters",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(N) where N is the number of masters",
	},
	{
		name: "sentinel|monitor", arity: 6,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Start monitoring",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "name", typ: "string"},
			{name: "ip", typ: "string"},
			{name: "port", typ: "integer"},
			{name: "quorum", typ: "integer"},
		},
	},
	{
		name: "sentinel|myid", arity: 2,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Get the Sentinel instance ID",
		since:   "6.2.0", group: "sentinel",
		complexity: "O(1)",
	},
	{
		name: "sentinel|pending-scripts", arity: 2,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Get information about pending scripts",
		since:   "2.8.4", group: "sentinel",
	},
	{
		name: "sentinel|remove", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Stop monitoring",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|replicas", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "List the monitored replicas",
		since:   "5.0.0", group: "sentinel",
		complexity: "O(N) where N is the number of replicas",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|reset", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Reset masters by name pattern",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(N) where N is the number of monitored masters",
		args: []argDoc{
			{name: "pattern", typ: "pattern"},
		},
	},
	{
		name: "sentinel|sentinels", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "List the Sentinel instances",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(N) where N is the number of Sentinels",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "sentinel|set", arity: -5,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Change the configuration of a monitored master",
		since:   "2.8.4", group: "sentinel",
		complexity: "O(1)",
		args: []argDoc{
			{name: "master-name", typ: "string"},
			{name: "option_value", typ: "block", flags: argMultiple, args: []argDoc{
				{name: "option", typ: "string"},
				{name: "value", typ: "string"},
			}},
		},
	},
	{
		name: "sentinel|simulate-failure", arity: -3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "Simulate failover scenarios",
		since:   "3.2.0", group: "sentinel",
		args: []argDoc{
			{name: "mode", typ: "oneof", flags: argOptional | argMultiple, args: []argDoc{
				{name: "crash-after-election", typ: "pure-token"},
				{name: "crash-after-promotion", typ: "pure-token"},
				{name: "help", typ: "pure-token"},
			}},
		},
	},
	{
		name: "sentinel|slaves", arity: 3,
		flags:   cmdAdmin | cmdSentinel | cmdOnlySentinel,
		summary: "List the monitored slaves",
		since:   "2.8.0", group: "sentinel",
		complexity:      "O(N) where N is the number of slaves",
		docFlags:        docDeprecated,
		deprecatedSince: "5.0.0",
		replacedBy:      "`SENTINEL REPLICAS`",
		args: []argDoc{
			{name: "master-name", typ: "string"},
		},
	},
	{
		name: "shutdown", arity: -1,
		flags:   cmdAdmin | cmdNoscript | cmdLoading | cmdStale | cmdNoMulti | cmdSentinel | cmdAllowBusy,
		summary: "Synchronously save the dataset to disk and then shut down the server",
		since:   "1.0.0", group: "server",
		complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
		history:    [][2]string{{"7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers."}},
		args: []argDoc{
			{name: "nosave_save", typ: "oneof", flags: argOptional, args: []argDoc{
				{name: "nosave", typ: "pure-token", token: "NOSAVE"},
				{name: "save", typ: "pure-token", token: "SAVE"},
			}},
			{name: "now", typ: "pure-token", token: "NOW", since: "7.0.0", flags: argOptional},
			{name: "force", typ: "pure-token", token: "FORCE", since: "7.0.0", flags: argOptional},
			{name: "abort", typ: "pure-token", token: "ABORT", since: "7.0.0", flags: argOptional},
		},
	},
	{
		name: "subscribe", arity: -2,
		flags:   cmdPubsub | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Listen for messages published to the given channels",
		since:   "2.0.0", group: "pubsub",
		complexity: "O(N) where N is the number of channels to subscribe to.",
		args: []argDoc{
			{name: "channel", typ: "string", flags: argMultiple},
		},
	},
	{
		name: "unsubscribe", arity: -1,
		flags:   cmdPubsub | cmdNoscript | cmdLoading | cmdStale | cmdSentinel,
		summary: "Stop listening for messages posted to the given channels",
		since:   "2.0.0", group: "pubsub",
		complexity: "O(N) where N is the number of clients already subscribed to a channel.",
		args: []argDoc{
			{name: "channel", typ: "string", flags: argOptional | argMultiple},
		},
	},
}
