package probe

import (
	"bufio"
	"context"
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/lint"
)

func TestParseInfoAndReplicaLines(t *testing.T) {
	text := "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n" +
		"slave0:ip=127.0.0.1,port=6380,state=online,offset=14,lag=0\r\n" +
		"slave1:ip=::1,port=6381,state=online,offset=14,lag=1\r\n" +
		"master_failover_state:no-failover\r\n\r\n# Memory\r\nused_memory:1036344\r\n"
	info := parseInfo(text)
	if info["role"] != "master" || info["used_memory"] != "1036344" || info["master_failover_state"] != "no-failover" {
		t.Fatalf("got %v", info)
	}
	if got := replicaLines(info); !reflect.DeepEqual(got, []string{"127.0.0.1:6380", "[::1]:6381"}) {
		t.Fatalf("replicas %v", got)
	}
}

// TestGatherUnreachable checks that a Sentinel that refuses connections
// is reported as such and that no master facts are made up.
func TestGatherUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, err := config.Parse("/s.conf", []byte("sentinel monitor m 127.0.0.1 6379 2\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	Quiet()
	f := Gather(context.Background(), cfg, []string{addr}, Options{Timeout: time.Second})
	if len(f.Sentinels) != 1 || !strings.Contains(f.Sentinels[0].Err, "refused") || len(f.Masters) != 0 {
		t.Fatalf("got %+v", f)
	}
}

// fakeServer answers RESP commands on a loopback port with reply(args), a
// raw RESP reply, and records every command it got.
type fakeServer struct {
	addr string
	mu   sync.Mutex
	got  [][]string
}

func startFake(t *testing.T, reply func(args []string) string) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				rd := bufio.NewReader(nc)
				for {
					args, err := readCommand(rd)
					if err != nil {
						return
					}
					f.mu.Lock()
					f.got = append(f.got, args)
					f.mu.Unlock()
					if _, err := io.WriteString(nc, reply(args)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return f
}

// readCommand reads one RESP array of bulk strings.
func readCommand(rd *bufio.Reader) ([]string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		if line, err = rd.ReadString('\n'); err != nil {
			return nil, err
		}
		l, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil {
			return nil, err
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(rd, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:l])
	}
	return args, nil
}

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// dataNode is a fake data node: INFO says info, ACL DRYRUN (or its
// rename MYACL) answers dryrun(the user, the command asked about), AUTH
// and PING succeed and HELLO is unknown.
func dataNode(info string, dryrun func(user string, cmd []string) string) func([]string) string {
	return func(args []string) string {
		switch strings.ToUpper(args[0]) {
		case "HELLO":
			return "-ERR unknown command 'HELLO'\r\n"
		case "AUTH":
			return "+OK\r\n"
		case "PING":
			return "+PONG\r\n"
		case "INFO":
			return bulk(info)
		case "ACL", "MYACL":
			if len(args) >= 4 && strings.EqualFold(args[1], "DRYRUN") {
				return dryrun(args[2], args[3:])
			}
		}
		return "-ERR unexpected\r\n"
	}
}

// TestProbeFailoverFacts probes fake data nodes for the server version
// and the ACL DRYRUN answers about the failover commands, and checks that
// none of those commands is sent for real.
func TestProbeFailoverFacts(t *testing.T) {
	const info7 = "# Server\r\nredis_version:7.0.15\r\n\r\n# Replication\r\nrole:slave\r\nmaster_failover_state:no-failover\r\n"
	noFailover := func(user string, cmd []string) string {
		if strings.EqualFold(cmd[0], "FAILOVER") {
			return bulk("This user has no permissions to run the 'failover' command")
		}
		return "+OK\r\n"
	}
	for _, tc := range []struct {
		name    string
		conf    string
		info    string
		dryrun  func(user string, cmd []string) string
		version string
		valkey  bool
		state   bool
		acl     lint.ACLCheck
	}{
		{name: "denied", conf: "sentinel auth-user m sentinel-user\nsentinel auth-pass m pw\n", info: info7, dryrun: noFailover,
			version: "7.0.15", state: true, acl: lint.ACLCheck{User: "sentinel-user", Verified: true,
				Denied: []lint.ACLDenial{{Command: "failover", Reason: "This user has no permissions to run the 'failover' command"}}}},
		{name: "allowed, renamed", conf: "sentinel rename-command m ACL MYACL\nsentinel rename-command m CLIENT MYCLIENT\n", info: info7,
			dryrun: func(user string, cmd []string) string {
				if user != "default" || strings.EqualFold(cmd[0], "CLIENT") {
					return "-ERR Command 'CLIENT' not found\r\n"
				}
				return "+OK\r\n"
			},
			version: "7.0.15", state: true, acl: lint.ACLCheck{User: "default", Verified: true}},
		{name: "missing", conf: "", info: info7,
			dryrun: func(user string, cmd []string) string {
				if strings.EqualFold(cmd[0], "CONFIG") {
					return "-ERR Command 'CONFIG' not found\r\n"
				}
				return "+OK\r\n"
			},
			version: "7.0.15", state: true, acl: lint.ACLCheck{User: "default", Verified: true,
				Denied: []lint.ACLDenial{{Command: "config|rewrite", Missing: true, Reason: "ERR Command 'CONFIG' not found"}}}},
		{name: "6.2: no DRYRUN", info: "redis_version:6.2.14\r\nmaster_failover_state:no-failover\r\n",
			dryrun: func(string, []string) string {
				return "-ERR Unknown subcommand or wrong number of arguments for 'DRYRUN'. Try ACL HELP.\r\n"
			},
			version: "6.2.14", state: true, acl: lint.ACLCheck{User: "default",
				Unverified: "ERR Unknown subcommand or wrong number of arguments for 'DRYRUN'. Try ACL HELP."}},
		{name: "valkey, no permission for DRYRUN", info: "redis_version:7.2.4\r\nvalkey_version:8.0.1\r\nmaster_failover_state:no-failover\r\n",
			dryrun: func(string, []string) string {
				return "-NOPERM User sentinel has no permissions to run the 'acl|dryrun' command\r\n"
			},
			version: "8.0.1", valkey: true, state: true, acl: lint.ACLCheck{User: "default",
				Unverified: "NOPERM User sentinel has no permissions to run the 'acl|dryrun' command"}},
		{name: "5.0", info: "redis_version:5.0.14\r\nrole:slave\r\n",
			dryrun:  func(string, []string) string { return "-ERR unknown command `ACL`\r\n" },
			version: "5.0.14", acl: lint.ACLCheck{User: "default", Unverified: "ERR unknown command `ACL`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := startFake(t, dataNode(tc.info, tc.dryrun))
			cfg, err := config.Parse("/s.conf", []byte("sentinel monitor m 127.0.0.1 6379 2\n"+tc.conf), nil)
			if err != nil {
				t.Fatal(err)
			}
			m := cfg.Sentinel.Masters[0]
			renames := map[string]string{}
			for _, r := range m.RenameCommands {
				renames[strings.ToUpper(r.Command)] = r.Renamed
			}
			in := &instanceProber{prober: &prober{opts: Options{Timeout: time.Second, Pings: 1}}, spec: m,
				user: m.AuthUser, pass: m.AuthPass, renames: renames}
			got := in.probe(context.Background(), fake.addr, false)
			if got.Err != "" {
				t.Fatalf("probe: %s", got.Err)
			}
			if got.Version != tc.version || got.Valkey != tc.valkey || got.FailoverState != tc.state {
				t.Errorf("version %q valkey %v failover state %v", got.Version, got.Valkey, got.FailoverState)
			}
			if !reflect.DeepEqual(got.FailoverACL, tc.acl) {
				t.Errorf("ACL check\n got %+v\nwant %+v", got.FailoverACL, tc.acl)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			for _, args := range fake.got {
				switch strings.ToUpper(args[0]) {
				case "HELLO", "AUTH", "PING", "INFO", "ACL", "MYACL":
				default:
					t.Errorf("sent %q", args)
				}
				if a := strings.ToUpper(args[0]); (a == "ACL" || a == "MYACL") && !strings.EqualFold(args[1], "DRYRUN") {
					t.Errorf("sent %q", args)
				}
			}
		})
	}
}

func array(items ...string) string {
	return "*" + strconv.Itoa(len(items)) + "\r\n" + strings.Join(items, "")
}

// fakeSentinel is a Sentinel monitoring m (its master at masterAddr, with
// peer as the one other Sentinel, "" for none) whose INFO server says
// info.
func fakeSentinel(id, info, masterAddr, peer, peerID string) func([]string) string {
	return func(args []string) string {
		cmd := strings.ToUpper(strings.Join(args, " "))
		switch {
		case strings.HasPrefix(cmd, "HELLO"):
			return "-ERR unknown command 'HELLO'\r\n"
		case cmd == "SENTINEL MYID":
			return bulk(id)
		case cmd == "INFO SERVER":
			return bulk(info)
		case cmd == "SENTINEL MASTER M":
			return array(bulk("name"), bulk("m"), bulk("quorum"), bulk("2"))
		case cmd == "SENTINEL GET-MASTER-ADDR-BY-NAME M":
			h, p, _ := net.SplitHostPort(masterAddr)
			return array(bulk(h), bulk(p))
		case cmd == "SENTINEL SENTINELS M":
			if peer == "" {
				return array()
			}
			h, p, _ := net.SplitHostPort(peer)
			return array(array(bulk("name"), bulk(peer), bulk("ip"), bulk(h), bulk("port"), bulk(p), bulk("runid"), bulk(peerID)))
		case cmd == "SENTINEL REPLICAS M":
			return array()
		case cmd == "SENTINEL CKQUORUM M":
			return "+OK 2 usable Sentinels. Quorum and failover authorization can be reached\r\n"
		}
		return "-ERR unexpected\r\n"
	}
}

// TestGatherImpls checks that the probe tells go-sentinel from
// redis-sentinel by INFO server, for the Sentinel given and for the peer
// it lists, which is not given.
func TestGatherImpls(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadMaster := ln.Addr().String()
	ln.Close()
	const goID, redisID = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	peer := startFake(t, fakeSentinel(redisID, "# Server\r\nredis_version:7.0.15\r\nredis_mode:sentinel\r\n", deadMaster, "", ""))
	given := startFake(t, fakeSentinel(goID, "# Server\r\nredis_version:7.0.15\r\ngo_version:go1.26.8\r\n", deadMaster, peer.addr, redisID))
	cfg, err := config.Parse("/s.conf", []byte("sentinel monitor m 127.0.0.1 6379 2\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	Quiet()
	f := Gather(context.Background(), cfg, []string{given.addr}, Options{Timeout: time.Second, Pings: 1})
	want := map[string]lint.Impl{goID: lint.ImplGo, strings.ToLower(redisID): lint.ImplRedis}
	if !reflect.DeepEqual(f.Impls, want) {
		t.Errorf("impls %v, want %v", f.Impls, want)
	}
	if v := f.Masters["m"].Views; len(v) != 1 || !reflect.DeepEqual(v[0].Others, []string{redisID}) {
		t.Errorf("views %+v", v)
	}
}

func TestImplOfInfo(t *testing.T) {
	for _, tc := range []struct {
		info map[string]string
		want lint.Impl
	}{
		{map[string]string{"redis_version": "7.0.15", "go_version": "go1.26.8"}, lint.ImplGo},
		{map[string]string{"redis_version": "7.0.15"}, lint.ImplRedis},
		{map[string]string{"redis_version": "7.2.4", "valkey_version": "8.0.1"}, lint.ImplRedis},
		{map[string]string{}, lint.ImplUnknown},
	} {
		if got := lint.ImplOfInfo(tc.info); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.info, got, tc.want)
		}
	}
}
