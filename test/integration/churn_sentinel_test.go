package integration

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// This file is issue 21's churn of Sentinel pods: a Sentinel restarted
// on a new address with its run id (its config file keeps `sentinel
// myid`), and one restarted on a new address with a new run id (a fresh
// config, as a pod without a persistent volume), each beside Debian's
// redis-sentinel on the same hosts, and the partition test that shows
// that forgetting stale entries never lets a minority authorise a
// failover (`sentinel voters`).

// sentinelChurnLab is the fleet of the Sentinel churn tests: hosts h1..h3
// are the Sentinel pods, each with a go-sentinel (port 26379, master
// name gs) and, when installed, a redis-sentinel (port 26380, master
// name rs: two fleets, as hellos carry the master name); h4 holds the
// master, h5 its replica.
type sentinelChurnLab struct {
	lab     *relLab
	master  *relNode
	replica *relNode
	gos     []*relSentinel
	rss     []*relSentinel // nil without redis-sentinel
	alts    []*relHost     // the hosts of the redis-sentinels (h1..h3 at port 26380)
}

// newSentinelChurnLab starts the fleet: goConf and rsConf are the
// sentinel lines after `sentinel monitor` (%s is the master's address).
func newSentinelChurnLab(t *testing.T, goConf, rsConf string) *sentinelChurnLab {
	t.Helper()
	lab := newRelLab(t, 5)
	l := &sentinelChurnLab{lab: lab}
	l.master = lab.hosts[3].startRedis(t, 6379, nil)
	l.replica = lab.hosts[4].startRedis(t, 6379, l.master)
	for _, h := range lab.hosts[:3] {
		l.gos = append(l.gos, h.startSentinel(t, goSentinel, fmt.Sprintf(goConf, l.master.host.IP)))
	}
	if _, err := exec.LookPath("redis-sentinel"); err == nil {
		for _, h := range lab.hosts[:3] {
			alt := &relHost{lab: lab, Name: h.Name, ns: h.ns, IP: h.IP, ReplIP: h.ReplIP, SentinelPort: 26380}
			l.alts = append(l.alts, alt)
			l.rss = append(l.rss, alt.startSentinel(t, redisSentinel, fmt.Sprintf(rsConf, l.master.host.IP)))
		}
	} else {
		t.Log("redis-sentinel not installed: no differential")
	}
	for _, s := range l.all() {
		s := s
		waitFor(t, 60*time.Second, s.String()+" to know its 2 peers", func() bool {
			return s.listLen("SENTINELS", scMaster(s)) == 2
		})
	}
	return l
}

// all returns every Sentinel of the lab, go-sentinels first.
func (l *sentinelChurnLab) all() []*relSentinel {
	return append(append([]*relSentinel(nil), l.gos...), l.rss...)
}

// scMaster is the master name a Sentinel of the churn lab monitors.
func scMaster(s *relSentinel) string {
	if s.kind == redisSentinel {
		return "rs"
	}
	return "gs"
}

// movePod restarts the Sentinels of pod k on a new address: both are
// killed, the host's address is replaced (connections to the old one
// hang, as to a pod that is gone), and they start again on the new
// address, with their config files (same run id) or, with fresh, with
// their first config (no myid, no known Sentinel: a new run id).
func (l *sentinelChurnLab) movePod(t *testing.T, k int, fresh map[*relSentinel]string) string {
	t.Helper()
	h := l.lab.hosts[k]
	ss := []*relSentinel{l.gos[k]}
	if l.rss != nil {
		ss = append(ss, l.rss[k])
	}
	for _, s := range ss {
		s.kill()
	}
	old := h.IP
	newIP := fmt.Sprintf("%s%d", l.lab.prefix, 60+k+1)
	l.lab.must("-n", h.ns, "addr", "del", old+"/24", "dev", "eth0")
	l.lab.must("-n", h.ns, "addr", "add", newIP+"/24", "dev", "eth0")
	h.IP = newIP
	if l.alts != nil {
		l.alts[k].IP = newIP
	}
	bind := regexp.MustCompile(`(?m)^bind .*$`)
	for _, s := range ss {
		text, err := os.ReadFile(s.conf)
		if err != nil {
			t.Fatal(err)
		}
		if first, ok := fresh[s]; ok {
			text = []byte(fmt.Sprintf("port %d\nbind %s\nlogfile %s\n%s", s.host.SentinelPort, newIP, s.log, first))
		} else {
			if !strings.Contains(string(text), "sentinel myid ") {
				t.Fatalf("%s: the config file has no myid line:\n%s", s, text)
			}
			text = bind.ReplaceAll(text, []byte("bind "+newIP))
		}
		if err := os.WriteFile(s.conf, text, 0o644); err != nil {
			t.Fatal(err)
		}
		s.start()
	}
	t.Logf("pod h%d moved from %s to %s", k+1, old, newIP)
	return newIP
}

