package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/go-sentinel/go-sentinel/test/integration/diffcanon"
)

// The differential harness runs one scenario on two fleets at once, each
// 1 master + 2 replicas (Debian's redis-server) watched by 3 Sentinels of
// one kind, and records what every Sentinel published and which scripts
// it ran. differential_test.go holds the scenarios; diffcanon turns the
// recordings into canonical sequences and compares them.

// diffKind is the Sentinel implementation a fleet runs.
type diffKind string

const (
	diffRedis diffKind = "redis-sentinel"
	diffGo    diffKind = "go-sentinel"
)

// Timing of every fleet. down-after and quorum are the topology;
// failover-timeout is short enough that a split vote is retried within a
// scenario's deadline (Redis waits 2× failover-timeout before the next
// attempt) and long enough that reconfiguring one replica on a loaded
// 2-core machine does not end in +failover-end-for-timeout.
const (
	diffDownAfter       = 1000 * time.Millisecond
	diffFailoverTimeout = 5000 * time.Millisecond
	diffQuorum          = 2
)

// diffSentinel is one Sentinel of a fleet and everything it published,
// across restarts.
type diffSentinel struct {
	kind diffKind
	port int
	dir  string
	conf string
	proc *proc
	rec  *diffRecorder
	// notifyFrom and reconfigFrom are the number of script log lines
	// written before the recording started (the +monitor at start).
	notifyFrom, reconfigFrom int
}

// notifyLog and reconfigLog are the files the recording scripts append
// their argv to, one line per invocation.
func (s *diffSentinel) notifyLog() string   { return filepath.Join(s.dir, "notify.log") }
func (s *diffSentinel) reconfigLog() string { return filepath.Join(s.dir, "reconfig.log") }

// diffFleet is one side of a differential run.
type diffFleet struct {
	t         *testing.T
	kind      diffKind
	name      string // "A", "B": which side, for messages
	master    *proc
	replicas  []*proc
	sentinels []*diffSentinel
	t0        time.Time
	// labels names the logical instances by address: "m" the first
	// master, "r" a replica (or a scenario's own name for one, such as
	// "r-killed"), "s" a Sentinel; finalLabels adds "p", the promoted one.
	labels map[string]string
}

func (f *diffFleet) String() string { return f.name + " (" + string(f.kind) + ")" }

// diffOptions shape a fleet for one scenario.
type diffOptions struct {
	// replicaArgs are extra redis-server arguments per replica.
	replicaArgs [][]string
	// replicaLabels name the replicas for the scenario (default "r").
	replicaLabels []string
	// sentinelConf is appended to every Sentinel's config (overrides).
	sentinelConf string
}

// diffDataArgs are given to every data node: a full resynchronisation
// starts at once instead of after repl-diskless-sync-delay (5 s), so
// reconfiguring a replica never outlasts the failover-timeout.
var diffDataArgs = []string{"--repl-diskless-sync-delay", "0"}

// diffRecordScript is the recording script: it appends its argv to a
// log file as one line, each argument in brackets ("[+sdown][master
// mymaster 127.0.0.1 6379]"), so the number and bounds of the arguments
// are kept. The line is written with one write to a file opened with
// O_APPEND, so concurrent invocations do not interleave.
const diffRecordScript = "#!/bin/sh\nline=$(printf '[%%s]' \"$@\")\nprintf '%%s\\n' \"$line\" >> '%s'\n"

