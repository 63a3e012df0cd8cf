package integration

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// detectDownAfter is the down-after-milliseconds of the detection tests.
const detectDownAfter = time.Second

// detectionFleet starts three go-sentinels and one Debian redis-sentinel,
// the reference, watching the master at host:port with quorum 2 and
// down-after 1000 ms, and waits until they discovered top's replicas and
// each other.
func detectionFleet(t *testing.T, top *topology, host string, port int) []*loggedSentinel {
	t.Helper()
	conf := fmt.Sprintf("sentinel monitor mymaster %s %d 2\nsentinel down-after-milliseconds mymaster %d\n"+
		"sentinel failover-timeout mymaster 10000\n", host, port, detectDownAfter.Milliseconds())
	var fleet []*loggedSentinel
	for _, kind := range []daemonKind{goSentinel, goSentinel, goSentinel, redisSentinel} {
		s := startLoggedSentinel(t, kind, conf)
		fleet = append(fleet, s)
		top.sentinels = append(top.sentinels, s.p)
	}
	waitDiscovery(t, top)
	return fleet
}

// outage fails the master with fail, waits until every Sentinel logged
// +sdown, keeps it failed until 3× down-after after the failure, restores
// it with restore, waits until every Sentinel logged -sdown and then
// 1.5× down-after more (long enough for a flap to show). Then, for every
// Sentinel, it checks the log file and the published events: +sdown about
// the master exactly once, not before down-after after the failure; -sdown
// exactly once, after the restore; +odown and -odown at most once. It
// returns each Sentinel's +sdown delay after the failure and -sdown delay
// after the restore, as the log times them.
func outage(t *testing.T, fleet []*loggedSentinel, desc string, fail, restore func()) (sdown, back []time.Duration) {
	t.Helper()
	failedAt := time.Now()
	fail()
	for _, s := range fleet {
		s := s
		waitFor(t, 15*time.Second, fmt.Sprintf("+sdown on %s", s), func() bool { return len(s.logged(t, "+sdown "+desc)) > 0 })
	}
	time.Sleep(time.Until(failedAt.Add(3 * detectDownAfter)))
	for _, s := range fleet {
		if l := s.logged(t, "-sdown "+desc); len(l) != 0 {
			t.Errorf("%s: -sdown while the master was still failed, %v after the failure", s, l[0].at.Sub(failedAt))
		}
	}
	restoredAt := time.Now()
	restore()
	for _, s := range fleet {
		s := s
		waitFor(t, 15*time.Second, fmt.Sprintf("-sdown on %s", s), func() bool { return len(s.logged(t, "-sdown "+desc)) > 0 })
	}
	time.Sleep(detectDownAfter * 3 / 2)

	// Log times are truncated to the millisecond.
	notBefore := func(at, t0 time.Time) bool { return !at.Add(time.Millisecond).Before(t0) }
	for _, s := range fleet {
		ups, downs := s.logged(t, "+sdown "+desc), s.logged(t, "-sdown "+desc)
		exact := func(lines []logLine) (n int) {
			for _, l := range lines {
				if l.text == strings.Fields(l.text)[0]+" "+desc {
					n++
				}
			}
			return n
		}
		if exact(ups) != 1 || exact(downs) != 1 || len(ups) != 1 || len(downs) != 1 {
			t.Errorf("%s: logged +sdown %d times and -sdown %d times, want once each:\n%s", s, len(ups), len(downs), sdownLines(t, s))
			continue
		}
		if ups[0].level != '#' || downs[0].level != '#' {
			t.Errorf("%s: +sdown/-sdown not logged at warning level", s)
		}
		if !notBefore(ups[0].at, failedAt.Add(detectDownAfter)) {
			t.Errorf("%s: +sdown %v after the failure, before down-after (%v)", s, ups[0].at.Sub(failedAt), detectDownAfter)
		}
		if !notBefore(downs[0].at, restoredAt) {
			t.Errorf("%s: -sdown %v before the master was restored", s, restoredAt.Sub(downs[0].at))
		}
		pub := s.published("")
		var seq []string
		for _, e := range pub {
			if e == "+sdown "+desc || e == "-sdown "+desc {
				seq = append(seq, strings.Fields(e)[0])
			}
		}
		if fmt.Sprint(seq) != "[+sdown -sdown]" {
			t.Errorf("%s: published %v, want [+sdown -sdown]", s, seq)
		}
		for _, typ := range []string{"+odown ", "-odown "} {
			if n := len(s.logged(t, typ+desc)); n > 1 {
				t.Errorf("%s: %s logged %d times in one outage:\n%s", s, typ, n, sdownLines(t, s))
			}
		}
		sdown = append(sdown, ups[0].at.Sub(failedAt))
		back = append(back, downs[0].at.Sub(restoredAt))
	}
	return sdown, back
}

// sdownLines returns the log lines about down states, for failure reports.
func sdownLines(t *testing.T, s *loggedSentinel) string {
	var out []string
	for _, l := range s.logLines(t) {
		if strings.Contains(l.text, "down") {
			out = append(out, l.at.Format("15:04:05.000")+" "+l.text)
		}
	}
	return strings.Join(out, "\n")
}

