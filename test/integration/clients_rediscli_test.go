package integration

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cliRun runs redis-cli against a loopback port in RESP2 (-2) or RESP3
// (-3) with --no-raw, so error replies print as "(error) ...", and returns
// its combined output and exit code.
func cliRun(t *testing.T, cli string, port int, resp3 bool, args ...string) (string, int) {
	t.Helper()
	proto := "-2"
	if resp3 {
		proto = "-3"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), proto, "--no-raw"}, args...)...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return string(out), code
}

// cliEntry is one instance of a SENTINEL MASTER(S)/REPLICAS/SENTINELS reply
// as redis-cli printed it: the field names in order and their values.
type cliEntry struct {
	keys []string
	vals map[string]string
}

var (
	cliResp3Field = regexp.MustCompile(`^(?:\s*\d+\))?\s*(\d+)# "([^"]*)" => "([^"]*)"$`)
	cliResp2Elem  = regexp.MustCompile(`^(?:\s*\d+\))?\s*(\d+)\) "([^"]*)"$`)
)

// parseCliEntries parses redis-cli's --no-raw rendering of a Sentinel
// instance reply (one map or flat array, or an array of them). Every value
// must be a bulk string: an integer or any other line is an error.
func parseCliEntries(out string, resp3 bool) ([]cliEntry, error) {
	var entries []cliEntry
	var pendingKey string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var idx int
		if resp3 {
			m := cliResp3Field.FindStringSubmatch(l)
			if m == nil {
				return nil, fmt.Errorf("not a map field of bulk strings: %q", l)
			}
			idx, _ = strconv.Atoi(m[1])
			if idx == 1 {
				entries = append(entries, cliEntry{vals: map[string]string{}})
			}
			if len(entries) == 0 {
				return nil, fmt.Errorf("field before the first entry: %q", l)
			}
			e := &entries[len(entries)-1]
			e.keys = append(e.keys, m[2])
			e.vals[m[2]] = m[3]
			continue
		}
		m := cliResp2Elem.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("not a bulk string element: %q", l)
		}
		idx, _ = strconv.Atoi(m[1])
		if idx == 1 {
			entries = append(entries, cliEntry{vals: map[string]string{}})
		}
		if len(entries) == 0 {
			return nil, fmt.Errorf("element before the first entry: %q", l)
		}
		e := &entries[len(entries)-1]
		if idx%2 == 1 {
			pendingKey = m[2]
			e.keys = append(e.keys, m[2])
		} else {
			e.vals[pendingKey] = m[2]
		}
	}
	return entries, nil
}

// sentinelFlagOrder is the order redis-sentinel 7.0.15 writes flags in.
var sentinelFlagOrder = []string{"s_down", "o_down", "master", "slave", "sentinel", "disconnected", "master_down",
	"failover_in_progress", "promoted", "reconf_sent", "reconf_inprog", "reconf_done", "force_failover", "script_kill_sent"}

// checkFlags checks that flags is a comma list of known flags in 7.0.15's
// order, including want.
func checkFlags(flags, want string) error {
	parts := strings.Split(flags, ",")
	last := -1
	for _, f := range parts {
		i := slices.Index(sentinelFlagOrder, f)
		if i < 0 {
			return fmt.Errorf("unknown flag %q in %q", f, flags)
		}
		if i <= last {
			return fmt.Errorf("flags %q out of redis's order", flags)
		}
		last = i
	}
	if !slices.Contains(parts, want) {
		return fmt.Errorf("flags %q lack %q", flags, want)
	}
	return nil
}

