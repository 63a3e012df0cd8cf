package respserver

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/glob"
)

// catalogue is the command set this server answers.
var catalogue = commands.Sentinel

// statuses turns names into status replies in a set.
func statuses(names []string, prefix string) setReply {
	out := make(setReply, len(names))
	for i, n := range names {
		out[i] = Status(prefix + n)
	}
	return out
}

// commandInfo is the 10-element COMMAND INFO entry of s on surface sf.
// No Sentinel command has keys: first/last/step are 0 and the key specs
// empty.
func commandInfo(s *commands.Spec, sf commands.Surface) Value {
	tips := make(setReply, len(s.Tips))
	for i, t := range s.Tips {
		tips[i] = Bulk(t)
	}
	var subs Value = setReply{}
	if listed := s.ListedSubsOn(sf); listed != nil {
		arr := make(Array, len(listed))
		for i, sub := range listed {
			arr[i] = commandInfo(sub, sf)
		}
		subs = arr
	}
	return Array{Bulk(s.Name), Int(s.ArityOn(sf)), statuses(s.Flags.Names(), ""), Int(0), Int(0), Int(0),
		statuses(s.Categories.Names(), "@"), tips, setReply{}, subs}
}

// commandDocs is the COMMAND DOCS map of s on surface sf.
func commandDocs(s *commands.Spec, sf commands.Surface) Value {
	m := Map{}
	if s.Summary != "" {
		m = append(m, Bulk("summary"), Bulk(s.Summary))
	}
	if s.Since != "" {
		m = append(m, Bulk("since"), Bulk(s.Since))
	}
	m = append(m, Bulk("group"), Bulk(s.Group))
	if s.Complexity != "" {
		m = append(m, Bulk("complexity"), Bulk(s.Complexity))
	}
	if s.DocFlags != 0 {
		m = append(m, Bulk("doc_flags"), statuses(s.DocFlags.Names(), ""))
	}
	if s.DeprecatedSince != "" {
		m = append(m, Bulk("deprecated_since"), Bulk(s.DeprecatedSince))
	}
	if s.ReplacedBy != "" {
		m = append(m, Bulk("replaced_by"), Bulk(s.ReplacedBy))
	}
	if s.History != nil {
		h := make(setReply, len(s.History))
		for i, e := range s.History {
			h[i] = Array{Bulk(e[0]), Bulk(e[1])}
		}
		m = append(m, Bulk("history"), h)
	}
	if s.Args != nil {
		m = append(m, Bulk("arguments"), argDocs(s.Args, sf))
	}
	if listed := s.ListedSubsOn(sf); listed != nil {
		sm := make(Map, 0, 2*len(listed))
		for _, sub := range listed {
			sm = append(sm, Bulk(sub.Name), commandDocs(sub, sf))
		}
		m = append(m, Bulk("subcommands"), sm)
	}
	return m
}

// argDocs is the COMMAND DOCS arguments list of args on surface sf:
// Redis 7.2 added a display_text, the argument's name, to every argument
// that is not a oneof or block.
func argDocs(args []commands.Arg, sf commands.Surface) Value {
	out := make(Array, len(args))
	for i, a := range args {
		m := Map{Bulk("name"), Bulk(a.Name), Bulk("type"), Bulk(a.Type)}
		group := a.Type == "oneof" || a.Type == "block"
		if sf >= commands.Surface72 && !group {
			m = append(m, Bulk("display_text"), Bulk(a.Name))
		}
		if a.Token != "" {
			m = append(m, Bulk("token"), Bulk(a.Token))
		}
		if a.Since != "" {
			m = append(m, Bulk("since"), Bulk(a.Since))
		}
		if a.DeprecatedSince != "" {
			m = append(m, Bulk("deprecated_since"), Bulk(a.DeprecatedSince))
		}
		if a.Flags != 0 {
			m = append(m, Bulk("flags"), statuses(a.Flags.Names(), ""))
		}
		if group {
			m = append(m, Bulk("arguments"), argDocs(a.Args, sf))
		}
		out[i] = m
	}
	return out
}

// cmdCommand is COMMAND without a subcommand: the info of every command.
func cmdCommand(x *ctx) Value {
	tops := catalogue.Tops()
	out := make(Array, len(tops))
	for i, s := range tops {
		out[i] = commandInfo(s, x.srv.opts.Surface)
	}
	return out
}

func cmdCommandCount(x *ctx) Value { return Int(len(catalogue.Tops())) }

// cmdCommandList is COMMAND LIST [FILTERBY MODULE|ACLCAT|PATTERN arg].
// No module exists and an unknown category matches nothing.
func cmdCommandList(x *ctx) Value {
	var match func(*commands.Spec) bool
	for i := 2; i < len(x.args); i++ {
		if !strings.EqualFold(x.arg(i), "filterby") || len(x.args)-1-i != 2 {
			return Err("ERR syntax error")
		}
		arg := x.arg(i + 2)
		switch strings.ToLower(x.arg(i + 1)) {
		case "module":
			match = func(*commands.Spec) bool { return false }
		case "aclcat":
			cat := commands.CategoryByName(arg)
			match = func(s *commands.Spec) bool { return cat != 0 && s.Categories&cat != 0 }
		case "pattern":
			match = func(s *commands.Spec) bool { return glob.Match(arg, s.Name, true) }
		default:
			return Err("ERR syntax error")
		}
		i += 2
	}
	out := Array{}
	for _, s := range catalogue.ListedOn(x.srv.opts.Surface) {
		if match == nil || match(s) {
			out = append(out, Bulk(s.Name))
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
		if s := catalogue.LookupListedOn(string(a), x.srv.opts.Surface); s != nil {
			out = append(out, commandInfo(s, x.srv.opts.Surface))
		} else {
			out = append(out, Null{})
		}
	}
	return out
}

func cmdCommandDocs(x *ctx) Value {
	var specs []*commands.Spec
	if len(x.args) == 2 {
		specs = catalogue.Tops()
	} else {
		for _, a := range x.args[2:] {
			if s := catalogue.LookupListedOn(string(a), x.srv.opts.Surface); s != nil {
				specs = append(specs, s)
			}
		}
	}
	out := make(Map, 0, 2*len(specs))
	for _, s := range specs {
		out = append(out, Bulk(s.Name), commandDocs(s, x.srv.opts.Surface))
	}
	return out
}

// cmdCommandGetKeys serves GETKEYS and GETKEYSANDFLAGS: no Sentinel
// command has keys, so the reply is always one of Redis's two errors.
func cmdCommandGetKeys(x *ctx) Value {
	if s := catalogue.LookupArgs(stringArgs(x.args[2:])); s == nil || !s.ListedOn(x.srv.opts.Surface) {
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