// scSentinels is SENTINEL SENTINELS of s for its master, one map per
// entry, nil when it does not answer.
func scSentinels(s *relSentinel) []map[string]string {
	return s.entries("SENTINELS", scMaster(s))
}

// scListsOnce reports whether s lists the Sentinel runID exactly once, at
// ip, among exactly 2 entries.
func scListsOnce(s *relSentinel, runID, ip string) bool {
	es := scSentinels(s)
	n := 0
	for _, e := range es {
		if strings.EqualFold(e["runid"], runID) {
			if e["ip"] != ip {
				return false
			}
			n++
		}
	}
	return n == 1 && len(es) == 2
}

// scStale counts the entries of s that are not one of ids (the run ids
// of the Sentinels that run), -1 when it does not answer.
func scStale(s *relSentinel, ids map[string]bool) int {
	es := scSentinels(s)
	if es == nil {
		return -1
	}
	n := 0
	for _, e := range es {
		if !ids[strings.ToLower(e["runid"])] {
			n++
		}
	}
	return n
}

// scCount counts the lines of s's log that contain what.
func scCount(s *relSentinel, what string) int { return strings.Count(s.logText(), what) }

// TestChurnSentinelSameID: a Sentinel pod restarted on a new address with
// its run id (its config file keeps `sentinel myid`): every Sentinel must
// list it exactly once, at the new address (+sentinel-address-switch).
// Debian's redis-sentinel, on its own fleet in the same pods, is moved
// with it; what it shows is logged beside.
func TestChurnSentinelSameID(t *testing.T) {
	if os.Getenv("GS_CHURN") != "1" {
		t.Skip("a namespaced churn test: run with GS_CHURN=1 (make churn)")
	}
	conf := func(name string) string {
		return "sentinel monitor " + name + " %s 6379 2\n" +
			"sentinel down-after-milliseconds " + name + " 2000\n" +
			"sentinel failover-timeout " + name + " 20000\n"
	}
	l := newSentinelChurnLab(t, conf("gs"), conf("rs"))
	moved := []*relSentinel{l.gos[2]}
	if l.rss != nil {
		moved = append(moved, l.rss[2])
	}
	ids := map[*relSentinel]string{}
	for _, s := range moved {
		ids[s] = s.myID()
	}
	newIP := l.movePod(t, 2, nil)
	for _, s := range moved {
		if got := s.myID(); got != ids[s] {
			t.Fatalf("%s came back with run id %s, not %s", s, got, ids[s])
		}
	}
	start := time.Now()
	for _, s := range l.gos[:2] {
		s := s
		waitFor(t, 60*time.Second, s.String()+" to list the moved Sentinel once, at "+newIP, func() bool {
			return scListsOnce(s, ids[l.gos[2]], newIP)
		})
		if n := scCount(s, "+sentinel-address-switch"); n == 0 {
			t.Errorf("%s: no +sentinel-address-switch in its log", s)
		}
	}
	t.Logf("go-sentinel: both peers list the moved Sentinel once at %s after %v", newIP, time.Since(start).Round(100*time.Millisecond))
	waitFor(t, 30*time.Second, l.gos[2].String()+" to know its 2 peers again", func() bool {
		return l.gos[2].listLen("SENTINELS", "gs") == 2
	})
	if l.rss == nil {
		return
	}
	// redis-sentinel: the same scenario on its own fleet, given as long
	// as go-sentinel took, and 10 s more.
	deadline := time.Now().Add(time.Since(start) + 10*time.Second)
	var rsOnce []string
	for _, s := range l.rss[:2] {
		ok := scListsOnce(s, ids[l.rss[2]], newIP)
		for !ok && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			ok = scListsOnce(s, ids[l.rss[2]], newIP)
		}
		rsOnce = append(rsOnce, fmt.Sprintf("%s: once at the new address %v, %d entries, %d +sentinel-address-switch",
			s, ok, len(scSentinels(s)), scCount(s, "+sentinel-address-switch")))
	}
	var goOnce []string
	for _, s := range l.gos[:2] {
		goOnce = append(goOnce, fmt.Sprintf("%s: once at the new address %v, %d entries, %d +sentinel-address-switch",
			s, scListsOnce(s, ids[l.gos[2]], newIP), len(scSentinels(s)), scCount(s, "+sentinel-address-switch")))
	}
	t.Logf("address switch, same run id:\n  %s\n  %s", strings.Join(goOnce, "\n  "), strings.Join(rsOnce, "\n  "))
}

