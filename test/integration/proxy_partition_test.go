package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The ports of the partition test's routes on every host.
const (
	ppProxyPort   = 6380 // go-sentinel's proxy
	ppHAProxyPort = 6390 // HAProxy
)

// ppCut is how long the partition test holds the master's host cut off.
const ppCut = 20 * time.Second

// ppFenceAfter is the proxy-fence-after the partition test runs with: the
// default.
const ppFenceAfter = 2 * time.Second

// ppCutSlack is how long after its +proxy-fenced log line a proxy may
// still pass a reply on: the line is written when the core decides, and
// the proxy closes its connections when the node hands it the event
// (its own check runs every 10 ms besides).
const ppCutSlack = 50 * time.Millisecond

// ppHAProxyConf is HAProxy configured as the Helm charts and guides do in
// front of Redis: one backend of every data node, a TCP check of PING
// then INFO replication expecting role:master, every second.
const ppHAProxyConf = `global
  maxconn 1000
defaults
  mode tcp
  timeout connect 1s
  timeout client 1h
  timeout server 1h
frontend redis
  bind %s:%d
  default_backend redis
backend redis
  option tcp-check
  tcp-check connect
  tcp-check send PING\r\n
  tcp-check expect string +PONG
  tcp-check send info\ replication\r\n
  tcp-check expect string role:master
  tcp-check send QUIT\r\n
  tcp-check expect string +OK
%s`

// startHAProxy starts an HAProxy on the host in front of nodes; it is
// ended in t.Cleanup.
func (h *relHost) startHAProxy(t *testing.T, port int, nodes []*relNode) {
	t.Helper()
	bin := needBinary(t, "haproxy")
	dir := t.TempDir()
	var servers strings.Builder
	for k, n := range nodes {
		fmt.Fprintf(&servers, "  server r%d %s check inter 1s\n", k, n.Addr())
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(ppHAProxyConf, h.IP, port, servers.String())), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run(t, dir, bin, "-db", "-f", cfg)
}

// ppClient is one writing client of the partition test: which host it
// runs on and how it finds the master.
type ppClient struct {
	host *relHost
	kind string // ppViaProxy, ppViaHAProxy, ppDirect
	w    *relWriter
	stop func()
}

// The client kinds of the partition test.
const (
	ppViaProxy   = "go-sentinel proxy"
	ppViaHAProxy = "HAProxy"
	ppDirect     = "direct"
)

// lastKnown returns a target that is the master s last named, asked at
// most every 100 ms and kept while s does not answer: a client that
// asks its local Sentinel and connects to the master directly.
func lastKnown(s *relSentinel) func() string {
	var mu sync.Mutex
	var addr string
	var asked time.Time
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(asked) >= 100*time.Millisecond {
			asked = time.Now()
			if a := s.masterAddr("mymaster"); a != "" {
				addr = a
			}
		}
		return addr
	}
}

// TestProxyPartitionNoGuard and ...WithGuard: three namespaced hosts,
// each with a data node, a go-sentinel with its proxy (quorum 2,
// down-after 5 s, proxy-fence-after 2 s, the default) and an HAProxy, and
// on each host three writing clients: one through the local proxy, one
// through the local HAProxy, one direct to the master its local Sentinel
// last named. The master's host is cut off from the two others for 20 s,
// then healed. Counted per client kind: acknowledged writes lost. Checked:
// every write lost through a proxy was acknowledged within the fence
// window (between the cut and the +proxy-fenced of the master's host,
// which comes within proxy-fence-after of the cut); no write reaches the
// old master through any proxy after its fence (the old master's
// last-written key, read before the heal); without the guard, the proxy
// loses less than a tenth of what HAProxy loses. make proxy-partition
// runs them (root only).
func TestProxyPartitionNoGuard(t *testing.T) {
	proxyPartition(t, "no guard", nil)
}

func TestProxyPartitionWithGuard(t *testing.T) {
	proxyPartition(t, "min-replicas guard", relGuard)
}