// expectedFields returns the field names, in order, of an instance reply of
// kind ("master", "slave" or "sentinel") with the given flags, as
// addReplySentinelRedisInstance writes them in redis 7.0.15.
func expectedFields(kind, flags string) []string {
	has := func(f string) bool { return slices.Contains(strings.Split(flags, ","), f) }
	k := []string{"name", "ip", "port", "runid", "flags", "link-pending-commands", "link-refcount"}
	if has("failover_in_progress") {
		k = append(k, "failover-state")
	}
	k = append(k, "last-ping-sent", "last-ok-ping-reply", "last-ping-reply")
	if has("s_down") {
		k = append(k, "s-down-time")
	}
	if has("o_down") {
		k = append(k, "o-down-time")
	}
	k = append(k, "down-after-milliseconds")
	switch kind {
	case "master":
		k = append(k, "info-refresh", "role-reported", "role-reported-time", "config-epoch", "num-slaves",
			"num-other-sentinels", "quorum", "failover-timeout", "parallel-syncs")
	case "slave":
		k = append(k, "info-refresh", "role-reported", "role-reported-time", "master-link-down-time",
			"master-link-status", "master-host", "master-port", "slave-priority", "slave-repl-offset", "replica-announced")
	case "sentinel":
		k = append(k, "last-hello-message", "voted-leader", "voted-leader-epoch")
	}
	return k
}

// checkEntries checks a parsed instance list: its length, each entry's
// fields and order, flags, and that the addresses are wantAddrs.
func checkEntries(entries []cliEntry, kind string, wantAddrs []string) error {
	if len(entries) != len(wantAddrs) {
		return fmt.Errorf("%d entries, want %d", len(entries), len(wantAddrs))
	}
	var got []string
	for _, e := range entries {
		if err := checkFlags(e.vals["flags"], kind); err != nil {
			return err
		}
		if want := expectedFields(kind, e.vals["flags"]); !slices.Equal(e.keys, want) {
			return fmt.Errorf("fields of %s:\n got %v\nwant %v", e.vals["name"], e.keys, want)
		}
		got = append(got, e.vals["ip"]+":"+e.vals["port"])
	}
	sort.Strings(got)
	want := slices.Clone(wantAddrs)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("addresses %v, want %v", got, want)
	}
	return nil
}

// cliState is what the SENTINEL command checks expect of the fleet.
type cliState struct {
	master    int      // current master port
	replicas  []string // addresses SENTINEL REPLICAS lists
	sentinels []string // addresses of the other Sentinels
	other     int      // port of the throwaway master for MONITOR/RESET/SET/REMOVE
}

// cliCase is one redis-cli invocation and what its output must show.
type cliCase struct {
	args    []string
	wantErr string // the expected error reply ("" when an error is a failure)
	check   func(out string, resp3 bool) error
}

func wantExact(want string) func(string, bool) error {
	return func(out string, _ bool) error {
		if strings.TrimRight(out, "\n") != want {
			return fmt.Errorf("want %q", want)
		}
		return nil
	}
}

func wantContains(subs ...string) func(string, bool) error {
	return func(out string, _ bool) error {
		for _, s := range subs {
			if !strings.Contains(out, s) {
				return fmt.Errorf("missing %q", s)
			}
		}
		return nil
	}
}

func wantEntries(kind string, addrs []string, more func([]cliEntry) error) func(string, bool) error {
	return func(out string, resp3 bool) error {
		entries, err := parseCliEntries(out, resp3)
		if err != nil {
			return err
		}
		if err := checkEntries(entries, kind, addrs); err != nil {
			return err
		}
		if more != nil {
			return more(entries)
		}
		return nil
	}
}

func wantField(field, value string) func([]cliEntry) error {
	return func(es []cliEntry) error {
		for _, e := range es {
			if e.vals[field] != value {
				return fmt.Errorf("%s of %s is %q, want %q", field, e.vals["name"], e.vals[field], value)
			}
		}
		return nil
	}
}