// TestChurnSentinelNewID: a Sentinel pod restarted on a new address with
// a new run id (a fresh config). With `sentinel voters gs 3` and
// `sentinel forget-sentinel-after gs 5000` every go-sentinel must come
// back to the truth (SENTINEL SENTINELS lists the 2 that run,
// num-other-sentinels 2), while Debian's redis-sentinel keeps the stale
// entry on the peers of the moved pod. Then, with the go-sentinels only
// (quorum 1, so that a lone Sentinel reaches ODOWN on its own and only
// the majority rule holds it back): h1 cut off from every other host for
// longer than forget-sentinel-after must forget its peers and still never
// be elected; with h1 still cut off, the master killed must be failed over
// by the two others (a real majority of 2 of 3, the moved one among
// them); after the heal h1 follows.
func TestChurnSentinelNewID(t *testing.T) {
	if os.Getenv("GS_CHURN") != "1" {
		t.Skip("a namespaced churn test: run with GS_CHURN=1 (make churn)")
	}
	goConf := "sentinel monitor gs %s 6379 1\n" +
		"sentinel down-after-milliseconds gs 2000\n" +
		"sentinel failover-timeout gs 10000\n" +
		"sentinel voters gs 3\n" +
		"sentinel forget-sentinel-after gs 5000\n"
	rsConf := "sentinel monitor rs %s 6379 2\n" +
		"sentinel down-after-milliseconds rs 2000\n" +
		"sentinel failover-timeout rs 10000\n"
	l := newSentinelChurnLab(t, goConf, rsConf)
	fresh := map[*relSentinel]string{l.gos[2]: fmt.Sprintf(goConf, l.master.host.IP)}
	if l.rss != nil {
		fresh[l.rss[2]] = fmt.Sprintf(rsConf, l.master.host.IP)
	}
	oldIDs := map[*relSentinel]string{}
	for s := range fresh {
		oldIDs[s] = s.myID()
	}
	l.movePod(t, 2, fresh)
	for s := range fresh {
		if s.myID() == oldIDs[s] {
			t.Fatalf("%s came back with its old run id", s)
		}
	}
	idsOf := func(ss []*relSentinel) map[string]bool {
		ids := map[string]bool{}
		for _, s := range ss {
			ids[strings.ToLower(s.myID())] = true
		}
		return ids
	}
	goIDs := idsOf(l.gos)
	start := time.Now()
	for _, s := range l.gos {
		s := s
		waitFor(t, 60*time.Second, s.String()+" to list exactly the 2 Sentinels that run", func() bool {
			return scStale(s, goIDs) == 0 && len(scSentinels(s)) == 2 && s.masterFields("gs")["num-other-sentinels"] == "2"
		})
	}
	took := time.Since(start).Round(100 * time.Millisecond)
	for _, s := range l.gos[:2] {
		if scCount(s, "-sentinel sentinel "+oldIDs[l.gos[2]]) == 0 {
			t.Errorf("%s: no -sentinel for the old run id %s in its log", s, oldIDs[l.gos[2]])
		}
	}
	goStale := []string{}
	for _, s := range l.gos {
		goStale = append(goStale, fmt.Sprint(scStale(s, goIDs)))
	}
	rsStale := []string{}
	if l.rss != nil {
		time.Sleep(10 * time.Second) // redis-sentinel gets as long as go-sentinel took, and 10 s more
		rsIDs := idsOf(l.rss)
		for k, s := range l.rss {
			n := scStale(s, rsIDs)
			rsStale = append(rsStale, fmt.Sprint(n))
			if k < 2 && n < 1 {
				t.Errorf("%s: %d stale entries; the claim is that redis-sentinel keeps the old run id", s, n)
			}
		}
	}
	t.Logf("stale sentinel entries after churn (%v for go-sentinel to forget): go-sentinel %s redis-sentinel %s",
		took, strings.Join(goStale, ","), strings.Join(rsStale, ","))
	for _, s := range l.rss {
		s.kill()
	}

	// The partition: h1 alone, cut off from every other lab host (the
	// test still reaches it).
	g1, g2, g3 := l.gos[0], l.gos[1], l.gos[2]
	cutAt := time.Now()
	l.lab.hosts[0].cutOff()
	waitFor(t, 60*time.Second, g1.String()+" to forget both peers", func() bool {
		return len(scSentinels(g1)) == 0
	})
	waitFor(t, 60*time.Second, g1.String()+" to try a failover after forgetting its peers", func() bool {
		return scCount(g1, "+try-failover") >= 2
	})
	ck, err := g1.do("SENTINEL", "CKQUORUM", "gs")
	t.Logf("%s cut off for %v: %d +try-failover, %d -sentinel, CKQUORUM: %v %v", g1, time.Since(cutAt).Round(time.Second),
		scCount(g1, "+try-failover"), scCount(g1, "-sentinel sentinel"), ck, err)
	if err == nil || !strings.Contains(err.Error(), "majority") {
		t.Errorf("%s: CKQUORUM = %v, %v; want NOQUORUM for the majority (voters 3)", g1, ck, err)
	}
	for _, s := range l.gos {
		if n := scCount(s, "+elected-leader"); n != 0 {
			t.Fatalf("%s: %d +elected-leader while the master is up and h1 is cut off", s, n)
		}
	}

	// The master dies for real, h1 still cut off: g2 and g3 are a
	// majority of the 3 voters.
	killed := time.Now()
	l.master.kill()
	want := l.replica.Addr()
	for _, s := range []*relSentinel{g2, g3} {
		s := s
		waitFor(t, 90*time.Second, s.String()+" to switch to "+want, func() bool { return s.masterAddr("gs") == want })
	}
	t.Logf("master killed with h1 cut off: g2 and g3 switched to %s after %v (leader: g2 %d, g3 %d +elected-leader)",
		want, time.Since(killed).Round(100*time.Millisecond), scCount(g2, "+elected-leader"), scCount(g3, "+elected-leader"))
	if n := scCount(g1, "+elected-leader"); n != 0 {
		t.Fatalf("%s, alone, was elected %d times", g1, n)
	}
	if n := scCount(g1, "+switch-master"); n != 0 {
		t.Fatalf("%s, alone, switched the master %d times", g1, n)
	}

	// After the heal h1 learns its peers and the new master again.
	l.lab.healAll()
	waitFor(t, 60*time.Second, g1.String()+" to know its peers and follow "+want, func() bool {
		return g1.masterAddr("gs") == want && scStale(g1, goIDs) == 0 && len(scSentinels(g1)) == 2
	})
}
