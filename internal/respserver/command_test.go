package respserver

import (
	"sort"
	"strings"
	"testing"
)

// redisSentinelCommands is COMMAND LIST of redis-sentinel 7.0.15, sorted.
var redisSentinelCommands = strings.Fields(`acl acl|cat acl|deluser acl|dryrun acl|genpass acl|getuser acl|help
	acl|list acl|load acl|log acl|save acl|setuser acl|users acl|whoami auth client client|caching
	client|getname client|getredir client|help client|id client|info client|kill client|list
	client|no-evict client|pause client|reply client|setname client|tracking client|trackinginfo
	client|unblock client|unpause command command|count command|docs command|getkeys
	command|getkeysandflags command|help command|info command|list hello info ping psubscribe
	publish punsubscribe role sentinel sentinel|ckquorum sentinel|config sentinel|debug
	sentinel|failover sentinel|flushconfig sentinel|get-master-addr-by-name sentinel|help
	sentinel|info-cache sentinel|is-master-down-by-addr sentinel|master sentinel|masters
	sentinel|monitor sentinel|myid sentinel|pending-scripts sentinel|remove sentinel|replicas
	sentinel|reset sentinel|sentinels sentinel|set sentinel|simulate-failure sentinel|slaves
	shutdown subscribe unsubscribe`)

// bulks parses a RESP array of bulk strings as the test client got it.
func bulks(t *testing.T, raw string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(raw, "\r\n"), "\r\n")
	if len(lines) == 0 || lines[0][0] != '*' {
		t.Fatalf("not an array: %q", raw)
	}
	var out []string
	for i := 2; i < len(lines); i += 2 {
		out = append(out, lines[i])
	}
	return out
}

func TestCommandCountAndList(t *testing.T) {
	if n := len(sentinelCommands.all); n != 72 {
		t.Fatalf("catalogue has %d names, want 72", n)
	}
	if n := len(sentinelCommands.tops); n != 15 {
		t.Fatalf("catalogue has %d commands, want 15", n)
	}
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("COMMAND", "COUNT"); got != ":15\r\n" {
		t.Fatalf("COMMAND COUNT = %q", got)
	}
	names := bulks(t, c.Do("COMMAND", "LIST"))
	sort.Strings(names)
	if strings.Join(names, " ") != strings.Join(redisSentinelCommands, " ") {
		t.Fatalf("COMMAND LIST (%d names) = %v", len(names), names)
	}
	for _, tt := range []struct {
		filter []string
		want   string
	}{
		{[]string{"ACLCAT", "pubsub"}, "psubscribe publish punsubscribe subscribe unsubscribe"},
		{[]string{"aclcat", "CONNECTION"}, "auth client|caching client|getname client|getredir client|help client|id client|info client|kill client|list client|no-evict client|pause client|reply client|setname client|tracking client|trackinginfo client|unblock client|unpause command command|count command|docs command|getkeys command|getkeysandflags command|help command|info command|list hello ping"},
		{[]string{"pattern", "SENTINEL|M*"}, "sentinel|master sentinel|masters sentinel|monitor sentinel|myid"},
		{[]string{"pattern", "*prim*"}, ""},
	} {
		got := bulks(t, c.Do(append([]string{"COMMAND", "LIST", "FILTERBY"}, tt.filter...)...))
		sort.Strings(got)
		if strings.Join(got, " ") != tt.want {
			t.Errorf("FILTERBY %v = %v", tt.filter, got)
		}
	}
	// COMMAND and COMMAND INFO list the 15 commands; containers carry
	// their subcommands.
	for _, args := range [][]string{{"COMMAND"}, {"COMMAND", "INFO"}} {
		if got := c.Do(args...); !strings.HasPrefix(got, "*15\r\n") {
			t.Errorf("%v: %.40q", args, got)
		}
	}
	info := c.Do("COMMAND", "INFO", "sentinel")
	if !strings.Contains(info, "+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*21\r\n") {
		t.Errorf("COMMAND INFO sentinel: %.300q", info)
	}
	if docs := c.Do("COMMAND", "DOCS"); !strings.HasPrefix(docs, "*30\r\n") {
		t.Errorf("COMMAND DOCS: %.40q", docs)
	}
}

