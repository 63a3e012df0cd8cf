package monitor_test

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// The fuzz targets of this file feed hostile input through a whole core
// (hellos published to our port, INFO replies of a monitored instance), not
// just through the parsers: nothing may panic, and whatever the core learns
// must survive a config rewrite and a re-parse unchanged, and so must the
// state file of `sentinel state-config-file`, so that no input can inject
// a directive into either file or make it unreadable.

const (
	fuzzMyID    = "0000000000000000000000000000000000000001"
	fuzzOtherID = "1111111111111111111111111111111111111111"
)

var fuzzT0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fuzzCore is a core watching mymaster (with one known replica and one
// known Sentinel) and a second master, at fuzzT0.
func fuzzCore(resolve bool) *monitor.Sentinel {
	m := settings.NewMasterSpec("mymaster", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2)
	m.KnownReplicas = []settings.Addr{{Host: "127.0.0.1", Port: 6380}}
	m.KnownSentinels = []settings.SentinelSpec{{Addr: settings.Addr{Host: "127.0.0.2", Port: 26379}, RunID: fuzzOtherID}}
	other := settings.NewMasterSpec("other", settings.Addr{Host: "::1", Port: 7000}, 1)
	p := settings.Persisted{MyID: fuzzMyID, ResolveHostnames: resolve, Masters: []settings.MasterSpec{m, other}}
	s := monitor.New(p, monitor.Options{Port: 26379}, rand.New(rand.NewSource(1)), fuzzT0)
	s.Ready()
	return s
}

// checkPersistable writes the core's state as a config file and parses it
// back: the parse must succeed and give back the same state, except for
// what Redis loses the same way: loading raises the current epoch to the
// highest config epoch, and a Sentinel known with an empty run id (a hello
// can announce one) is not kept (Redis writes it without the run id and
// ignores that old form of the line when loading).
func checkPersistable(t *testing.T, s *monitor.Sentinel) {
	t.Helper()
	snap := s.Snapshot()
	text := config.RewriteBytes(nil, config.DefaultServer(), snap, config.RewriteOptions{Cwd: "/"})
	cfg, err := config.ParseWith("/fuzz/sentinel.conf", text, nil, config.Options{Cwd: "/"})
	if err != nil {
		t.Fatalf("the rewritten config does not parse: %v\n%s", err, text)
	}
	want := snap
	want.Masters = nil
	for _, m := range snap.Masters {
		want.CurrentEpoch = max(want.CurrentEpoch, m.ConfigEpoch)
		var kept []settings.SentinelSpec
		for _, si := range m.KnownSentinels {
			if si.RunID != "" {
				kept = append(kept, si)
			}
		}
		m.KnownSentinels = kept
		want.Masters = append(want.Masters, m)
	}
	if got := cfg.Sentinel; !reflect.DeepEqual(nilEmpty(got), nilEmpty(want)) {
		t.Fatalf("the rewritten config reads back differently:\n got %+v\nwant %+v\n%s", got, want, text)
	}
	// The same state written as a state-config-file (the config file
	// names it and holds nothing else) reads back the same way.
	// The state file is written as a delta over what that config file
	// alone loads to, as the daemon writes it.
	state := filepath.Join(t.TempDir(), "state.conf")
	seed := []byte("sentinel state-config-file " + splitargs.Quote(state) + "\n")
	base, err := config.ParseWith("/fuzz/sentinel.conf", seed, nil, config.Options{Cwd: "/"})
	if err != nil {
		t.Fatalf("the config file naming the state file does not load: %v", err)
	}
	sb := config.StateBytes("notice", snap, base.StateBase(), config.RewriteOptions{Cwd: "/"})
	if err := os.WriteFile(state, sb, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.ParseWith("/fuzz/sentinel.conf", seed, nil, config.Options{Cwd: "/"})
	if err != nil {
		t.Fatalf("the state file does not load: %v\n%s", err, sb)
	}
	if got := cfg.Sentinel; !reflect.DeepEqual(nilEmpty(got), nilEmpty(want)) {
		t.Fatalf("the state file reads back differently:\n got %+v\nwant %+v\n%s", got, want, sb)
	}
}

// nilEmpty returns p with its masters' empty lists as nil, which the
// comparison does not care about.
func nilEmpty(p settings.Persisted) settings.Persisted {
	ms := append([]settings.MasterSpec(nil), p.Masters...)
	for i := range ms {
		if len(ms[i].KnownReplicas) == 0 {
			ms[i].KnownReplicas = nil
		}
		if len(ms[i].KnownSentinels) == 0 {
			ms[i].KnownSentinels = nil
		}
		if len(ms[i].RenameCommands) == 0 {
			ms[i].RenameCommands = nil
		}
	}
	p.Masters = ms
	return p
}

// FuzzHelloThroughCore processes up to three hellos, as `PUBLISH
// __sentinel__:hello` on our port delivers them, with timer ticks between.
func FuzzHelloThroughCore(f *testing.F) {
	known := gossip.Hello{SentinelIP: "127.0.0.2", SentinelPort: 26379, RunID: fuzzOtherID,
		CurrentEpoch: 5, MasterName: "mymaster", MasterIP: "127.0.0.1", MasterPort: 6379, MasterConfigEpoch: 3}.Encode()
	moved := gossip.Hello{SentinelIP: "127.0.0.3", SentinelPort: 26380, RunID: fuzzOtherID,
		CurrentEpoch: 7, MasterName: "mymaster", MasterIP: "127.0.0.9", MasterPort: 6390, MasterConfigEpoch: 9}.Encode()
	newcomer := gossip.Hello{SentinelIP: "127.0.0.2", SentinelPort: 26379, RunID: strings.Repeat("2", 40),
		CurrentEpoch: 1, MasterName: "other", MasterIP: "::1", MasterPort: 7000}.Encode()
	f.Add(known, moved, newcomer, false)
	f.Add(newcomer, known, moved, true)
	f.Add("host.example,26379,"+fuzzOtherID+",1,mymaster,h\nsentinel monitor x 1.2.3.4 1 1,6379,2", known, "", true)
	f.Add("10.0.0.1,1,a b\nsentinel myid x,18446744073709551615,mymaster,10.0.0.2,-1,1", ",,,,,,,", "1,2,3,4,5,6,7,8", false)
	f.Add("127.0.0.1,26379,"+fuzzMyID+",3,mymaster,127.0.0.1,6379,4", "\x00,,,,,,,", "::1,0,\"q\",0,other,::1,0,0", false)
	f.Fuzz(func(t *testing.T, h1, h2, h3 string, resolve bool) {
		s := fuzzCore(resolve)
		now := fuzzT0
		for _, h := range []string{h1, h2, h3} {
			now = now.Add(time.Second)
			_, _ = s.Step(now, msg.HelloFromClient{Payload: h})
			s.Tick(now, now)
			s.Ready()
		}
		checkPersistable(t, s)
	})
}

// FuzzInfoThroughCore answers the core's first INFO to the master, and then
// to a replica, with the fuzzed texts.
func FuzzInfoThroughCore(f *testing.F) {
	master := "# Replication\r\nrole:master\r\nconnected_slaves:1\r\n" +
		"slave0:ip=127.0.0.1,port=6380,state=online,offset=1,lag=0\r\nrun_id:" + strings.Repeat("a", 40) + "\r\n"
	replica := "role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\nmaster_link_status:up\r\n" +
		"slave_priority:100\r\nslave_repl_offset:10\r\nreplica_announced:1\r\n"
	f.Add(master, replica, false)
	f.Add("role:master\r\nslave0:ip=a b\nsentinel x,port=1,state=online\r\nslave1:ip=::1,port=99999999999,state=online\r\n",
		"role:slave\r\nmaster_host:10.9.9.9\r\nmaster_port:1\r\nmaster_link_down_since_seconds:-1\r\n", true)
	f.Add("role:slave\r\nmaster_host:127.0.0.5\r\nmaster_port:7\r\n", "role:master\r\n", false)
	f.Add("slave0:127.0.0.1,6381,online\r\nslave1:host.example,0,online\r\nrole:master\r\n", "\x00role:slave", true)
	f.Fuzz(func(t *testing.T, masterInfo, replicaInfo string, resolve bool) {
		s := fuzzCore(resolve)
		now := fuzzT0
		answered := map[settings.Addr]bool{}
		links := map[msg.LinkID]settings.Addr{}
		for i := 0; i < 30 && len(answered) < 2; i++ {
			now = now.Add(100 * time.Millisecond)
			s.Tick(now, now)
			for _, a := range s.Ready().Actions {
				switch a := a.(type) {
				case msg.OpenLink:
					links[a.ID] = a.Addr
					if a.Kind == msg.CmdLink {
						_, _ = s.Step(now, msg.LinkLocalAddr{ID: a.ID, Addr: settings.Addr{Host: "127.0.0.1", Port: 40000}})
					}
				case msg.Send:
					if len(a.Args) == 0 || a.Args[0] != "INFO" {
						continue
					}
					addr := links[a.ID]
					var text string
					switch addr {
					case settings.Addr{Host: "127.0.0.1", Port: 6379}:
						text = masterInfo
					case settings.Addr{Host: "127.0.0.1", Port: 6380}:
						text = replicaInfo
					default:
						continue
					}
					answered[addr] = true
					_, _ = s.Step(now, msg.CommandReply{ID: a.ID, Tag: a.Tag, Reply: msg.Reply{Kind: msg.ReplyString, Str: text}})
				}
			}
		}
		for i := 0; i < 5; i++ {
			now = now.Add(time.Second)
			s.Tick(now, now)
			s.Ready()
		}
		checkPersistable(t, s)
	})
}

// TestHelloAddressesStoredAsRedis is the regression test of the first
// crashers of FuzzHelloThroughCore and FuzzInfoThroughCore: addresses peers
// report are stored in the form the config file is read back in, which is
// what redis-sentinel 7.0.15 shows for the same hellos (SENTINEL SENTINELS
// lists 127.0.0.1 and fe80::1), except that an IPv4-mapped address is
// shown as IPv4 (Redis shows ::ffff:1.2.3.4).
func TestHelloAddressesStoredAsRedis(t *testing.T) {
	for _, resolve := range []bool{false, true} {
		s := fuzzCore(resolve)
		for i, host := range []string{"127.1", "::ffff:1.2.3.4", "fe80::1%lo"} {
			h := gossip.Hello{SentinelIP: host, SentinelPort: 26380 + i, RunID: strings.Repeat(string(rune('a'+i)), 40),
				MasterName: "other", MasterIP: "::1", MasterPort: 7000}
			_, _ = s.Step(fuzzT0, msg.HelloFromClient{Payload: h.Encode()})
		}
		var got []string
		for _, m := range s.Snapshot().Masters {
			if m.Name == "other" {
				for _, si := range m.KnownSentinels {
					got = append(got, si.Addr.Host)
				}
			}
		}
		want := []string{"127.0.0.1", "1.2.3.4", "fe80::1"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("resolve-hostnames %v: stored %q, want %q", resolve, got, want)
		}
		checkPersistable(t, s)
	}
}
