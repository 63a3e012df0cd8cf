package integration

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// relClients caches one go-redis client per address for the test's own
// queries; they are closed at the end of the test.
type relClients struct {
	mu sync.Mutex
	m  map[string]*redis.Client
}

var relClientCache = struct {
	mu sync.Mutex
	m  map[*testing.T]*relClients
}{m: map[*testing.T]*relClients{}}

// relClient returns the test's client to addr (host:port), with short
// timeouts so that a query to a cut-off or stopped process fails fast.
func relClient(t *testing.T, addr string) *redis.Client {
	relClientCache.mu.Lock()
	cs := relClientCache.m[t]
	if cs == nil {
		cs = &relClients{m: map[string]*redis.Client{}}
		relClientCache.m[t] = cs
		t.Cleanup(func() {
			relClientCache.mu.Lock()
			delete(relClientCache.m, t)
			relClientCache.mu.Unlock()
			cs.mu.Lock()
			defer cs.mu.Unlock()
			for _, c := range cs.m {
				c.Close()
			}
		})
	}
	relClientCache.mu.Unlock()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.m[addr]
	if c == nil {
		c = redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
			DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second, WriteTimeout: time.Second, PoolSize: 4})
		cs.m[addr] = c
	}
	return c
}

// relDo runs one command on addr with a deadline.
func relDo(t *testing.T, addr string, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return relClient(t, addr).Do(ctx, args...).Result()
}

// relRole returns ROLE's first element at addr and, for a replica, its
// master's address; "" when it does not answer.
func relRole(t *testing.T, addr string) (role, master string) {
	v, err := relDo(t, addr, "ROLE")
	if err != nil {
		return "", ""
	}
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return "", ""
	}
	role = fmt.Sprint(l[0])
	if role == "slave" && len(l) > 2 {
		master = fmt.Sprintf("%v:%v", l[1], l[2])
	}
	return role, master
}

// relNode is a redis-server on a lab host, with a config file of its own
// so that the CONFIG REWRITE a Sentinel sends with SLAVEOF persists its
// role across a restart, and an AOF fsynced at every write so that a
// killed and restarted node comes back with every write it acknowledged.
type relNode struct {
	host *relHost
	t    *testing.T
	Port int
	dir  string
	conf string
	p    *proc
}

func (n *relNode) Addr() string { return fmt.Sprintf("%s:%d", n.host.IP, n.Port) }
func (n *relNode) String() string {
	return fmt.Sprintf("redis %s:%d", n.host.Name, n.Port)
}