// startDiffFleet starts the data nodes and the three Sentinels of one
// kind. It does not wait for discovery (discovered, polled for both
// fleets at once).
func startDiffFleet(t *testing.T, kind diffKind, name string, opt diffOptions) *diffFleet {
	t.Helper()
	if kind == diffRedis {
		needBinary(t, "redis-sentinel")
	}
	f := &diffFleet{t: t, kind: kind, name: name, labels: map[string]string{}}
	f.master = diffStartRedis(t, diffDataArgs...)
	f.labels[diffAddr(f.master.Port)] = "m"
	for i := 0; i < 2; i++ {
		args := append([]string{"--replicaof", "127.0.0.1", fmt.Sprint(f.master.Port)}, diffDataArgs...)
		if i < len(opt.replicaArgs) {
			args = append(args, opt.replicaArgs[i]...)
		}
		r := diffStartRedis(t, args...)
		f.replicas = append(f.replicas, r)
		f.labels[diffAddr(r.Port)] = "r"
		if i < len(opt.replicaLabels) {
			f.labels[diffAddr(r.Port)] = opt.replicaLabels[i]
		}
	}
	for i := 0; i < 3; i++ {
		s := &diffSentinel{kind: kind, port: diffFreePort(t), dir: t.TempDir()}
		s.conf = filepath.Join(s.dir, "sentinel.conf")
		notify := filepath.Join(s.dir, "notify.sh")
		reconf := filepath.Join(s.dir, "reconfig.sh")
		for script, log := range map[string]string{notify: s.notifyLog(), reconf: s.reconfigLog()} {
			if err := os.WriteFile(script, []byte(fmt.Sprintf(diffRecordScript, log)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		conf := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\n"+
			"sentinel monitor mymaster 127.0.0.1 %d %d\n"+
			"sentinel down-after-milliseconds mymaster %d\n"+
			"sentinel failover-timeout mymaster %d\n"+
			"sentinel notification-script mymaster %s\n"+
			"sentinel client-reconfig-script mymaster %s\n"+
			"sentinel deny-scripts-reconfig no\n%s",
			s.port, s.dir, f.master.Port, diffQuorum, diffDownAfter.Milliseconds(), diffFailoverTimeout.Milliseconds(),
			notify, reconf, opt.sentinelConf)
		if err := os.WriteFile(s.conf, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		f.sentinels = append(f.sentinels, s)
		f.labels[diffAddr(s.port)] = "s"
		f.startSentinel(s)
	}
	return f
}

// startSentinel (re)starts one Sentinel of the fleet on its config and
// waits until it answers.
func (f *diffFleet) startSentinel(s *diffSentinel) {
	t := f.t
	t.Helper()
	bin := sentinelBin
	if s.kind == diffRedis {
		bin = needBinary(t, "redis-sentinel")
	}
	s.proc = start(t, s.dir, nil, bin, s.conf)
	s.proc.Port = s.port
	waitFor(t, 20*time.Second, fmt.Sprintf("%s sentinel :%d to answer", s.kind, s.port), func() bool {
		if done, _ := s.proc.exited(); done {
			t.Fatalf("%s exited early:\n%s", s.kind, s.proc.out.String())
		}
		return alive(s.port)
	})
}

// diffPorts are the ports diffFreePort handed out in this process.
var diffPorts = map[int]bool{}

// diffFreePort returns a loopback port below the kernel's ephemeral range
// (32768-60999 by default) that nobody listens on. A scenario kills
// instances and watches their ports stay dead: a port from the ephemeral
// range, once free, can be handed to any other process that listens on
// port 0 (other test jobs on the machine do), and the Sentinels then see
// the old master answer again.
func diffFreePort(t *testing.T) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for i := 0; i < 1000; i++ {
		p := 20000 + rand.IntN(12000)
		if diffPorts[p] || usedPort[p] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ln.Close()
		diffPorts[p] = true
		return p
	}
	t.Fatal("no free port below 32768")
	return 0
}

// diffStartRedis is startRedis on a diffFreePort port.
func diffStartRedis(t *testing.T, extra ...string) *proc {
	t.Helper()
	bin := needBinary(t, "redis-server")
	dir := t.TempDir()
	port := diffFreePort(t)
	args := append([]string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--logfile", ""}, extra...)
	p := start(t, dir, nil, bin, args...)
	p.Port = port
	waitFor(t, 10*time.Second, "redis-server to answer PING", func() bool { return alive(port) })
	return p
}

// stop ends the recordings and every process of the fleet (before the
// next attempt of a scenario; t.Cleanup would be too late).
func (f *diffFleet) stop() {
	for _, s := range f.sentinels {
		if s.rec != nil {
			s.rec.close()
		}
		if s.proc != nil {
			killProc(s.proc)
		}
	}
	for _, p := range append([]*proc{f.master}, f.replicas...) {
		if p != nil {
			killProc(p)
		}
	}
}

// diffAddr is the address form Sentinel events use for loopback ports.
func diffAddr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

// discovered reports whether every Sentinel lists both replicas and the
// two other Sentinels.
func (f *diffFleet) discovered() bool {
	for _, s := range f.sentinels {
		if diffListLen(s.port, "REPLICAS") != len(f.replicas) || diffListLen(s.port, "SENTINELS") != len(f.sentinels)-1 {
			return false
		}
	}
	return true
}

// diffDo runs one command on a short-lived client, for polling from a
// loop: polling must not fail the test (the condition just stays false).
func diffDo(port int, args ...any) (any, error) {
	c := redis.NewClient(&redis.Options{
		Addr: diffAddr(port), Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second,
	})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return c.Do(ctx, args...).Result()
}

func diffListLen(port int, sub string) int {
	v, err := diffDo(port, "SENTINEL", sub, "mymaster")
	if err != nil {
		return -1
	}
	l, _ := v.([]any)
	return len(l)
}

// diffMasterAddr is the master address a Sentinel gives clients.
func diffMasterAddr(port int) string {
	v, err := diffDo(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	if err != nil {
		return ""
	}
	l, _ := v.([]any)
	if len(l) != 2 {
		return ""
	}
	return fmt.Sprintf("%v:%v", l[0], l[1])
}

// diffMasterField is one field of SENTINEL MASTER.
func diffMasterField(port int, field string) string {
	v, err := diffDo(port, "SENTINEL", "MASTER", "mymaster")
	if err != nil {
		return ""
	}
	l, _ := v.([]any)
	for i := 0; i+1 < len(l); i += 2 {
		if fmt.Sprint(l[i]) == field {
			return fmt.Sprint(l[i+1])
		}
	}
	return ""
}

// diffPendingScripts is the number of scripts a Sentinel has queued or
// running.
func diffPendingScripts(port int) int {
	v, err := diffDo(port, "SENTINEL", "PENDING-SCRIPTS")
	if err != nil {
		return -1
	}
	l, _ := v.([]any)
	return len(l)
}

// diffRecorder holds the events one Sentinel published, with the time
// each arrived, across the subscriptions of its successive processes.
type diffRecorder struct {
	mu     sync.Mutex
	events []diffcanon.Raw
	t0     time.Time
	last   time.Time
	subs   []*redis.PubSub
	wg     sync.WaitGroup
}

// subscribe starts recording every channel of the Sentinel on port with
// PSUBSCRIBE *; it returns once the subscription is confirmed, so nothing
// published after it returns is missed.
func (r *diffRecorder) subscribe(t *testing.T, port int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: diffAddr(port), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	ps := c.PSubscribe(context.Background(), "*")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatalf("PSUBSCRIBE * on :%d: %v", port, err)
	}
	r.mu.Lock()
	r.subs = append(r.subs, ps)
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer c.Close()
		for {
			msg, err := ps.ReceiveMessage(context.Background())
			if err != nil {
				return // closed, or the Sentinel went away
			}
			if strings.HasPrefix(msg.Channel, "__sentinel__:") {
				continue
			}
			r.add(diffcanon.Raw{Type: msg.Channel, Msg: msg.Payload})
		}
	}()
	t.Cleanup(r.close)
}

func (r *diffRecorder) add(e diffcanon.Raw) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	e.At = now.Sub(r.t0)
	r.events = append(r.events, e)
	r.last = now
}

// mark records a scenario step (a restart) in the sequence.
func (r *diffRecorder) mark(what string) { r.add(diffcanon.Raw{Type: diffcanon.Mark, Msg: what}) }

// close ends the current subscriptions (before the Sentinel is stopped on
// purpose, and in cleanup) and waits for their readers.
func (r *diffRecorder) close() {
	r.mu.Lock()
	subs := r.subs
	r.subs = nil
	r.mu.Unlock()
	for _, ps := range subs {
		ps.Close()
	}
	r.wg.Wait()
}

func (r *diffRecorder) snapshot() []diffcanon.Raw {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]diffcanon.Raw(nil), r.events...)
}

