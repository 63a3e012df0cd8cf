package integration

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// churnRounds is how many times TestChurnReplicaNewAddress restarts a
// replica pod with a new address.
const churnRounds = 3

// TestChurnReplicaNewAddress is issue 21's first churn test: a replica
// "pod" restarted with a new address and a new run id (a fresh
// redis-server with no persistence, on its host moved to a new IP). Three
// go-sentinels with forget-replica-after 5000 and three Debian
// redis-sentinels (on port 26380 of the same hosts, monitoring the same
// master under another name) watch it in the same run. After each
// restart, every go-sentinel must list exactly the live replicas (the
// stale entry forgotten with -slave, the config file rewritten without
// it, no live replica ever forgotten), and every redis-sentinel must
// still list every stale one: the differential is the point, and the
// counts are logged for the closing note.
func TestChurnReplicaNewAddress(t *testing.T) {
	if os.Getenv("GS_CHURN") != "1" {
		t.Skip("a namespaced churn test: run with GS_CHURN=1 (make churn)")
	}
	lab := newRelLab(t, 5)
	h := lab.hosts
	// h1 holds the master; h1-h3 the Sentinels of both kinds; h4 and h5
	// are the replica pods.
	master := h[0].startRedis(t, 6379, nil, "appendonly no")
	pods := []*relNode{h[3].startRedis(t, 6379, master, "appendonly no"), h[4].startRedis(t, 6379, master, "appendonly no")}
	const goName, redisName = "m", "m-redis"
	goConf := fmt.Sprintf("sentinel monitor %s %s 6379 2\nsentinel down-after-milliseconds %s 2000\n"+
		"sentinel forget-replica-after %s 5000\n", goName, master.host.IP, goName, goName)
	redisConf := fmt.Sprintf("sentinel monitor %s %s 6379 2\nsentinel down-after-milliseconds %s 2000\n",
		redisName, master.host.IP, redisName)
	var gos, rss []*relSentinel
	for _, host := range h[:3] {
		gos = append(gos, host.startSentinel(t, goSentinel, goConf))
		rss = append(rss, host.churnSentinelHost(26380).startSentinel(t, redisSentinel, redisConf))
	}
	live := func() []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Addr())
		}
		sort.Strings(out)
		return out
	}
	everyLists := func(ss []*relSentinel, name string, want []string, exact bool) bool {
		for _, s := range ss {
			got := churnReplicaAddrs(s, name)
			if exact && strings.Join(got, " ") != strings.Join(want, " ") {
				return false
			}
			for _, a := range want {
				if !slices.Contains(got, a) {
					return false
				}
			}
		}
		return true
	}
	waitFor(t, 60*time.Second, "every Sentinel to list both replicas", func() bool {
		return everyLists(gos, goName, live(), true) && everyLists(rss, redisName, live(), true)
	})
	// redis-sentinel 7.0.15 knows no forget-replica-after: SENTINEL SET
	// refuses it (its config file refuses the directive at start).
	if _, err := rss[0].do("SENTINEL", "SET", redisName, "forget-replica-after", "5000"); err == nil {
		t.Fatal("redis-sentinel accepted SENTINEL SET forget-replica-after")
	} else {
		t.Logf("redis-sentinel: SENTINEL SET forget-replica-after: %v", err)
	}

	var stale []string
	for round := 1; round <= churnRounds; round++ {
		k := (round - 1) % len(pods)
		// The pod has been running a while: every go-sentinel has had
		// its INFO (it reported a healthy link to the master).
		waitFor(t, 30*time.Second, fmt.Sprintf("round %d: every go-sentinel to see every replica's link up", round), func() bool {
			for _, s := range gos {
				for _, f := range s.replicaFields(goName) {
					if f["master-link-status"] != "ok" {
						return false
					}
				}
			}
			return true
		})
		old := pods[k]
		oldAddr := old.Addr()
		stale = append(stale, oldAddr)
		// The pod dies and comes back elsewhere with nothing on disk:
		// a new address and a new run id.
		old.kill()
		old.host.churnMoveIP(fmt.Sprintf("%s%d", lab.prefix, 50+round))
		pods[k] = old.host.startRedis(t, 6379, master, "appendonly no")
		t.Logf("round %d: replica %s restarted as %s", round, oldAddr, pods[k].Addr())
		start := time.Now()
		waitFor(t, 90*time.Second, fmt.Sprintf("round %d: every go-sentinel to list exactly %v", round, live()), func() bool {
			return everyLists(gos, goName, live(), true)
		})
		goTook := time.Since(start)
		waitFor(t, 60*time.Second, fmt.Sprintf("round %d: every redis-sentinel to discover %s", round, pods[k].Addr()), func() bool {
			return everyLists(rss, redisName, live(), false)
		})
		goCounts, redisCounts := churnStaleCounts(gos, goName, stale), churnStaleCounts(rss, redisName, stale)
		t.Logf("round %d: go-sentinels listed exactly the live replicas %.1fs after the restart; stale replica entries: go-sentinel %s  redis-sentinel %s",
			round, goTook.Seconds(), churnJoin(goCounts), churnJoin(redisCounts))
		for i, s := range rss {
			if redisCounts[i] != len(stale) {
				t.Fatalf("round %d: %s lists %d stale replicas, want %d (every stale one, as Redis keeps them): %v",
					round, s, redisCounts[i], len(stale), churnReplicaAddrs(s, redisName))
			}
		}
	}
	// Every go-sentinel forgot each stale address once, with -slave, and
	// nothing else; its config file no longer names them.
	for _, s := range gos {
		forgotten := churnForgotten(s)
		sort.Strings(forgotten)
		want := append([]string(nil), stale...)
		sort.Strings(want)
		if strings.Join(forgotten, " ") != strings.Join(want, " ") {
			t.Fatalf("%s: -slave events for %v, want one for each stale replica %v", s, forgotten, want)
		}
		conf := readFile(t, s.conf)
		for _, a := range stale {
			host, port, _ := strings.Cut(a, ":")
			if hasLine(conf, fmt.Sprintf("sentinel known-replica %s %s %s", goName, host, port)) {
				t.Fatalf("%s: the config file still names the stale replica %s:\n%s", s, a, conf)
			}
		}
		for _, a := range live() {
			host, port, _ := strings.Cut(a, ":")
			if !hasLine(conf, fmt.Sprintf("sentinel known-replica %s %s %s", goName, host, port)) {
				t.Fatalf("%s: the config file lacks the live replica %s:\n%s", s, a, conf)
			}
		}
	}
	goCounts, redisCounts := churnStaleCounts(gos, goName, stale), churnStaleCounts(rss, redisName, stale)
	var downs []string
	for _, s := range rss {
		downs = append(downs, fmt.Sprint(churnDownCount(s, redisName)))
	}
	t.Logf("stale replica entries after churn (%d restarts with a new address): go-sentinel %s  redis-sentinel %s (s_down entries %s); live replicas %v",
		churnRounds, churnJoin(goCounts), churnJoin(redisCounts), strings.Join(downs, ","), live())
}