// sentinelCliCases lists every SENTINEL subcommand the issue names, in an
// order that leaves the Sentinel as it was (the throwaway master is
// monitored, reset, set and removed again).
func sentinelCliCases(st cliState) []cliCase {
	master := fmt.Sprintf("127.0.0.1:%d", st.master)
	masterChecks := func(es []cliEntry) error {
		for _, f := range []struct{ k, v string }{{"name", "mymaster"}, {"num-slaves", strconv.Itoa(len(st.replicas))},
			{"num-other-sentinels", strconv.Itoa(len(st.sentinels))}, {"quorum", "2"}, {"role-reported", "master"}} {
			if err := wantField(f.k, f.v)(es); err != nil {
				return err
			}
		}
		return nil
	}
	otherAddr := fmt.Sprintf("127.0.0.1:%d", st.other)
	return []cliCase{
		{args: []string{"SENTINEL", "MASTERS"}, check: wantEntries("master", []string{master}, masterChecks)},
		{args: []string{"SENTINEL", "MASTER", "mymaster"}, check: wantEntries("master", []string{master}, masterChecks)},
		{args: []string{"SENTINEL", "REPLICAS", "mymaster"}, check: wantEntries("slave", st.replicas, nil)},
		{args: []string{"SENTINEL", "SLAVES", "mymaster"}, check: wantEntries("slave", st.replicas, nil)},
		{args: []string{"SENTINEL", "SENTINELS", "mymaster"}, check: wantEntries("sentinel", st.sentinels, nil)},
		{args: []string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"},
			check: wantExact(fmt.Sprintf("1) \"127.0.0.1\"\n2) \"%d\"", st.master))},
		{args: []string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "nosuchmaster"}, check: wantExact("(nil)")},
		{args: []string{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", strconv.Itoa(st.master), "0", "*"},
			check: wantExact("1) (integer) 0\n2) \"*\"\n3) (integer) 0")},
		{args: []string{"SENTINEL", "CKQUORUM", "mymaster"},
			check: wantExact(fmt.Sprintf("OK %d usable Sentinels. Quorum and failover authorization can be reached", len(st.sentinels)+1))},
		{args: []string{"SENTINEL", "FLUSHCONFIG"}, check: wantExact("OK")},
		{args: []string{"SENTINEL", "INFO-CACHE", "mymaster"}, check: func(out string, _ bool) error {
			if !strings.HasPrefix(out, "1) \"mymaster\"\n2) ") {
				return fmt.Errorf("does not start with the master name")
			}
			// One [age, info] pair per instance; instances never reached
			// (a dead old master) have a nil info.
			if n := strings.Count(out, `"# Server\r\n`); n < 2 {
				return fmt.Errorf("%d cached INFO texts, want at least 2", n)
			}
			if n := strings.Count(out, "(integer) "); n != len(st.replicas)+1 {
				return fmt.Errorf("%d entries, want %d", n, len(st.replicas)+1)
			}
			return nil
		}},
		{args: []string{"SENTINEL", "MYID"}, check: func(out string, _ bool) error {
			if !regexp.MustCompile(`^"[0-9a-f]{40}"\n$`).MatchString(out) {
				return fmt.Errorf("not a 40-hex id")
			}
			return nil
		}},
		{args: []string{"SENTINEL", "PENDING-SCRIPTS"}, check: wantExact("(empty array)")},
		{args: []string{"SENTINEL", "DEBUG"}, check: func(out string, resp3 bool) error {
			names := []string{"INFO-PERIOD", "PING-PERIOD", "ASK-PERIOD", "PUBLISH-PERIOD", "DEFAULT-DOWN-AFTER",
				"DEFAULT-FAILOVER-TIMEOUT", "TILT-TRIGGER", "TILT-PERIOD", "SLAVE-RECONF-TIMEOUT",
				"MIN-LINK-RECONNECT-PERIOD", "ELECTION-TIMEOUT", "SCRIPT-MAX-RUNTIME", "SCRIPT-RETRY-DELAY"}
			var got []string
			re := cliResp2Elem
			if resp3 {
				re = cliResp3Field
			}
			for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				m := re.FindStringSubmatch(l)
				if m == nil {
					return fmt.Errorf("bad line %q", l)
				}
				if resp3 || i%2 == 0 {
					got = append(got, m[2])
				}
			}
			if !slices.Equal(got, names) {
				return fmt.Errorf("parameters %v, want %v", got, names)
			}
			return nil
		}},
		{args: []string{"SENTINEL", "DEBUG", "ping-period", "1000"}, check: wantExact("OK")},
		{args: []string{"SENTINEL", "CONFIG", "GET", "*"}, check: wantContains(`"resolve-hostnames"`, `"announce-hostnames"`,
			`"announce-ip"`, `"announce-port"`, `"sentinel-user"`, `"sentinel-pass"`)},
		{args: []string{"SENTINEL", "SIMULATE-FAILURE", "HELP"},
			check: wantExact("1) \"crash-after-election\"\n2) \"crash-after-promotion\"")},
		{args: []string{"SENTINEL", "HELP"}, check: func(out string, _ bool) error {
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if len(lines) != 49 || !strings.HasPrefix(lines[0], " 1) SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:") ||
				!strings.HasSuffix(lines[48], "Prints this help.") {
				return fmt.Errorf("not 7.0.15's 49-line help")
			}
			return nil
		}},
		{args: []string{"SENTINEL", "MONITOR", "throwaway", "127.0.0.1", strconv.Itoa(st.other), "1"}, check: wantExact("OK")},
		{args: []string{"SENTINEL", "RESET", "throwaway"}, check: wantExact("(integer) 1")},
		{args: []string{"SENTINEL", "SET", "throwaway", "down-after-milliseconds", "5000", "quorum", "1"}, check: wantExact("OK")},
		{args: []string{"SENTINEL", "MASTER", "throwaway"},
			check: wantEntries("master", []string{otherAddr}, wantField("down-after-milliseconds", "5000"))},
		{args: []string{"SENTINEL", "REMOVE", "throwaway"}, check: wantExact("OK")},
		{args: []string{"SENTINEL", "MASTER", "throwaway"}, wantErr: "(error) ERR No such master with that name"},
		{args: []string{"SENTINEL", "MASTERS"}, check: wantEntries("master", []string{master}, nil)},
	}
}