// startRedis starts a redis-server on the host listening on port;
// replicaOf ("" for none) and extra are redis.conf lines.
func (h *relHost) startRedis(t *testing.T, port int, replicaOf *relNode, extra ...string) *relNode {
	t.Helper()
	bin := needBinary(t, "redis-server")
	n := &relNode{host: h, t: t, Port: port, dir: t.TempDir()}
	n.conf = filepath.Join(n.dir, "redis.conf")
	lines := []string{
		fmt.Sprintf("port %d", port), "bind " + h.IP, "protected-mode no", "dir " + n.dir,
		"bind-source-addr " + h.ReplIP, "replica-announce-ip " + h.IP,
		"repl-diskless-sync-delay 0", "save \"\"", "appendonly yes", "appendfsync always", "logfile \"\"", "daemonize no",
	}
	if replicaOf != nil {
		lines = append(lines, fmt.Sprintf("replicaof %s %d", replicaOf.host.IP, replicaOf.Port))
	}
	lines = append(lines, extra...)
	if err := os.WriteFile(n.conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.p = h.run(t, n.dir, bin, n.conf)
	n.p.Port = port
	waitFor(t, 10*time.Second, n.String()+" to answer PING", func() bool { return aliveAt(h.IP, port) })
	return n
}

// kill ends the node with SIGKILL.
func (n *relNode) kill() { killProc(n.p) }

// restart starts a killed node again from its config file (it does
// nothing while the node runs).
func (n *relNode) restart() {
	n.t.Helper()
	if done, _ := n.p.exited(); !done {
		return
	}
	n.p = n.host.run(n.t, n.dir, needBinary(n.t, "redis-server"), n.conf)
	n.p.Port = n.Port
}

// relSentinel is a Sentinel (go-sentinel or Debian's redis-sentinel) on a
// lab host, logging to a file that survives its restarts, with its
// published events recorded across restarts.
type relSentinel struct {
	*loggedSentinel
	host *relHost
	t    *testing.T
	env  []string // NAME=value pairs the process starts with (nil: none)
	bin  string   // the go-sentinel binary ("": the run's)
}

func (s *relSentinel) Addr() string { return fmt.Sprintf("%s:%d", s.host.IP, s.host.SentinelPort) }
func (s *relSentinel) String() string {
	return fmt.Sprintf("%s@%s", s.kind, s.host.Name)
}

// startSentinel starts a Sentinel of kind on the host with conf (the
// port, bind and logfile lines are added) and waits until it answers.
func (h *relHost) startSentinel(t *testing.T, kind daemonKind, conf string) *relSentinel {
	t.Helper()
	return h.startSentinelWith(t, kind, conf, "", nil)
}

// startSentinelWith is startSentinel with a go-sentinel binary of its
// own (bin, "" for the run's) and environment (env).
func (h *relHost) startSentinelWith(t *testing.T, kind daemonKind, conf, bin string, env []string) *relSentinel {
	t.Helper()
	dir := t.TempDir()
	s := &relSentinel{host: h, t: t, bin: bin, env: env, loggedSentinel: &loggedSentinel{kind: kind, Port: h.SentinelPort,
		conf: filepath.Join(dir, "sentinel.conf"), log: filepath.Join(dir, "sentinel.log")}}
	full := fmt.Sprintf("port %d\nbind %s\nlogfile %s\n%s", h.SentinelPort, h.IP, s.log, conf)
	if err := os.WriteFile(s.conf, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	s.start()
	s.events = relWatchEvents(t, s.Addr())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log of %s:\n%s", s, s.logText())
		}
	})
	return s
}

func (s *relSentinel) start() {
	s.t.Helper()
	bin := sentinelBin
	if s.bin != "" {
		bin = s.bin
	}
	if s.kind == redisSentinel {
		bin = needBinary(s.t, "redis-sentinel")
	}
	name, args := bin, []string{s.conf}
	if len(s.env) > 0 {
		// env execs the binary: the process is still the Sentinel.
		name, args = "env", append(append(append([]string(nil), s.env...), bin), s.conf)
	}
	s.p = s.host.run(s.t, filepath.Dir(s.conf), name, args...)
	s.p.Port = s.host.SentinelPort
	waitFor(s.t, 15*time.Second, s.String()+" to answer", func() bool {
		if done, _ := s.p.exited(); done {
			s.t.Fatalf("%s exited at start:\n%s\n%s", s, s.p.out.String(), s.logText())
		}
		return aliveAt(s.host.IP, s.host.SentinelPort)
	})
}

// kill ends the Sentinel with SIGKILL; restart starts it again on the
// same config and log files (it does nothing while it runs).
func (s *relSentinel) kill() { killProc(s.p) }
func (s *relSentinel) restart() {
	if done, _ := s.p.exited(); done {
		s.start()
	}
}

// do runs a command on the Sentinel.
func (s *relSentinel) do(args ...any) (any, error) { return relDo(s.t, s.Addr(), args...) }

// masterAddr is the Sentinel's GET-MASTER-ADDR-BY-NAME for name, "" when
// it does not answer.
func (s *relSentinel) masterAddr(name string) string {
	v, err := s.do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)
	l, ok := v.([]any)
	if err != nil || !ok || len(l) != 2 {
		return ""
	}
	return fmt.Sprintf("%v:%v", l[0], l[1])
}

