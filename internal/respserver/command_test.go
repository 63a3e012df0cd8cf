package respserver

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// redisSentinelCommands is COMMAND LIST of redis-sentinel 7.0.15, sorted,
// which go-sentinel's is (client|setinfo and sentinel|explain run but are
// unlisted).
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
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("COMMAND", "COUNT"); got != ":15\r\n" {
		t.Fatalf("COMMAND COUNT = %q", got)
	}
	names := bulks(t, c.Do("COMMAND", "LIST"))
	sort.Strings(names)
	// Exactly Redis 7.0.15's: CLIENT SETINFO of 7.2 and go-sentinel's
	// SENTINEL EXPLAIN run but are not listed.
	want := append([]string(nil), redisSentinelCommands...)
	sort.Strings(want)
	if strings.Join(names, " ") != strings.Join(want, " ") {
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
	info := c.Do("COMMAND", "INFO", "sentinel") // Redis's 21 subcommands, not EXPLAIN
	if !strings.Contains(info, "+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*21\r\n") {
		t.Errorf("COMMAND INFO sentinel: %.300q", info)
	}
	if docs := c.Do("COMMAND", "DOCS"); !strings.HasPrefix(docs, "*30\r\n") {
		t.Errorf("COMMAND DOCS: %.40q", docs)
	}
}

// TestEveryCommandHasAHandler checks the handler binding against the
// catalogue both ways: every command that can run has a handler (a
// container only when it runs alone, as COMMAND does), and every handler
// is bound to a catalogued command.
func TestEveryCommandHasAHandler(t *testing.T) {
	for _, s := range catalogue.All() {
		runs := s.Subs == nil || s.ArityOK(1)
		if has := handlers[s.Name] != nil; has != runs {
			t.Errorf("%s: handler bound %v, want %v", s.Name, has, runs)
		}
	}
	for name := range handlers {
		if catalogue.LookupFull(name) == nil {
			t.Errorf("handler for %s, which is not in the catalogue", name)
		}
	}
	for _, alias := range []string{"primaries", "primary", "get-primary-addr-by-name", "is-primary-down-by-addr"} {
		s := catalogue.Top("sentinel").Sub(alias)
		if s == nil || handlerOf(s) == nil {
			t.Errorf("alias sentinel|%s does not run", alias)
		}
	}
}

// recordedArities reads the arity of every non-container command from
// the COMMAND INFO replies recorded from redis-sentinel 7.0.15.
func recordedArities(t *testing.T) map[string]int {
	out := map[string]int{}
	for _, ex := range readTranscript(t, "testdata/redis-7.0.15/command-leaves.resp2.txt") {
		if len(ex.args) != 3 || !strings.EqualFold(ex.args[1], "info") {
			continue
		}
		lines := strings.Split(ex.reply, "\n")
		n, err := strconv.Atoi(strings.TrimPrefix(lines[4], ":"))
		if err != nil || lines[3] != ex.args[2] {
			t.Fatalf("COMMAND INFO %s: unexpected reply %q", ex.args[2], ex.reply)
		}
		out[ex.args[2]] = n
	}
	return out
}