var cliErrorWord = regexp.MustCompile(`\bERR\b`)

// runSentinelCliCases runs every case in RESP2 and RESP3 against one
// Sentinel and reports each failure with the full output.
func runSentinelCliCases(t *testing.T, cli string, port int, st cliState) {
	t.Helper()
	for _, resp3 := range []bool{false, true} {
		for _, c := range sentinelCliCases(st) {
			out, code := cliRun(t, cli, port, resp3, c.args...)
			name := fmt.Sprintf("RESP%d %s", map[bool]int{false: 2, true: 3}[resp3], strings.Join(c.args, " "))
			if code != 0 {
				t.Errorf("%s: exit status %d:\n%s", name, code, out)
				continue
			}
			if strings.Contains(out, "HELLO 3 failed") {
				t.Errorf("%s: %s", name, out)
				continue
			}
			if c.wantErr != "" {
				if strings.TrimRight(out, "\n") != c.wantErr {
					t.Errorf("%s: got %q, want the error %q", name, out, c.wantErr)
				}
				continue
			}
			if strings.Contains(out, "(error)") || cliErrorWord.MatchString(out) {
				t.Errorf("%s: error reply:\n%s", name, out)
				continue
			}
			if err := c.check(out, resp3); err != nil {
				t.Errorf("%s: %v; output:\n%s", name, err, out)
			}
		}
	}
}