func proxyPartition(t *testing.T, name string, extra []string) {
	if os.Getenv("GS_PROXY_PARTITION") == "" {
		t.Skip("make proxy-partition runs it (as root, about a minute each)")
	}
	lab := newRelLab(t, 3)
	f := newRelFleetOn(t, lab, relFleetOpts{
		Groups:    []*relGroup{{Name: "mymaster", Port: 6379, Extra: extra}},
		DownAfter: 5 * time.Second,
		// The test's clients come from the lab's segment, not loopback,
		// and the data nodes ask for no password: the operator's opt-in.
		SentinelExtraFor: func(h *relHost) string {
			return fmt.Sprintf("sentinel proxy mymaster %s %d\nsentinel proxy-protected-mode mymaster no\n", h.IP, ppProxyPort)
		},
	})
	g := f.groups[0]
	old := g.nodes[0]
	for _, h := range lab.hosts {
		h.startHAProxy(t, ppHAProxyPort, g.nodes)
	}
	var clients []*ppClient
	for i, h := range lab.hosts {
		for _, kind := range []string{ppViaProxy, ppViaHAProxy, ppDirect} {
			c := &ppClient{host: h, kind: kind}
			var target func() string
			switch kind {
			case ppViaProxy:
				a := fmt.Sprintf("%s:%d", h.IP, ppProxyPort)
				target = func() string { return a }
			case ppViaHAProxy:
				a := fmt.Sprintf("%s:%d", h.IP, ppHAProxyPort)
				target = func() string { return a }
			case ppDirect:
				target = lastKnown(f.sentinels[i])
			}
			prefix := strings.ReplaceAll(kind, " ", "-") + "@" + h.Name
			c.w, c.stop = startRelWriterOn(t, prefix, target, h.dial)
			clients = append(clients, c)
		}
	}
	// HAProxy starts with every server up until its checks say otherwise:
	// the measurement starts once every client has had writes
	// acknowledged for a while and HAProxy's checks have settled.
	waitFor(t, 20*time.Second, "every client's writes to be acknowledged", func() bool {
		for _, c := range clients {
			if c.w.acks() < 20 {
				return false
			}
		}
		return true
	})
	time.Sleep(3 * time.Second) // HAProxy's fall 3 × inter 1 s for the replicas

	minority := f.sentinels[0]
	marks := relLogMarks(t, f)
	cutAt := time.Now()
	old.host.cutOff()
	var promoted string
	waitFor(t, 30*time.Second, "the majority to promote a replica", func() bool {
		a := f.sentinels[1].masterAddr("mymaster")
		if a == "" || a == old.Addr() || f.sentinels[2].masterAddr("mymaster") != a {
			return false
		}
		r, _ := relRole(t, a)
		promoted = a
		return r == "master"
	})
	promotedAt := time.Now()
	time.Sleep(time.Until(cutAt.Add(ppCut)))
	// What the old master holds of each client before the heal: its
	// <prefix>:last is the last write that reached it.
	lastOnOld := map[*ppClient]int{}
	for _, c := range clients {
		v, err := relDo(t, old.Addr(), "GET", c.w.prefix+":last")
		if err != nil {
			t.Fatalf("reading %s:last from the old master: %v", c.w.prefix, err)
		}
		var n int
		fmt.Sscan(fmt.Sprint(v), &n)
		lastOnOld[c] = n
	}
	healAt := time.Now()
	lab.healAll()
	final := f.waitConverged(g, 30*time.Second)
	if final != promoted {
		t.Errorf("converged on %s, not on the promoted %s", final, promoted)
	}
	// Every route takes writes again before the count.
	waitFor(t, 20*time.Second, "every client's writes to be acknowledged by the new master", func() bool {
		for _, c := range clients {
			if c.w.ackedBy(c.w.target(), time.Now().Add(-time.Second), time.Time{}) == 0 {
				return false
			}
		}
		return true
	})
	for _, c := range clients {
		c.stop()
	}

	// The fence of the proxy on the master's host.
	var fencedAt time.Time
	for _, l := range minority.logLines(t)[marks[minority]:] {
		if strings.HasPrefix(l.text, "+proxy-fenced master mymaster") && !l.at.Before(cutAt.Truncate(time.Millisecond)) {
			fencedAt = l.at
			break
		}
	}
	if fencedAt.IsZero() {
		t.Fatalf("%s, on the cut-off host, never logged +proxy-fenced", minority)
	}
	if d := fencedAt.Sub(cutAt); d > ppFenceAfter+250*time.Millisecond {
		t.Errorf("the proxy on the cut-off host fenced %v after the cut, later than proxy-fence-after (%v)", d, ppFenceAfter)
	}
	for _, s := range f.sentinels {
		if n := len(s.switches("mymaster")); n != 1 {
			t.Errorf("%s logged %d +switch-master, want 1: %v", s, n, s.switches("mymaster"))
		}
	}

	lost := map[string]int{}
	acked := map[string]int{}
	var rows []string
	var margin time.Duration // from the last write the old master took through its proxy to the fence
	for _, c := range clients {
		l, n := c.w.lost(t, final)
		lost[c.kind] += len(l)
		acked[c.kind] += n
		rows = append(rows, fmt.Sprintf("%-18s on %s: %5d acknowledged, %4d lost %s", c.kind, c.host.Name, n, len(l), relLostSummary(l)))
		if c.kind != ppViaProxy {
			continue
		}
		for _, a := range l {
			if a.at.Before(cutAt) || a.at.After(fencedAt.Add(ppCutSlack)) {
				t.Errorf("%s: write %d, acknowledged through the proxy at %s and lost, is outside the fence window %s–%s",
					c.w.prefix, a.seq, a.at.Format("15:04:05.000"), cutAt.Format("15:04:05.000"), fencedAt.Format("15:04:05.000"))
			}
		}
		if c.host == old.host {
			margin = fencedAt.Sub(c.w.sentAt(lastOnOld[c]))
			if first := c.w.firstSentAfter(fencedAt.Add(ppCutSlack)); first != 0 && lastOnOld[c] >= first {
				t.Errorf("%s: the old master holds write %d, sent after the fence (the first write sent after it is %d)", c.w.prefix, lastOnOld[c], first)
			}
		}
	}
	sort.Strings(rows)
	t.Logf("%s: cut at %s; +proxy-fenced on the cut-off host %v after the cut, %v after the last write its proxy passed to the old master was sent; failover %v after the cut; healed after %v\n%s\nlost per kind: proxy %d of %d, HAProxy %d of %d, direct %d of %d",
		name, cutAt.Format("15:04:05.000"), fencedAt.Sub(cutAt).Round(time.Millisecond), margin.Round(time.Millisecond), promotedAt.Sub(cutAt).Round(time.Millisecond),
		healAt.Sub(cutAt).Round(time.Millisecond), strings.Join(rows, "\n"),
		lost[ppViaProxy], acked[ppViaProxy], lost[ppViaHAProxy], acked[ppViaHAProxy], lost[ppDirect], acked[ppDirect])
	if extra == nil {
		if lost[ppViaHAProxy] == 0 {
			t.Errorf("HAProxy lost no write without the guard: the partition did not isolate its old master")
		}
		if 10*lost[ppViaProxy] >= lost[ppViaHAProxy] {
			t.Errorf("the proxy lost %d writes, not less than a tenth of HAProxy's %d", lost[ppViaProxy], lost[ppViaHAProxy])
		}
	}
}
