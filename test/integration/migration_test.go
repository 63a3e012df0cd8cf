package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// replaceSentinel stops Sentinel i of top (SIGTERM, as systemctl stop does)
// and starts the other daemon (go-sentinel when toGo) on the same config
// file and port, as the switch in docs/migrating.md does on one host.
func (top *topology) replaceSentinel(i int, toGo bool) {
	t := top.t
	t.Helper()
	old := top.sentinels[i]
	old.signal(syscall.SIGTERM)
	if code := old.waitExit(10 * time.Second); code != 0 {
		t.Fatalf("sentinel %d exited with %d after SIGTERM", i, code)
	}
	conf := top.confs[i]
	if toGo {
		top.sentinels[i] = startSentinel(t, conf, old.Port, nil)
		return
	}
	p := start(t, old.Dir, nil, needBinary(t, "redis-sentinel"), conf)
	p.Port = old.Port
	waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool { return alive(p.Port) })
	top.sentinels[i] = p
}

// infoField returns the value of field in an INFO section of port, or "".
func infoField(t *testing.T, port int, section, field string) string {
	t.Helper()
	info, err := client(t, port).Info(context.Background(), section).Result()
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return v
		}
	}
	return ""
}

// checkMigrationStep runs the checks docs/migrating.md prescribes after
// each step, on every Sentinel of top: it runs the expected daemon
// (INFO server has go_version only for go-sentinel), kept its identity
// (SENTINEL MYID), sees the same master with both replicas and all three
// Sentinels (INFO sentinel's master0 line), lists exactly the two others
// by their ids, and answers CKQUORUM with OK.
func checkMigrationStep(t *testing.T, step string, top *topology, ids []string, isGo []bool, master string) {
	t.Helper()
	wantInfo := fmt.Sprintf("name=mymaster,status=ok,address=%s,slaves=2,sentinels=3", master)
	const wantQuorum = "OK 3 usable Sentinels. Quorum and failover authorization can be reached"
	var kinds []string
	for i, s := range top.sentinels {
		kind := map[bool]string{true: "go-sentinel", false: "redis-sentinel"}[isGo[i]]
		if hasGo := infoField(t, s.Port, "server", "go_version") != ""; hasGo != isGo[i] {
			t.Fatalf("%s: sentinel %d is not %s (INFO server go_version present: %v)", step, i, kind, hasGo)
		}
		var others []string
		for j, id := range ids {
			if j != i {
				others = append(others, id)
			}
		}
		sort.Strings(others)
		var last string
		agrees := func() bool {
			c := client(t, s.Port)
			ctx := context.Background()
			myid, _ := c.Do(ctx, "SENTINEL", "MYID").Text()
			info := infoField(t, s.Port, "sentinel", "master0")
			quorum, _ := c.Do(ctx, "SENTINEL", "CKQUORUM", "mymaster").Text()
			var listed []string
			if l, err := c.Do(ctx, "SENTINEL", "SENTINELS", "mymaster").Slice(); err == nil {
				for _, e := range l {
					f, _ := e.([]any)
					m := map[string]string{}
					for k := 0; k+1 < len(f); k += 2 {
						m[fmt.Sprint(f[k])] = fmt.Sprint(f[k+1])
					}
					if m["flags"] == "sentinel" {
						listed = append(listed, m["runid"])
					}
				}
			}
			sort.Strings(listed)
			last = fmt.Sprintf("myid %s; master0:%s; ckquorum %q; healthy sentinels %v", myid, info, quorum, listed)
			return myid == ids[i] && info == wantInfo && quorum == wantQuorum &&
				strings.Join(listed, ",") == strings.Join(others, ",")
		}
		deadline := time.Now().Add(30 * time.Second)
		for !agrees() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s %d does not agree with the fleet after 30s: %s", step, kind, i, last)
			}
			time.Sleep(100 * time.Millisecond)
		}
		kinds = append(kinds, kind)
	}
	t.Logf("%s: %v agree on master0:%s", step, kinds, wantInfo)
}

// TestMigrationOneHostAtATimeAndRollback walks docs/migrating.md on a
// fleet of three redis-sentinels: each host in turn switches to
// go-sentinel on the same config file and port, the fleet checks out after
// every step, a failover happens halfway (two go-sentinels, one
// redis-sentinel), and two hosts roll back to redis-sentinel from the
// config go-sentinel rewrote, keeping their ids and the new master.
func TestMigrationOneHostAtATimeAndRollback(t *testing.T) {
	top := startData(t, 2)
	for i := 0; i < 3; i++ {
		top.addRedisSentinel(2, "")
	}
	waitDiscovery(t, top)
	ids := make([]string, 3)
	for i, s := range top.sentinels {
		id, err := client(t, s.Port).Do(context.Background(), "SENTINEL", "MYID").Text()
		if err != nil || len(id) != 40 {
			t.Fatalf("SENTINEL MYID on %d: %q %v", i, id, err)
		}
		ids[i] = id
	}
	isGo := []bool{false, false, false}
	master := fmt.Sprintf("127.0.0.1:%d", top.master.Port)
	checkMigrationStep(t, "before", top, ids, isGo, master)

	for i, step := range []string{"step 1 (host A)", "step 2 (host B)"} {
		top.replaceSentinel(i, true)
		isGo[i] = true
		checkMigrationStep(t, step, top, ids, isGo, master)
	}

	// The half-migrated fleet fails over.
	logs := watchAll(t, top)
	newMaster := waitFailover(t, top, logs)
	master = fmt.Sprintf("127.0.0.1:%d", newMaster.Port)
	checkMigrationStep(t, "after a failover", top, ids, isGo, master)
	epoch := sentinelField(t, top.sentinels[0].Port, "config-epoch")

	top.replaceSentinel(2, true)
	isGo[2] = true
	checkMigrationStep(t, "step 3 (host C)", top, ids, isGo, master)

	// Rollback: redis-sentinel reads the config go-sentinel rewrote.
	for _, i := range []int{2, 0} {
		top.replaceSentinel(i, false)
		isGo[i] = false
		checkMigrationStep(t, fmt.Sprintf("rollback of host %c", 'A'+i), top, ids, isGo, master)
	}
	for i, s := range top.sentinels {
		if got := sentinelField(t, s.Port, "config-epoch"); got != epoch {
			t.Errorf("sentinel %d: config-epoch %s after the rollback, %s after the failover", i, got, epoch)
		}
	}
}
