package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// hostsFiles are the namespace-local hosts files of a lab
// (/etc/netns/<ns>/hosts, which `ip netns exec` mounts over /etc/hosts for
// every process it starts in the namespace): one name per data node.
type hostsFiles struct {
	t     *testing.T
	paths []string
	names map[string]string // name -> IP
}

// newHostsFiles writes a hosts file for each host of the lab before any
// process starts there, and removes them in t.Cleanup.
func newHostsFiles(t *testing.T, lab *relLab, names map[string]string) *hostsFiles {
	t.Helper()
	hf := &hostsFiles{t: t, names: names}
	for _, h := range lab.hosts {
		dir := filepath.Join("/etc/netns", h.ns)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatalf("hosts file of %s: %v", h.Name, err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		p := filepath.Join(dir, "hosts")
		if err := os.WriteFile(p, hf.text(), 0o644); err != nil {
			t.Fatalf("hosts file of %s: %v", h.Name, err)
		}
		hf.paths = append(hf.paths, p)
	}
	return hf
}

func (hf *hostsFiles) text() []byte {
	lines := []string{"127.0.0.1 localhost"}
	var names []string
	for n := range hf.names {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		lines = append(lines, hf.names[n]+" "+n)
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// move points name at ip in every hosts file, rewriting each in place
// (O_TRUNC and write: a rename would leave the namespaces' bind mounts on
// the old inode).
func (hf *hostsFiles) move(name, ip string) {
	hf.t.Helper()
	hf.names[name] = ip
	for _, p := range hf.paths {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			hf.t.Fatal(err)
		}
		if _, err := f.Write(hf.text()); err != nil {
			hf.t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			hf.t.Fatal(err)
		}
	}
}

// podNode is a redis-server in a pod (a lab host) known by a hostname,
// which it announces (replica-announce-ip), bound to the pod's address of
// the moment.
type podNode struct {
	host *relHost
	name string
	ip   string
	conf []string
	// byIP leaves replica-announce-ip out: the master's INFO then reports
	// the replica by the address it connects from.
	byIP bool
	p    *proc
}

func (n *podNode) addr() string { return n.ip + ":6379" }

// startPod starts a fresh redis-server (a new dir, so a new run id and no
// data) for n on n.ip, replicating master's name when master is not "".
func startPod(t *testing.T, n *podNode, master string) {
	t.Helper()
	dir := t.TempDir()
	lines := append([]string{"port 6379", "bind " + n.ip, "protected-mode no", "dir " + dir,
		"repl-diskless-sync-delay 0", "save \"\"", "appendonly no", "logfile \"\"", "daemonize no"}, n.conf...)
	if !n.byIP {
		lines = append(lines, "replica-announce-ip "+n.name)
	}
	if master != "" {
		lines = append(lines, "replicaof "+master+" 6379")
	}
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.p = n.host.run(t, dir, needBinary(t, "redis-server"), conf)
	n.p.Port = 6379
	waitFor(t, 10*time.Second, n.name+" to answer PING", func() bool { return aliveAt(n.ip, 6379) })
}

// runID is the node's INFO run_id.
func (n *podNode) runID(t *testing.T) string {
	v, err := relDo(t, n.addr(), "INFO", "server")
	if err != nil {
		t.Fatalf("%s: INFO: %v", n.name, err)
	}
	for _, l := range strings.Split(fmt.Sprint(v), "\n") {
		if id, ok := strings.CutPrefix(strings.TrimSpace(l), "run_id:"); ok {
			return id
		}
	}
	t.Fatalf("%s: no run_id in INFO", n.name)
	return ""
}

// replicaFields is the Sentinel's SENTINEL REPLICAS reply for name, one
// map per entry; nil when it does not answer.
func (s *relSentinel) replicaFields(name string) []map[string]string {
	return s.entries("REPLICAS", name)
}

// entries is the Sentinel's reply to SENTINEL <sub> <name> (REPLICAS,
// SENTINELS), one field map per entry; nil when it does not answer.
func (s *relSentinel) entries(sub, name string) []map[string]string {
	v, err := s.do("SENTINEL", sub, name)
	l, ok := v.([]any)
	if err != nil || !ok {
		return nil
	}
	var out []map[string]string
	for _, e := range l {
		kv, ok := e.([]any)
		if !ok {
			continue
		}
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = fmt.Sprint(kv[i+1])
		}
		out = append(out, m)
	}
	return out
}

// replicasText is what replicaFields shows, one entry a line, for logs.
func replicasText(rs []map[string]string) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %s ip=%s flags=%s runid=%s link=%s", r["name"], r["ip"], r["flags"], r["runid"], r["master-link-status"])
	}
	return b.String()
}