func (r *diffRecorder) has(match func(diffcanon.Raw) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if match(e) {
			return true
		}
	}
	return false
}

func (r *diffRecorder) lastEvent() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// record subscribes to every Sentinel of the fleet; times count from t0.
// Script invocations from before (the +monitor of the start) are left
// out; the caller waited for scriptsIdle.
func (f *diffFleet) record(t0 time.Time) {
	f.t0 = t0
	for _, s := range f.sentinels {
		s.rec = &diffRecorder{t0: t0}
		s.rec.subscribe(f.t, s.port)
		s.notifyFrom = len(diffReadLines(s.notifyLog()))
		s.reconfigFrom = len(diffReadLines(s.reconfigLog()))
	}
}

// allHave reports whether every Sentinel (of those in idx, or all when
// idx is empty) published an event of type typ about the instance
// labelled label (kind "master", "slave", "sentinel"; label "" for any).
func (f *diffFleet) allHave(typ, kind, label string, idx ...int) bool {
	if len(idx) == 0 {
		for i := range f.sentinels {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		if !f.sentinels[i].rec.has(func(e diffcanon.Raw) bool { return f.matches(e, typ, kind, label) }) {
			return false
		}
	}
	return true
}

// anyHas reports whether some Sentinel published such an event.
func (f *diffFleet) anyHas(typ, kind, label string) bool {
	for _, s := range f.sentinels {
		if s.rec.has(func(e diffcanon.Raw) bool { return f.matches(e, typ, kind, label) }) {
			return true
		}
	}
	return false
}

func (f *diffFleet) matches(e diffcanon.Raw, typ, kind, label string) bool {
	if e.Type != typ {
		return false
	}
	k, addr := diffcanon.Subject(e.Msg)
	if kind != "" && k != kind {
		return false
	}
	return label == "" || f.labels[addr] == label
}

// lastEvent is the time of the last event any Sentinel of the fleet
// published (the zero time if none).
func (f *diffFleet) lastEvent() time.Time {
	var last time.Time
	for _, s := range f.sentinels {
		if l := s.rec.lastEvent(); l.After(last) {
			last = l
		}
	}
	return last
}

// scriptsIdle reports whether no Sentinel has a script queued or running.
func (f *diffFleet) scriptsIdle() bool {
	for _, s := range f.sentinels {
		if diffPendingScripts(s.port) != 0 {
			return false
		}
	}
	return true
}

// failoverIdle reports whether no Sentinel has a failover in progress.
func (f *diffFleet) failoverIdle() bool {
	for _, s := range f.sentinels {
		fl := diffMasterField(s.port, "flags")
		if fl == "" || strings.Contains(fl, "failover_in_progress") {
			return false
		}
	}
	return true
}

// promoted is the replica the first Sentinel names as master, nil while
// it names the first master.
func (f *diffFleet) promoted() *proc {
	addr := diffMasterAddr(f.sentinels[0].port)
	for _, r := range f.replicas {
		if diffAddr(r.Port) == addr {
			return r
		}
	}
	return nil
}

// restartRedis starts a data node again on the same port and directory
// with the same arguments.
func (f *diffFleet) restartRedis(p *proc) *proc {
	f.t.Helper()
	args := p.cmd.Args[1:]
	np := start(f.t, p.Dir, nil, p.cmd.Path, args...)
	np.Port = p.Port
	return np
}

// recordings returns every Sentinel's events and script invocations.
func (f *diffFleet) recordings() []diffcanon.Recording {
	var out []diffcanon.Recording
	for i, s := range f.sentinels {
		out = append(out, diffcanon.Recording{
			Sentinel: fmt.Sprintf("%s%d", f.name, i),
			Events:   s.rec.snapshot(),
			Notify:   diffReadLines(s.notifyLog())[s.notifyFrom:],
			Reconfig: diffReadLines(s.reconfigLog())[s.reconfigFrom:],
		})
	}
	return out
}

func diffReadLines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := strings.TrimRight(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// finalLabels returns the fleet's labels with the replica that the
// Sentinels name as master at the end labelled "p".
func (f *diffFleet) finalLabels() map[string]string {
	l := map[string]string{}
	for k, v := range f.labels {
		l[k] = v
	}
	if p := f.promoted(); p != nil && l[diffAddr(p.Port)] == "r" {
		l[diffAddr(p.Port)] = "p"
	}
	return l
}