// masterFields is the Sentinel's SENTINEL MASTER reply for name.
func (s *relSentinel) masterFields(name string) map[string]string {
	v, err := s.do("SENTINEL", "MASTER", name)
	l, ok := v.([]any)
	if err != nil || !ok {
		return nil
	}
	m := map[string]string{}
	for i := 0; i+1 < len(l); i += 2 {
		m[fmt.Sprint(l[i])] = fmt.Sprint(l[i+1])
	}
	return m
}

// myID is the Sentinel's SENTINEL MYID.
func (s *relSentinel) myID() string {
	v, err := s.do("SENTINEL", "MYID")
	if err != nil {
		s.t.Fatalf("%s: SENTINEL MYID: %v", s, err)
	}
	return fmt.Sprint(v)
}

// listLen is how many entries SENTINEL REPLICAS/SENTINELS has, -1 on error.
func (s *relSentinel) listLen(sub, name string) int {
	v, err := s.do("SENTINEL", sub, name)
	l, ok := v.([]any)
	if err != nil || !ok {
		return -1
	}
	return len(l)
}

// relWatchEvents subscribes to every event of the Sentinel at addr and
// records them; unlike watchEvents it resubscribes after the Sentinel
// restarts (events published while it was down are not there, of
// course: the log file is the full record).
func relWatchEvents(t *testing.T, addr string) *eventLog {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: 500 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	ps := c.PSubscribe(ctx, "*")
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatalf("subscribe to %s: %v", addr, err)
	}
	el := &eventLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			msg, err := ps.ReceiveMessage(ctx)
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
				continue
			}
			el.add(msg.Channel + " " + msg.Payload)
		}
	}()
	t.Cleanup(func() { cancel(); ps.Close(); <-done; c.Close() })
	return el
}

// relGroup is one replicated data set of a fleet: a master and its
// replicas on every host, on one port (free ports on a loopback lab),
// monitored under one name.
type relGroup struct {
	Name  string
	Port  int
	Extra []string // redis.conf lines for every node of the group
	// NodeExtra holds more redis.conf lines for the node on host i.
	NodeExtra map[int][]string
	nodes     []*relNode
}

// node returns the group's node at addr, nil for none.
func (g *relGroup) node(addr string) *relNode {
	for _, n := range g.nodes {
		if n.Addr() == addr {
			return n
		}
	}
	return nil
}

// relFleetOpts describes a fleet.
type relFleetOpts struct {
	Groups          []*relGroup  // nil: one group "mymaster" on 6379
	Kinds           []daemonKind // the Sentinel of each host; nil: go-sentinel on every host; "" for none
	Quorum          int          // 0: 2
	DownAfter       time.Duration
	FailoverTimeout time.Duration
	SentinelExtra   string // more sentinel.conf lines
	// SentinelExtraFor gives more sentinel.conf lines for the Sentinel on
	// host h (nil: none).
	SentinelExtraFor func(h *relHost) string
	// SentinelBin and SentinelEnv are the go-sentinels' binary ("": the
	// run's) and environment (nil: none).
	SentinelBin string
	SentinelEnv []string
}

// relFleet is a lab whose hosts each run a node of every group (the first
// host's nodes are the masters) and, where Kinds says, a Sentinel that
// monitors every group.
type relFleet struct {
	t         *testing.T
	lab       *relLab
	groups    []*relGroup
	sentinels []*relSentinel
}

// newRelFleet builds a lab of namespaced hosts (root only) and the fleet
// on it, and waits until every Sentinel knows every replica and every
// other Sentinel.
func newRelFleet(t *testing.T, hosts int, o relFleetOpts) *relFleet {
	t.Helper()
	return newRelFleetOn(t, newRelLab(t, hosts), o)
}