// TestArityErrors sends every command with one argument too few and, for
// a fixed arity, one too many (beyond go-sentinel's extension arguments,
// such as SENTINEL FAILOVER's COORDINATED), and expects Redis's arity
// error: the
// arities are those recorded from redis-sentinel 7.0.15 (a wrong arity
// in the catalogue fails here), the containers' those of the catalogue.
func TestArityErrors(t *testing.T) {
	arities := recordedArities(t)
	if len(arities) != 68 {
		t.Fatalf("%d arities recorded, want 68", len(arities))
	}
	extension := map[string]int{}
	for _, s := range catalogue.All() {
		if s.Subs != nil {
			arities[s.Name] = s.Arity
		}
		extension[s.Name] = s.ExtensionArgs
	}
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	checked := 0
	for name, arity := range arities {
		words := strings.Split(name, "|")
		try := func(n int) {
			args := append([]string(nil), words...)
			for len(args) < n {
				args = append(args, "x")
			}
			if got, want := c.Do(args...), "-ERR wrong number of arguments for '"+name+"' command\r\n"; got != want {
				t.Errorf("%v (arity %d): %q, want %q", args, arity, got, want)
			}
			checked++
		}
		if n := max(arity, -arity) - 1; n >= len(words) {
			try(n)
		}
		if arity > 0 {
			try(arity + 1 + extension[name])
		}
	}
	if checked < 60 {
		t.Fatalf("only %d arity errors checked", checked)
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

// TestUnlistedCommandsRunButAreNotListed: CLIENT SETINFO (7.2) and
// SENTINEL EXPLAIN (go-sentinel) work, but COMMAND, ACL CAT and ACL rules
// know only Redis 7.0.15's commands, as redis-sentinel 7.0.15 does.
func TestUnlistedCommandsRunButAreNotListed(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("CLIENT", "SETINFO", "LIB-NAME", "redis-py"); got != "+OK\r\n" {
		t.Errorf("CLIENT SETINFO = %q", got)
	}
	if got := c.Do("SENTINEL", "EXPLAIN", "mymaster"); !strings.HasPrefix(got, "$") {
		t.Errorf("SENTINEL EXPLAIN = %.60q", got)
	}
	for _, name := range []string{"client|setinfo", "sentinel|explain"} {
		if got := c.Do("COMMAND", "INFO", name); got != "*1\r\n$-1\r\n" {
			t.Errorf("COMMAND INFO %s = %.60q", name, got)
		}
		if got := c.Do("COMMAND", "DOCS", name); got != "*0\r\n" {
			t.Errorf("COMMAND DOCS %s = %.60q", name, got)
		}
		if got := c.Do("ACL", "SETUSER", "u", "+"+name); !strings.HasPrefix(got, "-ERR Error in ACL SETUSER modifier '+"+name+"'") {
			t.Errorf("ACL SETUSER +%s = %q", name, got)
		}
	}
}

// TestCommandCountAndListOn72 is TestCommandCountAndList on the 7.2
// command surface: the same 15 commands, and COMMAND LIST, ACL CAT and
// COMMAND INFO/DOCS also know CLIENT SETINFO, 73 names as Redis 7.2 to
// 8.x and Valkey 8 and 9 (Redis 7.4.1's and Valkey 8.0.1's 00-base assert
// it); SENTINEL EXPLAIN stays unlisted.
func TestCommandCountAndListOn72(t *testing.T) {
	_, _, addr := startServer(t, func(o *Options) { o.Surface = commands.Surface72 })
	c := dial(t, addr)
	if got := c.Do("COMMAND", "COUNT"); got != ":15\r\n" {
		t.Fatalf("COMMAND COUNT = %q", got)
	}
	names := bulks(t, c.Do("COMMAND", "LIST"))
	sort.Strings(names)
	want := append([]string{"client|setinfo"}, redisSentinelCommands...)
	sort.Strings(want)
	if len(names) != 73 || strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("COMMAND LIST (%d names) = %v", len(names), names)
	}
	if got := bulks(t, c.Do("ACL", "CAT", "connection")); !slices.Contains(got, "client|setinfo") || slices.Contains(got, "sentinel|explain") {
		t.Errorf("ACL CAT connection = %v", got)
	}
	info := c.Do("COMMAND", "INFO", "client")
	if !strings.Contains(info, "$14\r\nclient|setinfo\r\n:4\r\n") {
		t.Errorf("COMMAND INFO client lacks setinfo: %.200q", info)
	}
	if got := c.Do("COMMAND", "INFO", "sentinel"); !strings.Contains(got, "*21\r\n") || strings.Contains(got, "explain") {
		t.Errorf("COMMAND INFO sentinel: %.300q", got)
	}
	for _, args := range [][]string{{"COMMAND"}, {"COMMAND", "INFO"}} {
		if got := c.Do(args...); !strings.HasPrefix(got, "*15\r\n") || !strings.Contains(got, "client|setinfo") {
			t.Errorf("%v: %.40q", args, got)
		}
	}
	if got := c.Do("COMMAND", "DOCS", "client|setinfo"); got == "*0\r\n" {
		t.Error("COMMAND DOCS client|setinfo is empty")
	}
}

// TestSurfaceArity checks SENTINEL CONFIG's arity on each surface: -3 on
// 7.0 (a GET without a parameter reaches the command's own error, as in
// redis-sentinel 7.0.15), -4 on 7.2 (Redis 7.4.1's arity error).
func TestSurfaceArity(t *testing.T) {
	for _, tt := range []struct {
		sf   commands.Surface
		want string
	}{
		{commands.Surface70, "-ERR Only SENTINEL CONFIG GET <option> / SET <option> <value> are supported.\r\n"},
		{commands.Surface72, "-ERR wrong number of arguments for 'sentinel|config' command\r\n"},
	} {
		_, _, addr := startServer(t, func(o *Options) { o.Surface = tt.sf })
		if got := dial(t, addr).Do("SENTINEL", "CONFIG", "GET"); got != tt.want {
			t.Errorf("%v: SENTINEL CONFIG GET = %q, want %q", tt.sf, got, tt.want)
		}
	}
}
