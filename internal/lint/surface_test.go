package lint

import (
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

func TestServerSurface(t *testing.T) {
	for _, tt := range []struct {
		version string
		valkey  bool
		want    commands.Surface
		known   bool
	}{
		{"7.0.15", false, commands.Surface70, true},
		{"6.2.14", false, commands.Surface70, true},
		{"7.2.0", false, commands.Surface72, true},
		{"7.4.1", false, commands.Surface72, true},
		{"8.0.2", false, commands.Surface72, true},
		{"7.2.4", true, commands.Surface72, true},
		{"8.0.1", true, commands.Surface72, true},
		{"9.0.0", true, commands.Surface72, true},
		{"", false, commands.Surface70, false},
		{"unstable", false, commands.Surface70, false},
	} {
		got, known := serverSurface(Instance{Version: tt.version, Valkey: tt.valkey})
		if got != tt.want || known != tt.known {
			t.Errorf("%q valkey=%v: %v %v, want %v %v", tt.version, tt.valkey, got, known, tt.want, tt.known)
		}
	}
}

func TestCommandSurfaceRule(t *testing.T) {
	const on72 = "sentinel command-surface 7.2"
	redis74 := func(i Instance) Instance { return withServer(i, "7.4.1", false, true) }
	valkey8 := func(i Instance) Instance { return withServer(i, "8.0.1", true, true) }
	down := redis74(goodReplica(6381))
	down.Err = "connection refused"
	runRuleCases(t, RuleCommandSurface, []ruleCase{
		{name: "7.0 on 7.0 nodes", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380))},
		{name: "7.2 on 7.4 nodes", conf: conf(2, 2, on72), facts: fleet(3, redis74(goodMaster()), redis74(goodReplica(6380)))},
		{name: "7.2 on valkey nodes", conf: conf(2, 2, on72), facts: fleet(3, valkey8(goodMaster()), valkey8(goodReplica(6380)))},
		{name: "7.0 on 7.4 nodes", conf: conf(2, 2), facts: fleet(3, redis74(goodMaster()), redis74(goodReplica(6380))), want: sev(Warning),
			contains: []string{"selects the 7.0 command surface (Redis 7.0's Sentinel)", "127.0.0.1:6379 (Redis 7.4.1), 127.0.0.1:6380 (Redis 7.4.1) of mymaster",
				"CLIENT SETINFO", "loglevel"},
			fix: []string{"`sentinel command-surface 7.2`", "--sentinel command-surface 7.2", "redis-sentinel 7.0"}},
		{name: "7.0 on valkey nodes", conf: conf(2, 2), facts: fleet(3, valkey8(goodMaster()), valkey8(goodReplica(6380))), want: sev(Warning),
			contains: []string{"127.0.0.1:6379 (Valkey 8.0.1)"}, fix: []string{"command-surface 7.2"}},
		{name: "7.0, one replica upgraded", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380), redis74(goodReplica(6381))), want: sev(Warning),
			contains: []string{"but 127.0.0.1:6381 (Redis 7.4.1) of mymaster runs a newer release"}},
		{name: "7.2 on 7.0 nodes", conf: conf(2, 2, on72), facts: fleet(3, goodMaster(), goodReplica(6380)), want: sev(Warning),
			contains: []string{"selects the 7.2 command surface (the Sentinel of Redis 7.2 through 8.x and Valkey 8 and 9)",
				"127.0.0.1:6379 (Redis 7.0.15), 127.0.0.1:6380 (Redis 7.0.15) of mymaster run a release older than 7.2", "73 names instead of 72"},
			fix: []string{"Remove `sentinel command-surface 7.2`"}},
		{name: "unreachable newer replica", conf: conf(2, 2), facts: fleet(3, goodMaster(), goodReplica(6380), down)},
		{name: "no version", conf: conf(2, 2, on72), facts: fleet(3, withServer(goodMaster(), "", false, true), redis74(goodReplica(6380)))},
		{name: "static 7.0", conf: conf(2, 2)},
		{name: "static 7.2", conf: conf(2, 2, on72)},
	})
}