// newRelFleetOn builds the fleet on lab.
func newRelFleetOn(t *testing.T, lab *relLab, o relFleetOpts) *relFleet {
	t.Helper()
	f := &relFleet{t: t, lab: lab, groups: o.Groups}
	if f.groups == nil {
		f.groups = []*relGroup{{Name: "mymaster", Port: 6379}}
	}
	if o.Quorum == 0 {
		o.Quorum = 2
	}
	if o.DownAfter == 0 {
		o.DownAfter = time.Second
	}
	if o.FailoverTimeout == 0 {
		o.FailoverTimeout = 6 * time.Second
	}
	if o.Kinds == nil {
		for range lab.hosts {
			o.Kinds = append(o.Kinds, goSentinel)
		}
	}
	for _, g := range f.groups {
		for i, h := range lab.hosts {
			var master *relNode
			if i > 0 {
				master = g.nodes[0]
			}
			extra := append(append([]string(nil), g.Extra...), g.NodeExtra[i]...)
			g.nodes = append(g.nodes, h.startRedis(t, h.port(t, g.Port), master, extra...))
		}
	}
	var conf strings.Builder
	for _, g := range f.groups {
		fmt.Fprintf(&conf, "sentinel monitor %s %s %d %d\n", g.Name, g.nodes[0].host.IP, g.nodes[0].Port, o.Quorum)
		fmt.Fprintf(&conf, "sentinel down-after-milliseconds %s %d\n", g.Name, o.DownAfter.Milliseconds())
		fmt.Fprintf(&conf, "sentinel failover-timeout %s %d\n", g.Name, o.FailoverTimeout.Milliseconds())
	}
	conf.WriteString(o.SentinelExtra)
	for i, h := range lab.hosts {
		if i < len(o.Kinds) && o.Kinds[i] != "" {
			c := conf.String()
			if o.SentinelExtraFor != nil {
				c += o.SentinelExtraFor(h)
			}
			f.sentinels = append(f.sentinels, h.startSentinelWith(t, o.Kinds[i], c, o.SentinelBin, o.SentinelEnv))
		}
	}
	for _, g := range f.groups {
		for _, s := range f.sentinels {
			s, g := s, g
			waitFor(t, 30*time.Second, fmt.Sprintf("%s to discover %s's replicas and Sentinels", s, g.Name), func() bool {
				return s.listLen("REPLICAS", g.Name) == len(g.nodes)-1 && s.listLen("SENTINELS", g.Name) == len(f.sentinels)-1
			})
		}
	}
	return f
}

// group returns the fleet's group called name.
func (f *relFleet) group(name string) *relGroup {
	for _, g := range f.groups {
		if g.Name == name {
			return g
		}
	}
	f.t.Fatalf("no group %s", name)
	return nil
}

// relTopology is what the data nodes of a group report: the masters and,
// for each replica, the master it follows.
type relTopology struct {
	masters  []string
	replicas map[string]string
	down     []string
}

func (f *relFleet) topology(g *relGroup) relTopology {
	top := relTopology{replicas: map[string]string{}}
	for _, n := range g.nodes {
		if done, _ := n.p.exited(); done {
			continue // killed and not restarted: not part of the fleet now
		}
		switch r, m := relRole(f.t, n.Addr()); r {
		case "master":
			top.masters = append(top.masters, n.Addr())
		case "slave":
			top.replicas[n.Addr()] = m
		default:
			top.down = append(top.down, n.Addr())
		}
	}
	return top
}

func (top relTopology) String() string {
	var rs []string
	for r, m := range top.replicas {
		rs = append(rs, r+"→"+m)
	}
	sort.Strings(rs)
	return fmt.Sprintf("masters %v, replicas %v, not answering %v", top.masters, rs, top.down)
}

// converged reports whether every Sentinel names the same master for g,
// that server is the only one reporting role master, and every other node
// follows it (nodes killed and not restarted aside); it returns the
// master's address.
func (f *relFleet) converged(g *relGroup) (string, bool) {
	want := ""
	for _, s := range f.sentinels {
		if done, _ := s.p.exited(); done {
			continue
		}
		a := s.masterAddr(g.Name)
		if a == "" || (want != "" && a != want) {
			return "", false
		}
		want = a
	}
	top := f.topology(g)
	if len(top.masters) != 1 || top.masters[0] != want || len(top.down) != 0 {
		return "", false
	}
	for _, m := range top.replicas {
		if m != want {
			return "", false
		}
	}
	return want, true
}