// logDelays states the measured delays, per Sentinel.
func logDelays(t *testing.T, fleet []*loggedSentinel, failure string, sdown, back []time.Duration) {
	t.Helper()
	for i, s := range fleet {
		if i < len(sdown) {
			t.Logf("%-22s +sdown %v after %s, -sdown %v after the restore", s, sdown[i].Round(time.Millisecond), failure, back[i].Round(time.Millisecond))
		}
	}
}

// restartRedis starts redis-server again on the port and directory of a
// killed one.
func restartRedis(t *testing.T, old *proc) *proc {
	t.Helper()
	p := start(t, old.Dir, nil, needBinary(t, "redis-server"), "--port", fmt.Sprint(old.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", old.Dir, "--daemonize", "no", "--logfile", "")
	p.Port = old.Port
	return p
}

// TestDetectionMasterKilled: the master's process dies (SIGKILL, its
// sockets closed) and is started again 3 s later. Replicas have
// replica-priority 0, so no failover races the detection.
func TestDetectionMasterKilled(t *testing.T) {
	top := startDataUnpromotable(t, 2)
	fleet := detectionFleet(t, top, "127.0.0.1", top.master.Port)
	sdown, back := outage(t, fleet, masterEvent("127.0.0.1", top.master.Port),
		func() { killProc(top.master) },
		func() { top.master = restartRedis(t, top.master) })
	logDelays(t, fleet, "SIGKILL", sdown, back)
}

// TestDetectionMasterStopped: the master is stopped with SIGSTOP for 3×
// down-after (its sockets stay open, nothing is answered), then continued.
func TestDetectionMasterStopped(t *testing.T) {
	top := startDataUnpromotable(t, 2)
	fleet := detectionFleet(t, top, "127.0.0.1", top.master.Port)
	t.Cleanup(func() { top.master.cmd.Process.Signal(syscall.SIGCONT) })
	sdown, back := outage(t, fleet, masterEvent("127.0.0.1", top.master.Port),
		func() { top.master.signal(syscall.SIGSTOP) },
		func() { top.master.signal(syscall.SIGCONT) })
	logDelays(t, fleet, "SIGSTOP", sdown, back)
}

// TestDetectionMasterUnreachable: the master runs on a test host in a
// network namespace whose incoming packets are dropped for 3× down-after,
// then let through again (connections stay open, nothing is answered, new
// connections time out).
func TestDetectionMasterUnreachable(t *testing.T) {
	host := newNetnsHost(t)
	port := freePort(t)
	dir := t.TempDir()
	master := host.run(dir, needBinary(t, "redis-server"), "--port", fmt.Sprint(port), "--bind", host.IP,
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--logfile", "", "--protected-mode", "no")
	master.Port = port
	waitFor(t, 10*time.Second, "redis-server in the namespace to answer", func() bool { return aliveAt(host.IP, port) })
	top := &topology{t: t, master: master}
	fleet := detectionFleet(t, top, host.IP, port)
	sdown, back := outage(t, fleet, masterEvent(host.IP, port), host.drop, host.restore)
	logDelays(t, fleet, "the drop", sdown, back)
}

// closeWaitSockets returns how many TCP connections process pid holds in
// CLOSE_WAIT (the peer closed, the process has not) to remote port port.
func closeWaitSockets(t *testing.T, pid, port int) int {
	t.Helper()
	inodes := map[string]bool{}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		if strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "08" { // 08: TCP_CLOSE_WAIT
				continue
			}
			_, rport, _ := strings.Cut(f[2], ":")
			if p, err := strconv.ParseInt(rport, 16, 32); err == nil && int(p) == port && inodes[f[9]] {
				n++
			}
		}
	}
	return n
}

// TestDetectionClosedConnectionNoticed: when the master dies, its end of
// both of a Sentinel's connections closes; Redis notices each at once
// (its event loop reads the EOF) and reconnects both together when the
// master is back. A connection left half-closed is only noticed when next
// used, which delays -sdown after a restart.
func TestDetectionClosedConnectionNoticed(t *testing.T) {
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) {
			master := startRedis(t)
			s := startLoggedSentinel(t, kind, fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 2\n"+
				"sentinel down-after-milliseconds mymaster %d\n", master.Port, detectDownAfter.Milliseconds()))
			desc := masterEvent("127.0.0.1", master.Port)
			waitFor(t, 10*time.Second, "both connections to the master", func() bool {
				return sentinelField(t, s.Port, "flags") == "master"
			})
			killProc(master)
			waitFor(t, 15*time.Second, "+sdown", func() bool { return len(s.logged(t, "+sdown "+desc)) > 0 })
			if n := closeWaitSockets(t, s.p.cmd.Process.Pid, master.Port); n != 0 {
				t.Errorf("%s holds %d connections to the dead master in CLOSE_WAIT after +sdown", s, n)
			}
		})
	}
}