// TestStaticCommandsAreDispatchable checks every name of the catalogue
// against the dispatch table. Names whose handlers other parts of the
// package have not registered yet are logged, not failed.
func TestStaticCommandsAreDispatchable(t *testing.T) {
	table := commandTable()
	for _, s := range sentinelCommands.all {
		top, sub, isSub := strings.Cut(s.name, "|")
		cmd := table[top]
		if cmd != nil && isSub {
			cmd = cmd.subs[sub]
		}
		if cmd == nil {
			t.Logf("%s is not registered yet", s.name)
			continue
		}
		if cmd.name != s.name {
			t.Errorf("%s registered as %s", s.name, cmd.name)
		}
		if cmd.arity != s.arity {
			t.Errorf("%s: dispatch arity %d, Redis %d", s.name, cmd.arity, s.arity)
		}
		if (cmd.flags&flagNoAuth != 0) != (s.flags&cmdNoAuth != 0) {
			t.Errorf("%s: no-auth flag differs", s.name)
		}
	}
	// Everything dispatchable is either in the catalogue or an alias.
	for _, cmd := range table {
		names := []string{cmd.name}
		for _, sub := range cmd.subs {
			names = append(names, sub.name)
		}
		for _, n := range names {
			if sentinelCommands.byName[n] == nil && specAliases[n] == "" {
				t.Errorf("%s is dispatchable but not a Redis 7.0 Sentinel command", n)
			}
		}
	}
}

func TestCommandLookup(t *testing.T) {
	full := []struct{ in, want string }{
		{"ping", "ping"},
		{"PING", "ping"},
		{"sentinel|MASTERS", "sentinel|masters"},
		{"sentinel", "sentinel"},
		{"ping|x", ""},
		{"sentinel|", ""},
		{"sentinel|primary", ""},
		{"sentinel|masters|x", ""},
		{"|masters", ""},
		{"", ""},
		{"get", ""},
	}
	for _, tt := range full {
		got := ""
		if s := sentinelCommands.lookupFull(tt.in); s != nil {
			got = s.name
		}
		if got != tt.want {
			t.Errorf("lookupFull(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	args := []struct {
		in   []string
		want string
	}{
		{[]string{"Sentinel", "Masters"}, "sentinel|masters"},
		{[]string{"sentinel"}, "sentinel"},
		{[]string{"sentinel", "nope"}, ""},
		{[]string{"ping", "a", "b"}, "ping"},
		{[]string{"sentinel|masters"}, ""},
		{nil, ""},
	}
	for _, tt := range args {
		got := ""
		if s := sentinelCommands.lookupArgs(tt.in); s != nil {
			got = s.name
		}
		if got != tt.want {
			t.Errorf("lookupArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if s := sentinelCommands.forDispatch("sentinel|primaries"); s == nil || s.name != "sentinel|masters" {
		t.Errorf("alias sentinel|primaries maps to %v", s)
	}
}

func TestDoubleAndSetReplies(t *testing.T) {
	for _, tt := range []struct {
		v     Value
		proto int
		want  string
	}{
		{doubleReply(0.301), 2, "$19\r\n0.30099999999999999\r\n"},
		{doubleReply(0.301), 3, ",0.30099999999999999\r\n"},
		{doubleReply(1.5), 3, ",1.5\r\n"},
		{doubleReply(0), 2, "$1\r\n0\r\n"},
		{setReply{Status("a")}, 2, "*1\r\n+a\r\n"},
		{setReply{Status("a")}, 3, "~1\r\n+a\r\n"},
	} {
		if got := string(Encode(nil, tt.v, tt.proto)); got != tt.want {
			t.Errorf("%#v in RESP%d = %q, want %q", tt.v, tt.proto, got, tt.want)
		}
	}
}