// waitConverged waits until converged holds for g, and returns the
// master; on timeout it fails with what every Sentinel and node said.
func (f *relFleet) waitConverged(g *relGroup, timeout time.Duration) string {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if m, ok := f.converged(g); ok {
			return m
		}
		if time.Now().After(deadline) {
			var says []string
			for _, s := range f.sentinels {
				says = append(says, fmt.Sprintf("%s says %q", s, s.masterAddr(g.Name)))
			}
			f.t.Fatalf("%s did not converge in %v: %s; %s", g.Name, timeout, strings.Join(says, ", "), f.topology(g))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// switches returns the +switch-master lines a Sentinel logged for name,
// from its log file (which survives restarts).
func (s *relSentinel) switches(name string) []string {
	var out []string
	for _, l := range s.logLines(s.t) {
		if strings.HasPrefix(l.text, "+switch-master "+name+" ") {
			out = append(out, l.text)
		}
	}
	return out
}

// relWriter is a client that writes unique keys as fast as its target
// answers (MSET <prefix>:<seq> <seq> <prefix>:last <seq>, so that a
// node's <prefix>:last is the highest write it holds), and remembers
// which writes were acknowledged, by whom and when; the writes that fail
// are counted by the error's first word (NOREPLICAS, READONLY, ...).
type relWriter struct {
	prefix string
	target func() string // where to write now; "" to wait
	// dial, when set, opens the writer's connections (relHost.dial: from
	// inside a host, on its side of a partition).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	acked   []relAck
	refusal []relRefusal // every failed write, in order
	seq     int
	sent    []time.Time // sent[seq-1]: when write seq was sent
}

// relRefusal is a failed write: the error's first word, who was asked,
// when the reply (or the error) came and when the write was sent.
type relRefusal struct {
	kind string
	addr string
	at   time.Time
	sent time.Time
}

// relAck is an acknowledged write.
type relAck struct {
	seq  int
	addr string
	at   time.Time
	// sent is when the write went out (zero where unknown).
	sent time.Time
}

// startRelWriter writes until the test ends or stop is called.
func startRelWriter(t *testing.T, prefix string, target func() string) (w *relWriter, stop func()) {
	return startRelWriterOn(t, prefix, target, nil)
}

// startRelWriterOn is startRelWriter with the writer's connections opened
// by dial (nil: from this process).
func startRelWriterOn(t *testing.T, prefix string, target func() string,
	dial func(ctx context.Context, network, addr string) (net.Conn, error)) (w *relWriter, stop func()) {
	w = &relWriter{prefix: prefix, target: target, dial: dial}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return w, stop
}

func (w *relWriter) run(ctx context.Context) {
	clients := map[string]*redis.Client{}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for ctx.Err() == nil {
		addr := w.target()
		if addr == "" {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		c := clients[addr]
		if c == nil {
			c = redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1, PoolSize: 1,
				DialTimeout: 300 * time.Millisecond, ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond,
				DialerRetries: 25, DialerRetryTimeout: 20 * time.Millisecond, Dialer: w.dial})
			clients[addr] = c
		}
		w.mu.Lock()
		w.seq++
		seq := w.seq
		sent := time.Now()
		w.sent = append(w.sent, sent)
		w.mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		err := c.MSet(cctx, fmt.Sprintf("%s:%d", w.prefix, seq), seq, w.prefix+":last", seq).Err()
		cancel()
		w.mu.Lock()
		if err == nil {
			w.acked = append(w.acked, relAck{seq: seq, addr: addr, at: time.Now(), sent: sent})
		} else if ctx.Err() == nil {
			kind := "timeout/connection"
			var re redis.Error
			if errors.As(err, &re) {
				kind = strings.Fields(re.Error())[0]
			}
			w.refusal = append(w.refusal, relRefusal{kind: kind, addr: addr, at: time.Now(), sent: sent})
		}
		w.mu.Unlock()
		if err != nil {
			if !errors.As(err, new(redis.Error)) {
				// A fresh client for the next write: once a dial failed
				// (its retries every 20 ms for the write's 500 ms),
				// go-redis's pool fails every dial at once and probes the
				// address only once a second, so a node back up would be
				// written to again up to a second late.
				c.Close()
				delete(clients, addr)
			}
			time.Sleep(20 * time.Millisecond)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// ackedBy counts the acknowledged writes that addr acknowledged in
// [from, to) (zero times: unbounded).
func (w *relWriter) ackedBy(addr string, from, to time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, a := range w.acked {
		if a.addr == addr && (from.IsZero() || !a.at.Before(from)) && (to.IsZero() || a.at.Before(to)) {
			n++
		}
	}
	return n
}

// firstAck returns when addr first acknowledged a write at or after from
// (ok false: not yet).
func (w *relWriter) firstAck(addr string, from time.Time) (at time.Time, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.acked {
		if a.addr == addr && !a.at.Before(from) {
			return a.at, true
		}
	}
	return time.Time{}, false
}

// firstSentAfter returns the first write sent at or after at (0: none).
func (w *relWriter) firstSentAfter(at time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := sort.Search(len(w.sent), func(i int) bool { return !w.sent[i].Before(at) })
	if i == len(w.sent) {
		return 0
	}
	return i + 1
}

// sentAt returns when write seq was sent (zero for none).
func (w *relWriter) sentAt(seq int) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if seq < 1 || seq > len(w.sent) {
		return time.Time{}
	}
	return w.sent[seq-1]
}

// acks returns how many writes were acknowledged so far.
func (w *relWriter) acks() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

// refusals returns the failed writes by error kind.
func (w *relWriter) refusals() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for _, r := range w.refusal {
		out[r.kind]++
	}
	return out
}

// lost returns the acknowledged writes missing from the master at addr,
// and how many were acknowledged in all.
func (w *relWriter) lost(t *testing.T, addr string) (lost []relAck, acked int) {
	t.Helper()
	w.mu.Lock()
	all := append([]relAck(nil), w.acked...)
	w.mu.Unlock()
	for i := 0; i < len(all); i += 500 {
		batch := all[i:min(i+500, len(all))]
		args := []any{"MGET"}
		for _, a := range batch {
			args = append(args, fmt.Sprintf("%s:%d", w.prefix, a.seq))
		}
		v, err := relDo(t, addr, args...)
		if err != nil {
			t.Fatalf("reading the writes back from %s: %v", addr, err)
		}
		for j, x := range v.([]any) {
			if x == nil {
				lost = append(lost, batch[j])
			} else if s := fmt.Sprint(x); s != strconv.Itoa(batch[j].seq) {
				t.Errorf("%s:%d holds %q", w.prefix, batch[j].seq, s)
			}
		}
	}
	return lost, len(all)
}

// relLostSummary describes lost writes by who acknowledged them, and
// when (the first and last acknowledgement).
func relLostSummary(lost []relAck) string {
	type span struct {
		n           int
		first, last time.Time
	}
	by := map[string]*span{}
	for _, a := range lost {
		sp := by[a.addr]
		if sp == nil {
			sp = &span{first: a.at}
			by[a.addr] = sp
		}
		sp.n++
		sp.last = a.at
	}
	var parts []string
	for a, sp := range by {
		parts = append(parts, fmt.Sprintf("%d acknowledged by %s from %s to %s", sp.n, a, sp.first.Format("15:04:05.000"), sp.last.Format("15:04:05.000")))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// relStop stops a process with SIGSTOP; relCont continues it.
func relStop(p *proc) { p.cmd.Process.Signal(syscall.SIGSTOP) }
func relCont(p *proc) { p.cmd.Process.Signal(syscall.SIGCONT) }
