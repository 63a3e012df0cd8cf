package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// checkReport is the part of `go-sentinel check --json` the tests read.
type checkReport struct {
	Live     bool `json:"live"`
	ExitCode int  `json:"exit_code"`
	Findings []struct {
		Severity string `json:"severity"`
		Rule     string `json:"rule"`
		Master   string `json:"master"`
		Reason   string `json:"reason"`
		Fix      string `json:"fix"`
	} `json:"findings"`
}

// runCheck runs `go-sentinel check conf args...` and returns its exit
// code and stdout.
func runCheck(t *testing.T, conf string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(sentinelBin, append([]string{"check", conf}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("check: %v", err)
	}
	if stderr.Len() > 0 {
		t.Logf("check stderr: %s", stderr.String())
	}
	return code, string(out)
}

// rules maps each rule id found to its finding's severity and reason.
func (r checkReport) rules() map[string]string {
	m := map[string]string{}
	for _, f := range r.Findings {
		m[f.Rule] = f.Severity + ": " + f.Reason
	}
	return m
}

func checkJSON(t *testing.T, conf string, args ...string) checkReport {
	t.Helper()
	code, out := runCheck(t, conf, append(args, "--json")...)
	var r checkReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	if r.ExitCode != code {
		t.Fatalf("exit code %d, report says %d", code, r.ExitCode)
	}
	return r
}

// TestCheckLiveFleet lints a live fleet of real redis-servers watched by
// a go-sentinel and a redis-sentinel: first a broken topology (2
// Sentinels, replicas all priority 0, one writable, no min-replicas, a
// Sentinel that does not answer), then the same one fixed, with a master
// near its maxmemory.
func TestCheckLiveFleet(t *testing.T) {
	top := &topology{t: t, master: startRedis(t)}
	mport := fmt.Sprint(top.master.Port)
	r1 := startRedis(t, "--replicaof", "127.0.0.1", mport, "--replica-priority", "0")
	r2 := startRedis(t, "--replicaof", "127.0.0.1", mport, "--replica-priority", "0", "--replica-read-only", "no")
	top.replicas = append(top.replicas, r1, r2)
	top.addGoSentinel(2, "")
	top.addRedisSentinel(2, "")
	waitSentinels := func(others int) {
		for _, s := range top.sentinels {
			s := s
			waitFor(t, 15*time.Second, fmt.Sprintf("sentinel :%d to know %d others and 2 replicas", s.Port, others), func() bool {
				return listLen(t, s.Port, "SENTINELS") == others && listLen(t, s.Port, "REPLICAS") == 2
			})
		}
	}
	waitSentinels(1)
	sentinelList := func(extra ...int) string {
		var addrs []string
		for _, s := range top.sentinels {
			addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", s.Port))
		}
		for _, p := range extra {
			addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", p))
		}
		return strings.Join(addrs, ",")
	}

	dead := freePort(t)
	r := checkJSON(t, top.confs[0], "--sentinels", sentinelList(dead))
	got := r.rules()
	if !r.Live || r.ExitCode != 2 {
		t.Errorf("live %v, exit %d", r.Live, r.ExitCode)
	}
	for rule, want := range map[string]string{
		"sentinel-count":        "error: only 2 Sentinels watch mymaster (as the running Sentinels report)",
		"no-promotable-replica": "error: every replica of mymaster (2) has replica-priority 0",
		"min-replicas":          "warning: the master 127.0.0.1:" + mport + " of mymaster has min-replicas-to-write 0",
		"replica-writable":      fmt.Sprintf("warning: the replica 127.0.0.1:%d of mymaster has replica-read-only no", r2.Port),
		"sentinel-unreachable":  fmt.Sprintf("warning: Sentinel 127.0.0.1:%d did not answer", dead),
		"failover-timing":       "info: a failover of mymaster",
	} {
		if !strings.HasPrefix(got[rule], want) {
			t.Errorf("%s: got %q, want prefix %q", rule, got[rule], want)
		}
	}
	if !strings.Contains(got["sentinel-count"], "majority of 2") {
		t.Errorf("sentinel-count: %s", got["sentinel-count"])
	}
	for _, rule := range []string{"quorum-unreachable", "single-instance-capacity", "instance-unreachable", "ckquorum", "master-disagreement"} {
		if got[rule] != "" {
			t.Errorf("unexpected %s: %s", rule, got[rule])
		}
	}

	// Fix it: a third Sentinel, min-replicas on the master, a promotable
	// read-only replica; and bring the master near its maxmemory.
	ctx := context.Background()
	m := client(t, top.master.Port)
	for _, kv := range [][2]string{{"min-replicas-to-write", "1"}, {"min-replicas-max-lag", "10"}} {
		if err := m.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := client(t, r1.Port).ConfigSet(ctx, "replica-priority", "100").Err(); err != nil {
		t.Fatal(err)
	}
	if err := client(t, r2.Port).ConfigSet(ctx, "replica-read-only", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	info, err := m.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	var usedMem int64
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			fmt.Sscan(v, &usedMem)
		}
	}
	if err := m.ConfigSet(ctx, "maxmemory", fmt.Sprint(usedMem*11/10)).Err(); err != nil {
		t.Fatal(err)
	}
	top.addGoSentinel(2, "")
	waitSentinels(2)

	r = checkJSON(t, top.confs[0], "--sentinels", sentinelList())
	got = r.rules()
	if r.ExitCode != 1 || len(got) != 2 || got["failover-timing"] == "" {
		t.Errorf("exit %d, findings %v", r.ExitCode, got)
	}
	if c := got["single-instance-capacity"]; !strings.HasPrefix(c, "warning: the master 127.0.0.1:"+mport+" of mymaster uses") ||
		!strings.Contains(c, "of its maxmemory") || !strings.Contains(c, "Sentinel adds no sharding") {
		t.Errorf("capacity: %q", c)
	}

	// The text report prints the parsed config, then the findings.
	code, out := runCheck(t, top.confs[0], "--sentinels", sentinelList())
	if code != 1 || !strings.Contains(out, "master mymaster\n") || !strings.Contains(out, "WARNING [single-instance-capacity] mymaster\n") ||
		!strings.Contains(out, ": 0 errors, 1 warning (1 info); checked live through 3 Sentinels\n") {
		t.Errorf("text report (exit %d):\n%s", code, out)
	}
}

// TestCheckLiveFailoverACL lints a fleet whose data nodes give Sentinel's
// user (auth-user) the classic Sentinel ACL: on the master it lacks
// +failover +client|pause +client|unpause, on one replica it has them, on
// the other it lacks +acl|dryrun so check cannot verify. Then the fix
// check prints is applied to the master. Nothing but ACL DRYRUN may reach
// the failover commands.
func TestCheckLiveFailoverACL(t *testing.T) {
	classic := "sentinel-user on >s3cr3t allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info " +
		"+client|setname +client|kill +script|kill"
	user := func(rules string) []string { return append([]string{"--user"}, strings.Fields(rules)...) }
	top := &topology{t: t, master: startRedis(t, user(classic+" +acl|dryrun")...)}
	mport := fmt.Sprint(top.master.Port)
	r1 := startRedis(t, append(user(classic+" +acl|dryrun +failover +client|pause +client|unpause"), "--replicaof", "127.0.0.1", mport)...)
	r2 := startRedis(t, append(user(classic), "--replicaof", "127.0.0.1", mport)...)
	top.replicas = append(top.replicas, r1, r2)
	top.addGoSentinel(1, "sentinel auth-user mymaster sentinel-user\nsentinel auth-pass mymaster s3cr3t\n")
	s := top.sentinels[0]
	waitFor(t, 15*time.Second, "the sentinel to know 2 replicas", func() bool { return listLen(t, s.Port, "REPLICAS") == 2 })
	sentinels := fmt.Sprintf("127.0.0.1:%d", s.Port)

	// findings returns the coordinated-failover findings by rule and
	// the instance address they name.
	findings := func() map[string]string {
		r := checkJSON(t, top.confs[0], "--sentinels", sentinels)
		got := map[string]string{}
		for _, f := range r.Findings {
			if !strings.HasPrefix(f.Rule, "coordinated-failover-") {
				continue
			}
			var addr string
			for _, w := range strings.Fields(f.Reason) {
				if strings.HasPrefix(w, "127.0.0.1:") {
					addr = w
					break
				}
			}
			got[f.Rule+" "+addr] = f.Severity + ": " + f.Reason + "\nfix: " + f.Fix
		}
		return got
	}
	mAddr, r1Addr, r2Addr := "127.0.0.1:"+mport, fmt.Sprintf("127.0.0.1:%d", r1.Port), fmt.Sprintf("127.0.0.1:%d", r2.Port)
	got := findings()
	if len(got) != 2 {
		t.Errorf("want 2 coordinated-failover findings, got %d: %v", len(got), got)
	}
	for key, want := range map[string][]string{
		"coordinated-failover-acl " + mAddr: {"warning: the user Sentinel logs in to the master " + mAddr + " of mymaster as (sentinel-user) " +
			"may not run failover, client|pause, client|unpause, as ACL DRYRUN reports",
			"fix: Run `ACL SETUSER sentinel-user +failover +client|pause +client|unpause` on " + mAddr},
		"coordinated-failover-acl " + r2Addr: {"info: whether the user Sentinel logs in to the replica " + r2Addr + " of mymaster as (sentinel-user)",
			"could not be verified: ACL DRYRUN answered \"NOPERM", "+failover +client|pause +client|unpause +client|kill +config|rewrite +multi +exec"},
	} {
		for _, w := range want {
			if !strings.Contains(got[key], w) {
				t.Errorf("%s: %q lacks %q", key, got[key], w)
			}
		}
	}
	if f, ok := got["coordinated-failover-acl "+r1Addr]; ok {
		t.Errorf("replica with the failover ACL: %s", f)
	}

	// The printed fix works, and only DRYRUN named the failover commands.
	ctx := context.Background()
	m := client(t, top.master.Port)
	if err := m.Do(ctx, "ACL", "SETUSER", "sentinel-user", "+failover", "+client|pause", "+client|unpause").Err(); err != nil {
		t.Fatal(err)
	}
	got = findings()
	if len(got) != 1 || got["coordinated-failover-acl "+r2Addr] == "" {
		t.Errorf("after ACL SETUSER on the master: %v", got)
	}
	for _, p := range []int{top.master.Port, r1.Port, r2.Port} {
		stats, err := client(t, p).Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"cmdstat_failover:", "cmdstat_client|pause:", "cmdstat_client|unpause:"} {
			if strings.Contains(stats, c) {
				t.Errorf(":%d ran %s", p, strings.TrimSuffix(c, ":"))
			}
		}
	}
}
