package respserver

import (
	"sort"
	"strings"
	"testing"
)

// TestCommandRepliesMatchRedis pins replies captured byte for byte from
// redis-sentinel 7.0.15 (RESP2, then RESP3 after HELLO 3).
func TestCommandRepliesMatchRedis(t *testing.T) {
	resp2 := []struct {
		args []string
		want string
	}{
		{[]string{"command", "info", "ping"}, "*1\r\n*10\r\n$4\r\nping\r\n:-1\r\n*1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*2\r\n$25\r\nrequest_policy:all_shards\r\n$29\r\nresponse_policy:all_succeeded\r\n*0\r\n*0\r\n"},
		{[]string{"command", "docs", "ping"}, "*2\r\n$4\r\nping\r\n*10\r\n$7\r\nsummary\r\n$15\r\nPing the server\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$7\r\nmessage\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\nflags\r\n*1\r\n+optional\r\n"},
		{[]string{"command", "info", "sentinel|slaves"}, "*1\r\n*10\r\n$15\r\nsentinel|slaves\r\n:3\r\n*1\r\n+admin\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n"},
		{[]string{"command", "docs", "sentinel|slaves"}, "*2\r\n$15\r\nsentinel|slaves\r\n*16\r\n$7\r\nsummary\r\n$25\r\nList the monitored slaves\r\n$5\r\nsince\r\n$5\r\n2.8.0\r\n$5\r\ngroup\r\n$8\r\nsentinel\r\n$10\r\ncomplexity\r\n$36\r\nO(N) where N is the number of slaves\r\n$9\r\ndoc_flags\r\n*1\r\n+deprecated\r\n$16\r\ndeprecated_since\r\n$5\r\n5.0.0\r\n$11\r\nreplaced_by\r\n$19\r\n`SENTINEL REPLICAS`\r\n$9\r\narguments\r\n*1\r\n*4\r\n$4\r\nname\r\n$11\r\nmaster-name\r\n$4\r\ntype\r\n$6\r\nstring\r\n"},
		{[]string{"command", "info", "nosuch", "sentinel|primary"}, "*2\r\n$-1\r\n$-1\r\n"},
		{[]string{"command", "docs", "nosuch"}, "*0\r\n"},
		{[]string{"command", "count"}, ":15\r\n"},
		{[]string{"command", "count", "x"}, "-ERR wrong number of arguments for 'command|count' command\r\n"},
		{[]string{"command", "getkeys", "sentinel", "masters"}, "-ERR The command has no key arguments\r\n"},
		{[]string{"command", "getkeys", "sentinel", "foo"}, "-ERR Invalid command specified\r\n"},
		{[]string{"command", "getkeysandflags", "foo"}, "-ERR wrong number of arguments for 'command|getkeysandflags' command\r\n"},
		{[]string{"command", "getkeys", "ping"}, "-ERR wrong number of arguments for 'command|getkeys' command\r\n"},
		{[]string{"command", "list", "filterby", "module", "x"}, "*0\r\n"},
		{[]string{"command", "list", "filterby", "foo", "x"}, "-ERR syntax error\r\n"},
		{[]string{"command", "list", "x"}, "-ERR syntax error\r\n"},
		{[]string{"command", "list", "filterby", "pattern", "ro*"}, "*1\r\n$4\r\nrole\r\n"},
		{[]string{"command", "list", "filterby", "aclcat", "nope"}, "*0\r\n"},
		{[]string{"command", "foo"}, "-ERR unknown subcommand 'foo'. Try COMMAND HELP.\r\n"},
		{[]string{"command", "help"}, "*21\r\n+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+(no subcommand)\r\n+    Return details about all Redis commands.\r\n+COUNT\r\n+    Return the total number of commands in this Redis server.\r\n+LIST\r\n+    Return a list of all commands in this Redis server.\r\n+INFO [<command-name> ...]\r\n+    Return details about multiple Redis commands.\r\n+    If no command names are given, documentation details for all\r\n+    commands are returned.\r\n+DOCS [<command-name> ...]\r\n+    Return documentation details about multiple Redis commands.\r\n+    If no command names are given, documentation details for all\r\n+    commands are returned.\r\n+GETKEYS <full-command>\r\n+    Return the keys from a full Redis command.\r\n+GETKEYSANDFLAGS <full-command>\r\n+    Return the keys and the access flags from a full Redis command.\r\n+HELP\r\n+    Prints this help.\r\n"},
	}
	resp3 := []struct {
		args []string
		want string
	}{
		{[]string{"command", "info", "ping"}, "*1\r\n*10\r\n$4\r\nping\r\n:-1\r\n~1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n~2\r\n+@fast\r\n+@connection\r\n~2\r\n$25\r\nrequest_policy:all_shards\r\n$29\r\nresponse_policy:all_succeeded\r\n~0\r\n~0\r\n"},
		{[]string{"command", "docs", "ping"}, "%1\r\n$4\r\nping\r\n%5\r\n$7\r\nsummary\r\n$15\r\nPing the server\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\narguments\r\n*1\r\n%3\r\n$4\r\nname\r\n$7\r\nmessage\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\nflags\r\n~1\r\n+optional\r\n"},
		{[]string{"command", "docs", "client|kill"}, "%1\r\n$11\r\nclient|kill\r\n%6\r\n$7\r\nsummary\r\n$31\r\nKill the connection of a client\r\n$5\r\nsince\r\n$5\r\n2.4.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$48\r\nO(N) where N is the number of client connections\r\n$7\r\nhistory\r\n~5\r\n*2\r\n$6\r\n2.8.12\r\n$24\r\nAdded new filter format.\r\n*2\r\n$6\r\n2.8.12\r\n$12\r\n`ID` option.\r\n*2\r\n$5\r\n3.2.0\r\n$41\r\nAdded `master` type in for `TYPE` option.\r\n*2\r\n$5\r\n5.0.0\r\n$91\r\nReplaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility.\r\n*2\r\n$5\r\n6.2.0\r\n$15\r\n`LADDR` option.\r\n$9\r\narguments\r\n*1\r\n%3\r\n$4\r\nname\r\n$6\r\nfilter\r\n$4\r\ntype\r\n$5\r\noneof\r\n$9\r\narguments\r\n*2\r\n%3\r\n$4\r\nname\r\n$7\r\nip:port\r\n$4\r\ntype\r\n$6\r\nstring\r\n$16\r\ndeprecated_since\r\n$6\r\n2.8.12\r\n%4\r\n$4\r\nname\r\n$10\r\nnew-format\r\n$4\r\ntype\r\n$5\r\noneof\r\n$5\r\nflags\r\n~1\r\n+multiple\r\n$9\r\narguments\r\n*6\r\n%5\r\n$4\r\nname\r\n$9\r\nclient-id\r\n$4\r\ntype\r\n$7\r\ninteger\r\n$5\r\ntoken\r\n$2\r\nID\r\n$5\r\nsince\r\n$6\r\n2.8.12\r\n$5\r\nflags\r\n~1\r\n+optional\r\n%6\r\n$4\r\nname\r\n$26\r\nnormal_master_slave_pubsub\r\n$4\r\ntype\r\n$5\r\noneof\r\n$5\r\ntoken\r\n$4\r\nTYPE\r\n$5\r\nsince\r\n$6\r\n2.8.12\r\n$5\r\nflags\r\n~1\r\n+optional\r\n$9\r\narguments\r\n*5\r\n%3\r\n$4\r\nname\r\n$6\r\nnormal\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$6\r\nNORMAL\r\n%4\r\n$4\r\nname\r\n$6\r\nmaster\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$6\r\nMASTER\r\n$5\r\nsince\r\n$5\r\n3.2.0\r\n%3\r\n$4\r\nname\r\n$5\r\nslave\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$5\r\nSLAVE\r\n%4\r\n$4\r\nname\r\n$7\r\nreplica\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$7\r\nREPLICA\r\n$5\r\nsince\r\n$5\r\n5.0.0\r\n%3\r\n$4\r\nname\r\n$6\r\npubsub\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$6\r\nPUBSUB\r\n%4\r\n$4\r\nname\r\n$8\r\nusername\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$4\r\nUSER\r\n$5\r\nflags\r\n~1\r\n+optional\r\n%4\r\n$4\r\nname\r\n$7\r\nip:port\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$4\r\nADDR\r\n$5\r\nflags\r\n~1\r\n+optional\r\n%5\r\n$4\r\nname\r\n$7\r\nip:port\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$5\r\nLADDR\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n$5\r\nflags\r\n~1\r\n+optional\r\n%4\r\n$4\r\nname\r\n$6\r\nyes/no\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$6\r\nSKIPME\r\n$5\r\nflags\r\n~1\r\n+optional\r\n"},
		{[]string{"command", "info", "nosuch"}, "*1\r\n_\r\n"},
		{[]string{"command", "docs", "sentinel|slaves"}, "%1\r\n$15\r\nsentinel|slaves\r\n%8\r\n$7\r\nsummary\r\n$25\r\nList the monitored slaves\r\n$5\r\nsince\r\n$5\r\n2.8.0\r\n$5\r\ngroup\r\n$8\r\nsentinel\r\n$10\r\ncomplexity\r\n$36\r\nO(N) where N is the number of slaves\r\n$9\r\ndoc_flags\r\n~1\r\n+deprecated\r\n$16\r\ndeprecated_since\r\n$5\r\n5.0.0\r\n$11\r\nreplaced_by\r\n$19\r\n`SENTINEL REPLICAS`\r\n$9\r\narguments\r\n*1\r\n%2\r\n$4\r\nname\r\n$11\r\nmaster-name\r\n$4\r\ntype\r\n$6\r\nstring\r\n"},
		{[]string{"command", "info", "sentinel|help"}, "*1\r\n*10\r\n$13\r\nsentinel|help\r\n:2\r\n~2\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n~1\r\n+@slow\r\n~0\r\n~0\r\n~0\r\n"},
	}
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	for _, tt := range resp2 {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("RESP2 %v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
	c.Do("HELLO", "3")
	for _, tt := range resp3 {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("RESP3 %v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}

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