// shown is how a Sentinel shows a pod: by its name with
// announce-hostnames yes, by the IP the name resolves to with it off.
func shown(n *podNode, announce bool) string {
	if announce {
		return n.name
	}
	return n.ip
}

// follows reports whether rs is exactly one healthy entry (flags "slave":
// no s_down, not disconnected) per address in want, the entry shown at
// want[0] at run id runID, and nothing else.
func follows(rs []map[string]string, want []string, runID string) bool {
	if len(rs) != len(want) {
		return false
	}
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r["ip"]] = true
		if r["flags"] != "slave" || (r["ip"] == want[0] && r["runid"] != runID) {
			return false
		}
	}
	for _, w := range want {
		if !seen[w] {
			return false
		}
	}
	return true
}

// follow is one Sentinel polled until it lists the replicas, healthy,
// and when it first did.
type follow struct {
	s      *relSentinel
	master string
	at     time.Duration // since the start of the poll; 0 until then
}

// pollFollow polls every Sentinel of all until each lists the replicas
// want (the first at runID) once, healthy, beside its two peers, or until
// timeout; each f.at is set when its Sentinel first did. Once every
// go-sentinel did, the others get 20 s more at most.
func pollFollow(all []*follow, since time.Time, timeout time.Duration, want []string, runID string) {
	for _, f := range all {
		f.at = 0
	}
	deadline := time.Now().Add(timeout)
	for ; time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		pending, goPending := false, false
		for _, f := range all {
			if f.at != 0 {
				continue
			}
			if follows(f.s.replicaFields(f.master), want, runID) && f.s.listLen("SENTINELS", f.master) == 2 {
				f.at = time.Since(since)
			} else {
				pending = true
				goPending = goPending || f.s.kind == goSentinel
			}
		}
		if !pending {
			return
		}
		if !goPending && time.Until(deadline) > 20*time.Second {
			deadline = time.Now().Add(20 * time.Second)
		}
	}
}

// TestChurnHostnameMoves: three Sentinel pods and three data pods,
// named in namespace-local hosts files (redis-0, redis-1, redis-2); the
// Sentinels monitor redis-0 by name with resolve-hostnames yes, and the
// replicas announce their names. The pod of redis-1 is restarted on a
// new address (its old address removed first, so connections to it hang
// rather than end) with a fresh redis-server, and every hosts file is
// rewritten in place: every go-sentinel must list redis-1 once, healthy,
// at its new run id and address; then the master is killed and the
// fleet must fail over to redis-1 (it has the best replica-priority),
// announcing it by name with announce-hostnames yes. Debian's
// redis-sentinel runs the same scenario beside it (port 26380, the same
// hosts files, master name rs) up to the move; what it shows is logged.
// Three cases: announce-hostnames yes and no with replicas announcing
// their names, and announce-hostnames yes with replicas that do not
// (the Sentinels know them by name from known-replica lines, the
// master's INFO reports their IPs: valkey issue 2158's setting).
func TestChurnHostnameMoves(t *testing.T) {
	if os.Getenv("GS_CHURN") != "1" {
		t.Skip("a namespaced churn test: run with GS_CHURN=1 (make churn)")
	}
	for _, c := range []struct{ announce, byIP bool }{{true, false}, {false, false}, {true, true}} {
		name := fmt.Sprintf("announce-hostnames=%v", c.announce)
		if c.byIP {
			name += ",replicas-by-ip"
		}
		t.Run(name, func(t *testing.T) { hostnameMoves(t, c.announce, c.byIP) })
	}
}