// TestClientRedisCliSentinelCommands runs every SENTINEL subcommand through
// redis-cli (RESP2 and RESP3) against one of three go-sentinels before and
// after a failover, watches the failover through `redis-cli --csv
// PSUBSCRIBE *`, and writes through redis-cli to the address the Sentinel
// gives.
func TestClientRedisCliSentinelCommands(t *testing.T) {
	cli := needBinary(t, "redis-cli")
	top, _ := clientFleet(t)
	other := startRedis(t)
	s := top.sentinels[0]
	addrOf := func(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
	var sentinels []string
	for _, o := range top.sentinels[1:] {
		sentinels = append(sentinels, addrOf(o.Port))
	}

	// The event watchers, in both protocols, before anything happens.
	var subs []*proc
	for _, proto := range []string{"-2", "-3"} {
		p := start(t, "", nil, cli, "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), proto, "--csv", "PSUBSCRIBE", "*")
		waitLine(t, p, 0, 10*time.Second, "redis-cli "+proto+" to confirm PSUBSCRIBE", isLine(`"psubscribe","*",1`))
		subs = append(subs, p)
		t.Cleanup(func() { t.Logf("redis-cli %s --csv PSUBSCRIBE '*' printed:\n%s", proto, p.out.String()) })
	}

	runSentinelCliCases(t, cli, s.Port, cliState{master: top.master.Port,
		replicas: []string{addrOf(top.replicas[0].Port), addrOf(top.replicas[1].Port)}, sentinels: sentinels, other: other.Port})
	if t.Failed() {
		t.FailNow()
	}

	oldPort := top.master.Port
	logs := watchAll(t, top)
	newMaster := waitFailover(t, top, logs)
	var remaining *proc
	for _, r := range top.replicas {
		if r != newMaster {
			remaining = r
		}
	}

	for i, p := range subs {
		proto := []string{"RESP2", "RESP3"}[i]
		waitLine(t, p, 0, 10*time.Second, proto+" +switch-master in redis-cli --csv",
			isLine(fmt.Sprintf(`"pmessage","*","+switch-master","mymaster 127.0.0.1 %d 127.0.0.1 %d"`, oldPort, newMaster.Port)))
		// +sdown of the old master, seen as the master before the switch or
		// as a replica of the new master after it.
		waitLine(t, p, 0, 15*time.Second, proto+" +sdown of the old master in redis-cli --csv", func(l string) bool {
			return l == fmt.Sprintf(`"pmessage","*","+sdown","master mymaster 127.0.0.1 %d"`, oldPort) ||
				l == fmt.Sprintf(`"pmessage","*","+sdown","slave 127.0.0.1:%d 127.0.0.1 %d @ mymaster 127.0.0.1 %d"`, oldPort, oldPort, newMaster.Port)
		})
		waitLine(t, p, 0, 5*time.Second, proto+" +slave for the remaining replica", isLine(fmt.Sprintf(
			`"pmessage","*","+slave","slave 127.0.0.1:%d 127.0.0.1 %d @ mymaster 127.0.0.1 %d"`, remaining.Port, remaining.Port, newMaster.Port)))
		for _, l := range scriptLines(p) {
			if !strings.HasPrefix(l, `"pmessage","*","`) && l != `"psubscribe","*",1` && !strings.HasPrefix(l, "Reading messages...") {
				t.Errorf("%s: unexpected line from redis-cli --csv PSUBSCRIBE: %q", proto, l)
			}
		}
	}

	// The old master, dead, is now listed as a replica (in s_down once
	// down-after-milliseconds has passed: wait for it so the flags are
	// stable).
	waitFor(t, 10*time.Second, "the old master to be s_down as a replica", func() bool {
		out, _ := cliRun(t, cli, s.Port, false, "SENTINEL", "REPLICAS", "mymaster")
		es, err := parseCliEntries(out, false)
		if err != nil {
			return false
		}
		for _, e := range es {
			if e.vals["port"] == strconv.Itoa(oldPort) && strings.Contains(e.vals["flags"], "s_down") {
				return true
			}
		}
		return false
	})
	runSentinelCliCases(t, cli, s.Port, cliState{master: newMaster.Port,
		replicas: []string{addrOf(remaining.Port), addrOf(oldPort)}, sentinels: sentinels, other: other.Port})

	// A redis-cli "client": ask the Sentinel, write there.
	out, code := cliRun(t, cli, s.Port, false, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	want := fmt.Sprintf("1) \"127.0.0.1\"\n2) \"%d\"\n", newMaster.Port)
	if code != 0 || out != want {
		t.Fatalf("GET-MASTER-ADDR-BY-NAME after the failover: %q (exit %d), want %q", out, code, want)
	}
	for i := 1; i <= 3; i++ {
		if out, code := cliRun(t, cli, newMaster.Port, false, "INCR", "cli-counter"); code != 0 || out != fmt.Sprintf("(integer) %d\n", i) {
			t.Fatalf("INCR on the new master: %q (exit %d)", out, code)
		}
	}
}
