package integration

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// relInfoField reads one field of INFO from the server at addr.
func relInfoField(t *testing.T, addr, field string) string {
	v, err := relDo(t, addr, "INFO")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(fmt.Sprint(v), "\n") {
		if x, ok := strings.CutPrefix(strings.TrimSpace(l), field+":"); ok {
			return x
		}
	}
	return ""
}

// TestRelFaketimeCannotMoveGoClock records why the clock-jump test does
// not use Debian's faketime: libfaketime replaces the C library's clock
// functions, but a Go program reads the clock through the vDSO straight
// from the runtime, so go-sentinel started with libfaketime preloaded and
// FAKETIME=-10d (what `faketime -f -10d` sets up) still
// reports the real time (INFO server_time_usec). (Debian's redis-sentinel
// 7.0.15 does not even start under this libfaketime: its jemalloc and
// libfaketime recurse into each other at start-up; logged, not asserted.)
// If this test ever fails, faketime does move a Go binary's clock and
// TestRelTiltAfterClockStall should use it.
func TestRelFaketimeCannotMoveGoClock(t *testing.T) {
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if len(libs) == 0 {
		t.Skip("libfaketime not installed (apt-get install faketime; scripts/install-deps.sh does)")
	}
	// What the faketime command sets up, without its wrapper process.
	env := []string{"LD_PRELOAD=" + libs[0], "FAKETIME=-10d"}
	lab := newRelLoopLab(t, 2)
	h := lab.hosts[0]
	conf := writeConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mymaster 127.0.0.1 %d 2\n", h.SentinelPort, freePort(t)))
	start(t, t.TempDir(), env, sentinelBin, conf)
	addr := fmt.Sprintf("127.0.0.1:%d", h.SentinelPort)
	waitFor(t, 15*time.Second, "go-sentinel under faketime to answer", func() bool { return aliveAt("127.0.0.1", h.SentinelPort) })
	usec, err := strconv.ParseInt(relInfoField(t, addr, "server_time_usec"), 10, 64)
	if err != nil {
		t.Fatalf("server_time_usec: %v", err)
	}
	skew := time.Since(time.UnixMicro(usec))
	t.Logf("go-sentinel under faketime -f -10d reports a clock %v off the real one", skew.Round(time.Millisecond))
	if skew > time.Hour || skew < -time.Hour {
		t.Errorf("faketime moved go-sentinel's clock by %v: use it for the clock-jump test", skew)
	}

	rconf := writeConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mymaster 127.0.0.1 %d 2\n", lab.hosts[1].SentinelPort, freePort(t)))
	rp := start(t, t.TempDir(), env, needBinary(t, "redis-sentinel"), rconf)
	time.Sleep(3 * time.Second)
	t.Logf("redis-sentinel under faketime answers after 3 s: %v; output: %q", aliveAt("127.0.0.1", lab.hosts[1].SentinelPort),
		strings.TrimSpace(rp.out.String()))
}

// TestRelTiltAfterClockStall stalls a Sentinel's clock the one honest way
// available to a test on a Go binary (see TestRelFaketimeCannotMoveGoClock):
// the process is stopped with SIGSTOP for 3.5 s, longer than the TILT
// trigger (2 s), so that its next timer run sees time jump forward, as
// after a clock jump or a machine stall. The Sentinel (quorum 1, alone,
// down-after 1 s: it could fail the master over on its own) watches a
// healthy master with one replica, tilt-period set to 5 s with SENTINEL
// DEBUG. Like redis-sentinel (run the same way as the reference), it
// must enter TILT at once, report it in INFO, decide nothing while in it
// (no +sdown of the master, no failover), and leave it tilt-period later.
func TestRelTiltAfterClockStall(t *testing.T) {
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) {
			top := startData(t, 1)
			lab := newRelLoopLab(t, 1)
			s := lab.hosts[0].startSentinel(t, kind, fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 1\n"+
				"sentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 5000\n", top.master.Port))
			if _, err := s.do("SENTINEL", "DEBUG", "tilt-period", "5000"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 15*time.Second, "the replica to be known", func() bool { return s.listLen("REPLICAS", "mymaster") == 1 })
			time.Sleep(1500 * time.Millisecond)
			marks := len(s.logLines(t))
			s.p.signal(syscall.SIGSTOP)
			t.Cleanup(func() { s.p.cmd.Process.Signal(syscall.SIGCONT) })
			time.Sleep(3500 * time.Millisecond)
			s.p.signal(syscall.SIGCONT)
			contAt := time.Now()
			waitFor(t, 5*time.Second, "+tilt", func() bool { return len(s.logged(t, "+tilt")) > 0 })
			tiltSeen := time.Since(contAt)
			if v := relInfoField(t, s.Addr(), "sentinel_tilt"); v != "1" {
				t.Errorf("INFO sentinel_tilt:%s during TILT", v)
			}
			waitFor(t, 15*time.Second, "-tilt", func() bool { return len(s.logged(t, "-tilt")) > 0 })
			time.Sleep(2 * time.Second)
			lines := s.logLines(t)[marks:]
			var seq []string
			var in, out time.Time
			for _, l := range lines {
				typ := strings.Fields(l.text)[0]
				switch typ {
				case "+tilt":
					in = l.at
				case "-tilt":
					out = l.at
				}
				if strings.HasPrefix(typ, "+") || strings.HasPrefix(typ, "-") {
					seq = append(seq, l.text)
				}
				for _, bad := range append([]string{"+sdown master", "+odown", "+try-failover"}, relFailoverActs...) {
					if strings.HasPrefix(l.text, bad) {
						t.Errorf("%s logged %q after the stall", s, l.text)
					}
				}
			}
			if v := relInfoField(t, s.Addr(), "sentinel_tilt"); v != "0" {
				t.Errorf("INFO sentinel_tilt:%s after TILT", v)
			}
			if a := s.masterAddr("mymaster"); a != fmt.Sprintf("127.0.0.1:%d", top.master.Port) {
				t.Errorf("master is now %q", a)
			}
			t.Logf("%s: +tilt logged within %v of SIGCONT, TILT lasted %v; events after the stall: %q", s,
				tiltSeen.Round(10*time.Millisecond), out.Sub(in), seq)
			if d := out.Sub(in); d < 5*time.Second || d > 6500*time.Millisecond {
				t.Errorf("TILT lasted %v, want tilt-period (5 s) plus at most a ping period", d)
			}
		})
	}
}