func hostnameMoves(t *testing.T, announce, byIP bool) {
	lab := newRelLab(t, 6)
	sentinelHosts, podHosts := lab.hosts[:3], lab.hosts[3:]
	pods := []*podNode{
		{host: podHosts[0], name: "redis-0", ip: podHosts[0].IP, byIP: byIP},
		{host: podHosts[1], name: "redis-1", ip: podHosts[1].IP, byIP: byIP, conf: []string{"replica-priority 10"}},
		{host: podHosts[2], name: "redis-2", ip: podHosts[2].IP, byIP: byIP, conf: []string{"replica-priority 100"}},
	}
	names := map[string]string{}
	for _, p := range pods {
		names[p.name] = p.ip
	}
	hf := newHostsFiles(t, lab, names)
	startPod(t, pods[0], "")
	startPod(t, pods[1], "redis-0")
	startPod(t, pods[2], "redis-0")

	yn := map[bool]string{true: "yes", false: "no"}[announce]
	conf := func(name string) string {
		c := "sentinel resolve-hostnames yes\nsentinel announce-hostnames " + yn + "\n" +
			"sentinel monitor " + name + " redis-0 6379 2\n" +
			"sentinel down-after-milliseconds " + name + " 2000\n" +
			"sentinel failover-timeout " + name + " 20000\n"
		if byIP {
			c += "sentinel known-replica " + name + " redis-1 6379\nsentinel known-replica " + name + " redis-2 6379\n"
		}
		return c
	}
	var gos, rss []*relSentinel
	for _, h := range sentinelHosts {
		gos = append(gos, h.startSentinel(t, goSentinel, conf("gs")))
	}
	if _, err := exec.LookPath("redis-sentinel"); err == nil {
		for _, h := range sentinelHosts {
			alt := &relHost{lab: lab, Name: h.Name, ns: h.ns, IP: h.IP, ReplIP: h.ReplIP, SentinelPort: 26380}
			rss = append(rss, alt.startSentinel(t, redisSentinel, conf("rs")))
		}
	} else {
		t.Log("redis-sentinel not installed: no differential")
	}
	var all []*follow
	for _, s := range gos {
		all = append(all, &follow{s: s, master: "gs"})
	}
	for _, s := range rss {
		all = append(all, &follow{s: s, master: "rs"})
	}
	oldRunID := pods[1].runID(t)
	pollFollow(all, time.Now(), 60*time.Second, []string{shown(pods[1], announce), shown(pods[2], announce)}, oldRunID)
	for _, f := range all {
		rs := f.s.replicaFields(f.master)
		switch {
		case f.at == 0 && f.s.kind == goSentinel:
			t.Fatalf("%s never listed redis-1 and redis-2, healthy:%s", f.s, replicasText(rs))
		case f.at == 0:
			t.Logf("%s before the move: NOT redis-1 and redis-2 once each, healthy; %d entries:%s", f.s, len(rs), replicasText(rs))
		}
	}
	for _, s := range gos {
		if got, want := s.masterAddr("gs"), shown(pods[0], announce)+":6379"; got != want {
			t.Fatalf("%s: GET-MASTER-ADDR-BY-NAME = %q, want %s", s, got, want)
		}
	}

	// The pod of redis-1 comes back on a new address: the old one goes
	// first (connections to it hang; deleting the primary address takes
	// the secondaries with it, so the new one is added after), then the
	// process; the name moves; a fresh redis-server starts there.
	h := pods[1].host
	oldIP, newIP := pods[1].ip, lab.prefix+"60"
	lab.must("-n", h.ns, "addr", "del", oldIP+"/24", "dev", "eth0")
	lab.must("-n", h.ns, "addr", "add", newIP+"/24", "dev", "eth0")
	killProc(pods[1].p)
	moved := time.Now()
	hf.move("redis-1", newIP)
	pods[1].ip = newIP
	startPod(t, pods[1], "redis-0")
	newRunID := pods[1].runID(t)
	t.Logf("redis-1 moved from %s to %s, run id %s -> %s", oldIP, newIP, oldRunID[:8], newRunID[:8])

	// Both fleets are polled together, so that the time each takes to
	// follow the name is comparable.
	pollFollow(all, moved, 60*time.Second, []string{shown(pods[1], announce), shown(pods[2], announce)}, newRunID)
	polled := time.Since(moved).Round(time.Second)
	for _, f := range all {
		state := "followed the name in " + f.at.Round(100*time.Millisecond).String()
		if f.at == 0 {
			state = "did NOT follow the name (polled " + polled.String() + " after the move)"
		}
		rs := f.s.replicaFields(f.master)
		t.Logf("%s after the move: %s; %d entries in SENTINEL REPLICAS %s:%s", f.s, state, len(rs), f.master, replicasText(rs))
		t.Logf("%s events about redis-1 or an address:\n%s", f.s, eventsAbout(f.s.events, "redis-1", lab.prefix))
		t.Logf("%s config file after the move:\n%s", f.s, addrLines(readFile(t, f.s.conf)))
		if f.s.kind == goSentinel && f.at == 0 {
			t.Errorf("%s did not list redis-1 once, healthy, at its new run id", f.s)
		}
	}
	if t.Failed() {
		return
	}
	// The differential ends here: two fleets would race to fail the same
	// master over.
	for _, s := range rss {
		s.kill()
	}

	// The master dies: the fleet fails over to redis-1, at its new
	// address, and says so (by name with announce-hostnames yes).
	killProc(pods[0].p)
	killed := time.Now()
	from, to := shown(pods[0], announce), shown(pods[1], announce)
	for _, s := range gos {
		waitFor(t, 90*time.Second, s.String()+" to switch gs to redis-1", func() bool {
			return s.events.has("+switch-master gs "+from+" 6379 "+to+" 6379") && s.masterAddr("gs") == to+":6379"
		})
	}
	t.Logf("every go-sentinel switched gs to %s %v after the kill", to, time.Since(killed).Round(100*time.Millisecond))
	waitFor(t, 30*time.Second, "redis-1 to be master and redis-2 its replica", func() bool {
		role, _ := relRole(t, pods[1].addr())
		role2, master2 := relRole(t, pods[2].addr())
		return role == "master" && role2 == "slave" && (master2 == "redis-1:6379" || master2 == newIP+":6379")
	})
	// The old master and redis-2 are the replicas now, once each; the
	// config files keep the names.
	for _, s := range gos {
		ok := false
		for deadline := time.Now().Add(30 * time.Second); !ok && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			rs := s.replicaFields("gs")
			ok = len(rs) == 2
			for _, r := range rs {
				ok = ok && (r["ip"] == shown(pods[0], announce) || r["ip"] == shown(pods[2], announce))
			}
		}
		if !ok {
			t.Errorf("%s does not list redis-0 and redis-2 once each:%s", s, replicasText(s.replicaFields("gs")))
		}
		if text := readFile(t, s.conf); containsAddrLine(text, lab.prefix) {
			t.Errorf("%s: an address in the config file:\n%s", s, text)
		}
	}
}

// addrLines is the monitor and known-replica lines of a config text.
func addrLines(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "sentinel monitor ") || strings.HasPrefix(l, "sentinel known-replica ") {
			out = append(out, "  "+l)
		}
	}
	return strings.Join(out, "\n")
}

// containsAddrLine reports whether a monitor or known-replica line of the
// config text names an address of the lab's segment.
func containsAddrLine(text, prefix string) bool {
	for _, l := range strings.Split(text, "\n") {
		if (strings.HasPrefix(l, "sentinel monitor ") || strings.HasPrefix(l, "sentinel known-replica ")) &&
			strings.Contains(l, prefix) {
			return true
		}
	}
	return false
}

// eventsAbout is the events of el that mention name or an address of
// the lab's segment, one a line.
func eventsAbout(el *eventLog, name, prefix string) string {
	el.mu.Lock()
	defer el.mu.Unlock()
	var out []string
	for _, e := range el.events {
		if strings.Contains(e, name) || strings.Contains(e, prefix) {
			out = append(out, "  "+e)
		}
	}
	return strings.Join(out, "\n")
}
