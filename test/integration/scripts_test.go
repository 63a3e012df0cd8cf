package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordingScript is a shell script a Sentinel runs as its
// notification-script or client-reconfig-script. Every call appends one
// line "<pid>\t<parent pid>\t<arg 1>\t<arg 2>..." to calls, then does what
// the mode file says: "exit1" and "exit2" exit with that code, "sleep"
// execs sleep (same pid, no descriptors of its own; 0-2 on /dev/null so
// that it holds no pipe of the test), anything else exits 0.
type recordingScript struct {
	path, calls, mode string
}

// recordingScriptBody is the script's text; %[1]s is its directory and
// %[2]s extra shell lines run after recording the call.
const recordingScriptBody = `#!/bin/sh
d=%[1]s
line="$$	$PPID"
for a in "$@"; do line="$line	$a"; done
printf '%%s\n' "$line" >> "$d/calls"
%[2]s
case "$(cat "$d/mode" 2>/dev/null)" in
exit1) exit 1 ;;
exit2) exit 2 ;;
sleep) exec sleep 120 </dev/null >/dev/null 2>&1 ;;
esac
exit 0
`

// newRecordingScript writes a recording script named name into a fresh
// directory; extra is shell run after each call is recorded.
func newRecordingScript(t *testing.T, name, extra string) *recordingScript {
	t.Helper()
	dir := t.TempDir()
	s := &recordingScript{path: filepath.Join(dir, name), calls: filepath.Join(dir, "calls"), mode: filepath.Join(dir, "mode")}
	if err := os.WriteFile(s.path, []byte(fmt.Sprintf(recordingScriptBody, dir, extra)), 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *recordingScript) setMode(t *testing.T, mode string) {
	t.Helper()
	if err := os.WriteFile(s.mode, []byte(mode+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scriptCall is one recorded run of a script.
type scriptCall struct {
	pid, ppid int
	args      []string
}

func (c scriptCall) String() string { return strings.Join(c.args, " ") }

// callsOf returns the complete calls recorded so far.
func (s *recordingScript) callsOf(t *testing.T) []scriptCall {
	t.Helper()
	b, err := os.ReadFile(s.calls)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	} else {
		return nil
	}
	var out []scriptCall
	for _, l := range strings.Split(text, "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 2 {
			t.Fatalf("bad call line %q", l)
		}
		pid, _ := strconv.Atoi(f[0])
		ppid, _ := strconv.Atoi(f[1])
		out = append(out, scriptCall{pid: pid, ppid: ppid, args: f[2:]})
	}
	return out
}

// procChildren returns the pids of the live processes whose parent is
// ppid and whose command name is comm.
func procChildren(t *testing.T, ppid int, comm string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so cut at the
		// last ')'.
		s := string(st)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if p, _ := strconv.Atoi(f[1]); p == ppid && s[open+1:end] == comm {
			out = append(out, pid)
		}
	}
	return out
}

// killStrays sends SIGKILL to every process whose working directory is
// dir (a daemon's scripts run in the daemon's); "" kills nothing.
func killStrays(dir string) {
	if dir == "" {
		return
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if err == nil && strings.TrimSuffix(cwd, " (deleted)") == dir {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// openFDs returns the descriptor numbers a process has open.
func openFDs(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("fds of %d: %v", pid, err)
	}
	var out []int
	for _, e := range ents {
		n, _ := strconv.Atoi(e.Name())
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// leakedFDs returns the descriptors beyond 0-2 that a script (pid) holds
// open on the same file as its parent, the daemon, as Redis's
// check_leaked_fds.tcl does: descriptors the test process itself passed
// down (its own parent's, not close-on-exec) are not the daemon's leaks.
func leakedFDs(t *testing.T, pid, daemonPID int) []string {
	t.Helper()
	link := func(p, fd int) string {
		l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", p, fd))
		return l
	}
	var out []string
	for _, fd := range openFDs(t, pid) {
		if fd <= 2 {
			continue
		}
		l := link(pid, fd)
		if l == "" || l == link(os.Getpid(), fd) || l != link(daemonPID, fd) {
			continue
		}
		out = append(out, fmt.Sprintf("%d -> %s", fd, l))
	}
	return out
}

// TestScriptQueueLikeRedis runs the same script-queue scenario on a
// go-sentinel and on Debian's redis-sentinel, each alone watching a master
// with a notification-script, triggering one +set event (one script run)
// per SENTINEL SET: the running script's real pid in PENDING-SCRIPTS, no
// leaked descriptors, at most 16 running, -script-timeout and SIGKILL past
// script-max-runtime, retries on exit 1 up to Redis's limit then
// -script-error "<path> 0 1", no retry and -script-error "<path> 0 2" on
// exit 2.
func TestScriptQueueLikeRedis(t *testing.T) {
	for _, kind := range []daemonKind{goSentinel, redisSentinel} {
		t.Run(string(kind), func(t *testing.T) { testScriptQueue(t, kind) })
	}
}

func testScriptQueue(t *testing.T, kind daemonKind) {
	master := startRedis(t)
	script := newRecordingScript(t, "notify.sh", "")
	// Registered first, run last: once the daemon is killed its sleeping
	// scripts live on; end them.
	var daemonDir string
	t.Cleanup(func() { killStrays(daemonDir) })
	s := startLoggedSentinel(t, kind, fmt.Sprintf("loglevel debug\nsentinel monitor mymaster 127.0.0.1 %d 1\n"+
		"sentinel notification-script mymaster %s\n", master.Port, script.path))
	daemonPID := s.p.cmd.Process.Pid
	daemonDir = filepath.Dir(s.conf)
	desc := masterEvent("127.0.0.1", master.Port)
	queueEmpty := func() bool { return len(s.pendingScripts(t)) == 0 }

	// Startup: +monitor is a warning about the master, so it runs the script.
	waitFor(t, 10*time.Second, "the +monitor call", func() bool { return len(script.callsOf(t)) == 1 && queueEmpty() })
	if got, want := script.callsOf(t)[0].String(), "+monitor "+desc+" quorum 1"; got != want {
		t.Errorf("first call %q, want %q", got, want)
	}
	trigger := func() { s.do(t, "SENTINEL", "SET", "mymaster", "quorum", "1") }
	setArgs := []string{script.path, "+set", desc + " quorum 1"}

	// A running script: its real pid, a direct child, descriptors 0-2 only.
	script.setMode(t, "sleep")
	trigger()
	var job pendingScript
	waitFor(t, 10*time.Second, "a running script with a pid", func() bool {
		ps := s.pendingScripts(t)
		if len(ps) == 1 && ps[0].flags == "running" && ps[0].pid > 0 {
			job = ps[0]
			return true
		}
		return false
	})
	if fmt.Sprint(job.argv) != fmt.Sprint(setArgs) {
		t.Errorf("PENDING-SCRIPTS argv %q, want %q", job.argv, setArgs)
	}
	waitFor(t, 10*time.Second, "the script to record its call", func() bool { return len(script.callsOf(t)) == 2 })
	call := script.callsOf(t)[1]
	if int64(call.pid) != job.pid || call.ppid != daemonPID {
		t.Errorf("script pid %d parent %d; PENDING-SCRIPTS pid %d, daemon pid %d", call.pid, call.ppid, job.pid, daemonPID)
	}
	waitFor(t, 5*time.Second, "the script to exec sleep", func() bool {
		return len(procChildren(t, daemonPID, "sleep")) == 1
	})
	if leaked := leakedFDs(t, call.pid, daemonPID); len(leaked) != 0 {
		t.Errorf("the script inherited the daemon's descriptors %v", leaked)
	}
	if n := len(openFDs(t, daemonPID)); n <= 3 {
		t.Errorf("the daemon has only %d descriptors: nothing it could have leaked", n)
	}

	// Up to 16 scripts run at once; the rest wait their turn.
	for i := 0; i < 19; i++ {
		trigger()
	}
	waitFor(t, 15*time.Second, "16 running and 4 scheduled scripts", func() bool {
		running, scheduled := 0, 0
		for _, ps := range s.pendingScripts(t) {
			if ps.flags == "running" && ps.pid > 0 {
				running++
			} else if ps.flags == "scheduled" {
				scheduled++
			}
		}
		return running == 16 && scheduled == 4 && len(procChildren(t, daemonPID, "sleep")) == 16
	})
	time.Sleep(300 * time.Millisecond) // several ticks: still no 17th
	if n := len(procChildren(t, daemonPID, "sleep")); n != 16 {
		t.Errorf("%d scripts running at once, want at most 16", n)
	}
	// The queue holds at most 256: beyond that the oldest waiting job is
	// dropped, never a running one.
	// One SET with 240 pairs: 240 +set events, one config rewrite.
	many := []any{"SENTINEL", "SET", "mymaster"}
	for i := 0; i < 240; i++ {
		many = append(many, "quorum", "1")
	}
	s.do(t, many...)
	if ps := s.pendingScripts(t); len(ps) != 256 || ps[0].flags != "running" || ps[15].flags != "running" || ps[16].flags != "scheduled" {
		t.Errorf("after 260 jobs PENDING-SCRIPTS lists %d, want 256 (16 running first)", len(ps))
	}
	if n := len(procChildren(t, daemonPID, "sleep")); n != 16 {
		t.Errorf("%d scripts running at once, want 16", n)
	}
	sleeping := map[string]bool{}
	for _, c := range script.callsOf(t)[1:] {
		sleeping[strconv.Itoa(c.pid)] = true
	}

	// Past script-max-runtime every running script gets -script-timeout
	// "<path> <pid>" and SIGKILL (reported as signal 9), then is retried.
	s.do(t, "SENTINEL", "DEBUG", "script-retry-delay", "200")
	s.do(t, "SENTINEL", "DEBUG", "script-max-runtime", "1000")
	timedOut := map[string]bool{}
	waitFor(t, 15*time.Second, "-script-timeout for the 16 running scripts", func() bool {
		for _, e := range s.published("-script-timeout ") {
			f := strings.Fields(e)
			if len(f) != 3 || f[1] != script.path {
				t.Fatalf("malformed %q", e)
			}
			if sleeping[f[2]] {
				timedOut[f[2]] = true
			}
		}
		return len(timedOut) >= 16
	})
	script.setMode(t, "ok")
	waitFor(t, 20*time.Second, "the killed scripts to be retried until they succeed", queueEmpty)
	if n := len(procChildren(t, daemonPID, "sleep")); n != 0 {
		t.Errorf("%d sleeping scripts left after the queue emptied", n)
	}
	for pid := range timedOut {
		if len(s.logged(t, "-script-child "+pid+" 0 9")) == 0 {
			t.Errorf("no \"-script-child %s 0 9\" (SIGKILL) in the log", pid)
		}
	}
	if e := s.published("-script-error "); len(e) != 0 {
		t.Errorf("scripts killed on timeout then retried successfully must not end in -script-error: %q", e)
	}
	s.do(t, "SENTINEL", "DEBUG", "script-max-runtime", "60000")

	// Exit 2: not retried, -script-error "<path> 0 2".
	before := len(script.callsOf(t))
	script.setMode(t, "exit2")
	trigger()
	waitFor(t, 10*time.Second, "-script-error after exit 2", func() bool { return len(s.published("-script-error ")) == 1 })
	if got, want := s.published("-script-error ")[0], "-script-error "+script.path+" 0 2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	waitFor(t, 5*time.Second, "the queue to empty", queueEmpty)
	if n := len(script.callsOf(t)) - before; n != 1 {
		t.Errorf("a script exiting 2 ran %d times, want 1", n)
	}

	// A program that cannot be executed is a child exiting 2, as Redis's
	// child exits 2 when execve fails: not retried.
	if err := os.Chmod(script.path, 0o644); err != nil {
		t.Fatal(err)
	}
	before = len(script.callsOf(t))
	trigger()
	waitFor(t, 10*time.Second, "-script-error for a script that cannot run", func() bool { return len(s.published("-script-error ")) == 2 })
	if got, want := s.published("-script-error ")[1], "-script-error "+script.path+" 0 2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	waitFor(t, 5*time.Second, "the queue to empty", queueEmpty)
	if n := len(script.callsOf(t)) - before; n != 0 {
		t.Errorf("a script that is not executable ran %d times", n)
	}
	if err := os.Chmod(script.path, 0o755); err != nil {
		t.Fatal(err)
	}

	// Exit 1: retried with a doubling delay, 10 runs in all, then
	// -script-error "<path> 0 1".
	s.do(t, "SENTINEL", "DEBUG", "script-retry-delay", "10")
	before = len(script.callsOf(t))
	script.setMode(t, "exit1")
	trigger()
	maxRetry := int64(0)
	waitFor(t, 25*time.Second, "-script-error after 10 runs exiting 1", func() bool {
		for _, ps := range s.pendingScripts(t) {
			maxRetry = max(maxRetry, ps.retryNum)
		}
		return len(s.published("-script-error ")) == 3
	})
	if got, want := s.published("-script-error ")[2], "-script-error "+script.path+" 0 1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	waitFor(t, 5*time.Second, "the queue to empty", queueEmpty)
	if n := len(script.callsOf(t)) - before; n != 10 {
		t.Errorf("a script exiting 1 ran %d times, want 10 (Redis's retry limit)", n)
	}
	if maxRetry < 2 {
		t.Errorf("PENDING-SCRIPTS never showed a retry (highest retry-num %d)", maxRetry)
	}
	for _, c := range script.callsOf(t)[1:] {
		if fmt.Sprint(append([]string{script.path}, c.args...)) != fmt.Sprint(setArgs) {
			t.Errorf("call %q, want the +set event's argv %q", c.args, setArgs[1:])
		}
	}
	// Every script ran as a direct child of the daemon.
	for _, c := range script.callsOf(t) {
		if c.ppid != daemonPID {
			t.Errorf("script pid %d had parent %d, not the daemon (%d)", c.pid, c.ppid, daemonPID)
		}
	}
}

// redisWarningEvents are the event types Redis 7.0.15 emits at warning
// level about an instance (a master, or a replica or Sentinel of one),
// which are the ones it passes to the master's notification-script
// (sentinelEvent in src/sentinel.c). +tilt, -tilt, -script-error and
// -script-timeout are warnings about no instance: published, not scripted.
var redisWarningEvents = map[string]bool{
	"+config-update-from": true, "+elected-leader": true, "+failover-end": true,
	"+failover-end-for-timeout": true, "+failover-state-reconf-slaves": true,
	"+failover-state-select-slave": true, "+monitor": true, "+new-epoch": true,
	"+odown": true, "+promoted-slave": true, "+reset-master": true, "+sdown": true,
	"+selected-slave": true, "+set": true, "+switch-master": true, "+try-failover": true,
	"+vote-for-leader": true, "-failover-abort-no-good-slave": true,
	"-failover-abort-not-elected": true, "-failover-abort-slave-timeout": true,
	"-monitor": true, "-odown": true, "-sdown": true,
}

// scriptedSince returns, as sorted "<type> <description>" strings, the
// events published after the first one equal to marker that Redis passes
// to the notification-script.
func scriptedSince(s *loggedSentinel, marker string) []string {
	var out []string
	seen := false
	for _, e := range s.published("") {
		if !seen {
			seen = e == marker
			if !seen {
				continue
			}
		}
		if typ, _, _ := strings.Cut(e, " "); redisWarningEvents[typ] {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

// callsSince returns, as sorted "<arg 1> <arg 2>" strings, the calls of a
// notification script from the first one equal to marker on.
func callsSince(t *testing.T, sc *recordingScript, marker string) []string {
	var out []string
	seen := false
	for _, c := range sc.callsOf(t) {
		if len(c.args) != 2 {
			t.Errorf("notification-script called with %d arguments %q, want <event type> <event description>", len(c.args), c.args)
			continue
		}
		if !seen {
			seen = c.String() == marker
			if !seen {
				continue
			}
		}
		out = append(out, c.String())
	}
	sort.Strings(out)
	return out
}

// scriptedSentinel is a fleet member with its two scripts.
type scriptedSentinel struct {
	*loggedSentinel
	notify, reconfig *recordingScript
}

// TestScriptsInAFailover runs a failover in a fleet of three go-sentinels
// and one Debian redis-sentinel, all with a notification-script and a
// client-reconfig-script, and checks, on every Sentinel, that each
// warning-level event about the master, its replicas and Sentinels
// published during the failover reached the notification-script as
// `<type> <description>`, and that the client-reconfig-script ran once
// with `mymaster <role> start <from-ip> <from-port> <to-ip> <to-port>`:
// role leader on the Sentinel that ran the failover, observer on the
// others, the same argv redis-sentinel passes. The first go-sentinel has
// quorum 1 and the shortest down-after so that it leads.
func TestScriptsInAFailover(t *testing.T) {
	top := startData(t, 2)
	var fleet []*scriptedSentinel
	add := func(kind daemonKind, quorum, downAfter int) {
		ss := &scriptedSentinel{notify: newRecordingScript(t, "notify.sh", ""), reconfig: newRecordingScript(t, "reconfig.sh", "")}
		ss.loggedSentinel = startLoggedSentinel(t, kind, fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d %d\n"+
			"sentinel down-after-milliseconds mymaster %d\nsentinel failover-timeout mymaster 10000\n"+
			"sentinel notification-script mymaster %s\nsentinel client-reconfig-script mymaster %s\n",
			top.master.Port, quorum, downAfter, ss.notify.path, ss.reconfig.path))
		fleet = append(fleet, ss)
		top.sentinels = append(top.sentinels, ss.p)
	}
	add(goSentinel, 1, 1000)
	add(goSentinel, 2, 2000)
	add(goSentinel, 2, 2000)
	add(redisSentinel, 2, 3000)
	waitDiscovery(t, top)

	// A +set on every Sentinel marks where the comparison starts: the
	// subscription is already running.
	for _, s := range fleet {
		s.do(t, "SENTINEL", "SET", "mymaster", "failover-timeout", "10000")
	}
	marker := "+set " + masterEvent("127.0.0.1", top.master.Port) + " failover-timeout 10000"
	oldPort := top.master.Port
	killProc(top.master)
	var newPort int
	waitFor(t, 40*time.Second, "every Sentinel to switch to a promoted replica", func() bool {
		addr := masterAddr(t, fleet[0].Port)
		if addr == "" || strings.HasSuffix(addr, fmt.Sprintf(":%d", oldPort)) {
			return false
		}
		for _, s := range fleet[1:] {
			if masterAddr(t, s.Port) != addr {
				return false
			}
		}
		newPort, _ = strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
		return true
	})
	waitFor(t, 20*time.Second, "+failover-end on the leader", func() bool { return len(fleet[0].published("+failover-end ")) > 0 })

	// Reconfig scripts: one run each, leader on the Sentinel that promoted.
	wantReconfig := func(role string) string {
		return fmt.Sprintf("mymaster %s start 127.0.0.1 %d 127.0.0.1 %d", role, oldPort, newPort)
	}
	for _, s := range fleet {
		role := "observer"
		if len(s.published("+promoted-slave ")) > 0 {
			role = "leader"
		}
		waitFor(t, 10*time.Second, fmt.Sprintf("the client-reconfig-script on %s", s), func() bool {
			return len(s.reconfig.callsOf(t)) > 0 && len(s.pendingScripts(t)) == 0
		})
		calls := s.reconfig.callsOf(t)
		if len(calls) != 1 || calls[0].String() != wantReconfig(role) {
			t.Errorf("%s: client-reconfig-script calls %q, want one %q", s, calls, wantReconfig(role))
		}
		if calls[0].ppid != s.p.cmd.Process.Pid {
			t.Errorf("%s: client-reconfig-script ran under pid %d, not the daemon", s, calls[0].ppid)
		}
	}
	if len(fleet[0].published("+promoted-slave ")) == 0 {
		t.Errorf("the go-sentinel set up to lead did not run the failover")
	}

	// Notification scripts: the published warnings, exactly.
	for _, s := range fleet {
		var pub, got []string
		deadline := time.Now().Add(15 * time.Second)
		for {
			pub, got = scriptedSince(s.loggedSentinel, marker), callsSince(t, s.notify, marker)
			if fmt.Sprint(pub) == fmt.Sprint(got) && len(s.pendingScripts(t)) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if fmt.Sprint(pub) != fmt.Sprint(got) {
			t.Errorf("%s: notification-script calls differ from the published warnings\n calls:\n  %s\n published:\n  %s",
				s, strings.Join(got, "\n  "), strings.Join(pub, "\n  "))
		}
		t.Logf("%s: %d notification-script calls, as published:\n  %s", s, len(got), strings.Join(got, "\n  "))
	}
	// The leader's script saw the whole failover.
	for _, typ := range []string{"+sdown", "+odown", "+try-failover", "+elected-leader", "+selected-slave",
		"+promoted-slave", "+failover-state-reconf-slaves", "+failover-end", "+switch-master"} {
		found := false
		for _, e := range callsSince(t, fleet[0].notify, marker) {
			found = found || strings.HasPrefix(e, typ+" ")
		}
		if !found {
			t.Errorf("%s: no %s call", fleet[0], typ)
		}
	}
	// An observer's script sees what redis-sentinel's sees: the vote, the
	// new epoch and config, with the same argv.
	observed := func(s *scriptedSentinel) []string {
		var out []string
		for _, c := range callsSince(t, s.notify, marker) {
			switch typ, _, _ := strings.Cut(c, " "); typ {
			case "+new-epoch", "+vote-for-leader", "+config-update-from", "+switch-master":
				out = append(out, c)
			}
		}
		return out
	}
	want := observed(fleet[3])
	if !contains(want, fmt.Sprintf("+switch-master mymaster 127.0.0.1 %d 127.0.0.1 %d", oldPort, newPort)) {
		t.Errorf("redis-sentinel's script lacks +switch-master: %q", want)
	}
	for _, s := range fleet[1:3] {
		if got := observed(s); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: observer calls\n  %s\nwant redis-sentinel's\n  %s", s, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