// churnSentinelHost returns the host as a second Sentinel on it sees it:
// the same namespace and address, its Sentinel on port (a redis-sentinel
// beside the go-sentinel). It holds no partition rules of its own.
func (h *relHost) churnSentinelHost(port int) *relHost {
	return &relHost{lab: h.lab, Name: h.Name, ns: h.ns, IP: h.IP, ReplIP: h.ReplIP, SentinelPort: port}
}

// churnMoveIP gives the host a new address on the lab segment, as a pod
// rescheduled elsewhere: the new address is added, the old one removed
// (its second address, the replication source, is kept: the kernel
// promotes it rather than flushing it with the old primary).
func (h *relHost) churnMoveIP(ip string) {
	t := h.lab.t
	t.Helper()
	if out, err := exec.Command(h.lab.ip, "netns", "exec", h.ns, "sysctl", "-qw",
		"net.ipv4.conf.eth0.promote_secondaries=1").CombinedOutput(); err != nil {
		t.Fatalf("sysctl promote_secondaries on %s: %v: %s", h.Name, err, out)
	}
	h.lab.must("-n", h.ns, "addr", "add", ip+"/24", "dev", "eth0")
	h.lab.must("-n", h.ns, "addr", "del", h.IP+"/24", "dev", "eth0")
	out, _ := exec.Command(h.lab.ip, "-n", h.ns, "-o", "-4", "addr", "show", "dev", "eth0").Output()
	for _, a := range []string{ip, h.ReplIP} {
		if !strings.Contains(string(out), " "+a+"/") {
			t.Fatalf("%s lacks %s after the move:\n%s", h.Name, a, out)
		}
	}
	h.IP = ip
	waitFor(t, 10*time.Second, "the lab segment to carry packets to "+h.Name+" at "+ip, func() bool { return relRefused(ip) })
}

// churnReplicaAddrs is the Sentinel's SENTINEL REPLICAS for name as
// sorted ip:port, nil when it does not answer.
func churnReplicaAddrs(s *relSentinel, name string) []string {
	var out []string
	for _, f := range s.replicaFields(name) {
		out = append(out, f["ip"]+":"+f["port"])
	}
	sort.Strings(out)
	return out
}

// churnStaleCounts counts, for each Sentinel, its replica entries whose
// address is one of stale.
func churnStaleCounts(ss []*relSentinel, name string, stale []string) []int {
	var out []int
	for _, s := range ss {
		n := 0
		for _, a := range churnReplicaAddrs(s, name) {
			if slices.Contains(stale, a) {
				n++
			}
		}
		out = append(out, n)
	}
	return out
}

// churnDownCount counts the Sentinel's replica entries flagged s_down.
func churnDownCount(s *relSentinel, name string) int {
	n := 0
	for _, f := range s.replicaFields(name) {
		if strings.Contains(f["flags"], "s_down") {
			n++
		}
	}
	return n
}

// churnForgotten lists the replicas (ip:port) the Sentinel published a
// -slave event about, in order.
func churnForgotten(s *relSentinel) []string {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	var out []string
	for _, e := range s.events.events {
		f := strings.Fields(e)
		if len(f) >= 3 && f[0] == "-slave" && f[1] == "slave" {
			out = append(out, f[2])
		}
	}
	return out
}

func churnJoin(counts []int) string {
	s := make([]string, len(counts))
	for i, n := range counts {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
