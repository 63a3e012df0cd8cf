package integration

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// relFaultKind is what a fault of the soak did to the fleet; the loss
// classifier reads it to tell which lost writes a fault explains.
type relFaultKind int

// The fault kinds. relFaultKill and relFaultStop end or freeze a data
// node (nodes), relFaultIsolate cuts a data node's port off from every
// other host (nodes), relFaultHostCut cuts hosts off from every other
// host (hosts), relFaultCutApart cuts two hosts from each other (hosts)
// and relFaultSentinel touches only Sentinels.
const (
	relFaultKill relFaultKind = iota
	relFaultStop
	relFaultIsolate
	relFaultHostCut
	relFaultCutApart
	relFaultSentinel
)

// relFaultRec is one fault as the classifier sees it: its kind, label
// (the schedule's name for its kind), the data nodes (addresses) or
// hosts (names) it touched, and when it was in force.
type relFaultRec struct {
	kind     relFaultKind
	label    string
	name     string
	nodes    []string
	hosts    []string
	from, to time.Time // to is zero while the fault is in force
}

// covers reports whether the fault was in force at t.
func (f *relFaultRec) covers(t time.Time) bool {
	return !t.Before(f.from) && (f.to.IsZero() || !t.After(f.to))
}

// coversNear reports whether the fault was in force at t or came into
// force up to relInFlight after it: a reply on its way while the rules
// were installed counts as cut off.
func (f *relFaultRec) coversNear(t time.Time) bool {
	return !t.Add(relInFlight).Before(f.from) && (f.to.IsZero() || !t.After(f.to))
}

// touchesNode reports whether the fault killed, froze or isolated addr.
func (f *relFaultRec) touchesNode(addr string) bool {
	for _, n := range f.nodes {
		if n == addr {
			return true
		}
	}
	return false
}

// separates reports whether the fault cut the hosts a and b (names)
// apart: one of them cut off, the two cut from each other, or the node
// at addr (on a) isolated.
func (f *relFaultRec) separates(a, b, addr string) bool {
	switch f.kind {
	case relFaultIsolate:
		return f.touchesNode(addr)
	case relFaultHostCut:
		for _, h := range f.hosts {
			if h == a || h == b {
				return true
			}
		}
	case relFaultCutApart:
		return len(f.hosts) == 2 && ((f.hosts[0] == a && f.hosts[1] == b) || (f.hosts[0] == b && f.hosts[1] == a))
	}
	return false
}

// relSample is one look at a data node: its role, its master (replicas)
// and the highest write of the writer it holds (relWriter's last key).
type relSample struct {
	at     time.Time
	role   string
	master string
	last   int
}

// relLedger records, for one group and its writer, every data node's
// role and highest write every 100 ms, and the faults injected, so that
// each lost write can be put in one class at the end (classify). The
// test process reaches every node whatever the partition (it is not in
// any cut range), so a node that does not answer is killed or stopped.
type relLedger struct {
	t      *testing.T
	g      *relGroup
	w      *relWriter
	hostOf map[string]string // node address → host name

	mu      sync.Mutex
	samples map[string][]relSample
	faults  []*relFaultRec
	stop    chan struct{}
	done    sync.WaitGroup
}

// newRelLedger starts sampling g's nodes; it stops in t.Cleanup at the
// latest.
func newRelLedger(t *testing.T, g *relGroup, w *relWriter) *relLedger {
	l := &relLedger{t: t, g: g, w: w, hostOf: map[string]string{}, samples: map[string][]relSample{}, stop: make(chan struct{})}
	for _, n := range g.nodes {
		n := n
		l.hostOf[n.Addr()] = n.host.Name
		l.done.Add(1)
		go func() {
			defer l.done.Done()
			for {
				select {
				case <-l.stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if s, ok := l.sample(n.Addr()); ok {
					l.mu.Lock()
					l.samples[n.Addr()] = append(l.samples[n.Addr()], s)
					l.mu.Unlock()
				}
			}
		}()
	}
	t.Cleanup(l.finish)
	return l
}

// sample reads ROLE and the writer's last key at addr.
func (l *relLedger) sample(addr string) (relSample, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	p := relClient(l.t, addr).Pipeline()
	role := p.Do(ctx, "ROLE")
	last := p.Get(ctx, l.w.prefix+":last")
	p.Exec(ctx)
	at := time.Now()
	r, err := role.Slice()
	if err != nil || len(r) == 0 {
		return relSample{}, false
	}
	s := relSample{at: at, role: fmt.Sprint(r[0])}
	if s.role == "slave" && len(r) > 2 {
		s.master = fmt.Sprintf("%v:%v", r[1], r[2])
	}
	s.last, _ = strconv.Atoi(last.Val())
	return s, true
}

// finish stops the sampling.
func (l *relLedger) finish() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.done.Wait()
}

// begin records a fault coming into force now; end it with the
// returned function.
func (l *relLedger) begin(f relFaultRec) func() {
	f.from = time.Now()
	rec := &f
	l.mu.Lock()
	l.faults = append(l.faults, rec)
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		rec.to = time.Now()
		l.mu.Unlock()
	}
}

// relLossClass is the class of a lost acknowledged write.
type relLossClass int

// The classes of issue 18: relLossKilled (a), acknowledged by a master
// that was killed or frozen before any replica had it (asynchronous
// replication), or sent to a frozen master and acknowledged when it
// resumed; relLossStale (b), a replica without it was promoted
// while another replica that had it was reachable (Sentinel's fault);
// relLossCutOff (c), acknowledged by a master cut off from the replica
// that was promoted; relLossOther (d), anything else; relLossReturned
// (e), acknowledged by the old master back from a freeze, a kill or a
// cut (within relReturnBound of the fault's end) that led to a
// promotion, before the Sentinels demoted it, to a client that still wrote to it
// (Redis Sentinel converts such a master only after 4 hello periods
// without it being down, +convert-to-slave, and so does go-sentinel).
const (
	relLossKilled relLossClass = iota
	relLossStale
	relLossCutOff
	relLossOther
	relLossReturned
	relLossClasses
)

// String names the class as the table of docs/coordinated-failover.md does.
func (c relLossClass) String() string {
	return [...]string{"(a) master killed or frozen before a replica had it", "(b) a replica with less data promoted",
		"(c) old master cut off from the promoted replica", "(d) other", "(e) old master back, not yet demoted"}[c]
}

// relLoss is one lost write, classified: the fault it is put on (the
// fault's label, "no fault" when none explains it) and, for (b) and (d),
// what the samples show.
type relLoss struct {
	ack   relAck
	class relLossClass
	fault string
	rec   *relFaultRec // the fault of classes (a) and (c)
	trace string
}

// relPromotion is a promotion as the samples show it: the node, the
// last sample that showed it a replica (before the promotion) and the
// first that showed it master (after it).
type relPromotion struct {
	addr         string
	replicaUntil time.Time
	masterAt     time.Time
}

// promotion returns the promotion whose history replaced m's after t:
// the first promotion of another node sampled after t; but when the
// master m is first sampled following after t was promoted before t (m
// acknowledged the write as a stale master, on the wrong side of a
// partition), that one. addr is "" when neither was sampled.
func (l *relLedger) promotion(m string, t time.Time) relPromotion {
	var followed relPromotion
	for _, s := range l.samples[m] {
		if s.at.After(t) && s.role == "slave" && s.master != "" && s.master != m {
			followed = l.becameMaster(s.master, s.at)
			break
		}
	}
	if followed.addr != "" && !followed.masterAt.After(t) {
		return followed
	}
	var first relPromotion
	for addr := range l.samples {
		if addr == m {
			continue
		}
		if p := l.firstMasterAfter(addr, t); p.addr != "" && (first.addr == "" || p.masterAt.Before(first.masterAt)) {
			first = p
		}
	}
	if first.addr != "" {
		return first
	}
	return followed
}

// becameMaster returns addr's last promotion sampled before before
// (addr was master then); one at its first sample when it always was.
func (l *relLedger) becameMaster(addr string, before time.Time) relPromotion {
	p := relPromotion{addr: addr}
	wasReplica, lastReplica := true, time.Time{}
	for _, s := range l.samples[addr] {
		if s.at.After(before) {
			break
		}
		if s.role == "master" && wasReplica {
			p.masterAt, p.replicaUntil = s.at, lastReplica
		}
		if wasReplica = s.role != "master"; wasReplica {
			lastReplica = s.at
		}
	}
	return p
}

// firstMasterAfter returns addr's first promotion sampled after t; addr
// "" for none.
func (l *relLedger) firstMasterAfter(addr string, t time.Time) relPromotion {
	wasReplica, lastReplica := false, time.Time{}
	for _, s := range l.samples[addr] {
		if s.at.After(t) && s.role == "master" && wasReplica {
			return relPromotion{addr: addr, replicaUntil: lastReplica, masterAt: s.at}
		}
		if wasReplica = s.role != "master"; wasReplica {
			lastReplica = s.at
		}
	}
	return relPromotion{}
}

// maxLast returns the highest write addr held in [from, to].
func (l *relLedger) maxLast(addr string, from, to time.Time) int {
	m := 0
	for _, s := range l.samples[addr] {
		if !s.at.Before(from) && !s.at.After(to) && s.last > m {
			m = s.last
		}
	}
	return m
}

// faultedAt reports the fault that killed, froze or isolated addr, or
// cut its host off, at t; nil for none.
func (l *relLedger) faultedAt(addr string, t time.Time) *relFaultRec {
	for _, f := range l.faults {
		if !f.covers(t) {
			continue
		}
		if f.touchesNode(addr) || (f.kind == relFaultHostCut && f.separates(l.hostOf[addr], "", addr)) {
			return f
		}
	}
	return nil
}

// classify puts every lost write in one class. For a write s that
// master m acknowledged at t: p is the replica promoted next after t
// (the first other node sampled as master). (b) when another replica r
// held s at a sample between t and p's promotion and was not killed,
// frozen, isolated or cut off then; (c) when m was cut off from p while
// it acknowledged s; (a) when m was killed or frozen within a second
// after t (or before t: a frozen master resumes with its in-flight
// replies), or s was sent while m was frozen and acknowledged once it
// resumed; (d) otherwise.
func (l *relLedger) classify(lost []relAck) []relLoss {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []relLoss
	for _, a := range lost {
		out = append(out, l.classifyOne(a))
	}
	return out
}

func (l *relLedger) classifyOne(a relAck) relLoss {
	m := a.addr
	p := l.promotion(m, a.at)
	if p.addr != "" {
		// Another replica proves it held the write only by a sample taken
		// while p was still a replica: the promotion came after it.
		for r := range l.samples {
			if r == m || r == p.addr || !p.replicaUntil.After(a.at) {
				continue
			}
			if have := l.maxLast(r, a.at, p.replicaUntil); have >= a.seq && l.faultedAt(r, p.masterAt) == nil {
				return relLoss{ack: a, class: relLossStale, fault: l.label(a.at),
					trace: fmt.Sprintf("%s promoted between %s and %s holding %d while %s held %d", p.addr,
						p.replicaUntil.Format("15:04:05.000"), p.masterAt.Format("15:04:05.000"),
						l.maxLast(p.addr, a.at, p.masterAt), r, have)}
			}
		}
		for _, f := range l.faults {
			if f.coversNear(a.at) && f.separates(l.hostOf[m], l.hostOf[p.addr], m) {
				return relLoss{ack: a, class: relLossCutOff, fault: f.label, rec: f}
			}
		}
	}
	for _, f := range l.faults {
		if (f.kind == relFaultKill || f.kind == relFaultStop) && f.touchesNode(m) &&
			!f.from.Before(a.at.Add(-50*time.Millisecond)) && f.from.Before(a.at.Add(time.Second)) {
			return relLoss{ack: a, class: relLossKilled, fault: f.label, rec: f}
		}
		if f.kind == relFaultStop && f.touchesNode(m) && !a.sent.IsZero() && !a.sent.Before(f.from) &&
			!f.to.IsZero() && a.sent.Before(f.to) && !a.at.Before(f.to) {
			// Sent to the frozen master, acknowledged when it resumed:
			// no Sentinel could stop it from taking a write already in
			// its socket.
			return relLoss{ack: a, class: relLossKilled, fault: f.label, rec: f,
				trace: "sent while the master was frozen, acknowledged on its resume"}
		}
	}
	if p.addr != "" {
		// The promotion the fault led to may complete just before or
		// just after the old master's return: samples are 100 ms apart.
		for _, f := range l.faults {
			if f.kind != relFaultSentinel && f.touchesNode(m) && f.from.Before(p.masterAt) && !f.to.IsZero() && !f.to.After(a.at) &&
				a.at.Sub(f.to) < relReturnBound {
				return relLoss{ack: a, class: relLossReturned, fault: f.label, rec: f,
					trace: "the old master, back after " + f.label + ", acknowledged it after " + p.addr + "'s promotion, before its own demotion: " + l.trace(a, p.addr, p.masterAt)}
			}
		}
	}
	cause := "untraced"
	switch {
	case p.addr != "" && p.masterAt.Before(a.at):
		cause = "a stale master (resumed or restarted) acknowledged it after " + p.addr + "'s promotion, before its own demotion"
	case l.resumed(m, a.at):
		cause = "the frozen master, resumed, acknowledged it while the failover its freeze started was completing"
	}
	return relLoss{ack: a, class: relLossOther, fault: l.label(a.at), trace: cause + ": " + l.trace(a, p.addr, p.masterAt)}
}

// relReturnBound bounds how long after a fault ends a loss of class (e)
// is put on it: Redis Sentinel's +convert-to-slave waits 4 hello periods
// (8 s) without the instance being down, plus an INFO period (10 s for
// a replica) to see its role.
const relReturnBound = 20 * time.Second

// resumed reports whether a SIGSTOP of m ended within the 2 s before t.
func (l *relLedger) resumed(m string, t time.Time) bool {
	for _, f := range l.faults {
		if f.kind == relFaultStop && f.touchesNode(m) && !f.to.IsZero() && !f.to.After(t) && t.Sub(f.to) < 2*time.Second {
			return true
		}
	}
	return false
}

// relInFlight is how long before a fault came into force a write may
// have been acknowledged and still count as hit by it: the reply was on
// its way while the rules were installed.
const relInFlight = 50 * time.Millisecond

// label is the label of the fault injected last before t (or up to a
// second after it), "no fault" for none.
func (l *relLedger) label(t time.Time) string {
	name := "no fault"
	for _, f := range l.faults {
		if f.from.After(t.Add(time.Second)) {
			break
		}
		name = f.label
	}
	return name
}

// trace describes an unexplained loss: the faults around it, the next
// promotion and what each node held and was around then.
func (l *relLedger) trace(a relAck, p string, pAt time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "write %d acknowledged by %s at %s;", a.seq, a.addr, a.at.Format("15:04:05.000"))
	for _, f := range l.faults {
		if f.from.After(a.at.Add(-15*time.Second)) && f.from.Before(a.at.Add(15*time.Second)) {
			to := "still"
			if !f.to.IsZero() {
				to = f.to.Format("15:04:05.000")
			}
			fmt.Fprintf(&b, " fault %q %s-%s;", f.name, f.from.Format("15:04:05.000"), to)
		}
	}
	if p == "" {
		b.WriteString(" no promotion sampled after it;")
	} else {
		fmt.Fprintf(&b, " %s promoted at %s;", p, pAt.Format("15:04:05.000"))
	}
	var addrs []string
	for addr := range l.samples {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	for _, addr := range addrs {
		var roles []string
		prev := ""
		for _, s := range l.samples[addr] {
			if s.at.Before(a.at.Add(-2*time.Second)) || s.at.After(a.at.Add(20*time.Second)) {
				continue
			}
			r := s.role
			if s.master != "" {
				r += " of " + s.master
			}
			if r != prev {
				roles = append(roles, fmt.Sprintf("%s %s (holds %d)", s.at.Format("15:04:05.000"), r, s.last))
				prev = r
			}
		}
		fmt.Fprintf(&b, " %s: %s;", addr, strings.Join(roles, ", "))
	}
	return b.String()
}

// relLossTable sums classified losses by class and by fault, one line
// per class with its faults, for the log and docs/coordinated-failover.md.
func relLossTable(losses []relLoss) string {
	var by [relLossClasses]map[string]int
	var total [relLossClasses]int
	for _, x := range losses {
		if by[x.class] == nil {
			by[x.class] = map[string]int{}
		}
		by[x.class][x.fault]++
		total[x.class]++
	}
	var b strings.Builder
	for c := relLossClass(0); c < relLossClasses; c++ {
		var faults []string
		for f, n := range by[c] {
			faults = append(faults, fmt.Sprintf("%s: %d", f, n))
		}
		sort.Strings(faults)
		fmt.Fprintf(&b, "\n  %-55s %6d", c, total[c])
		if len(faults) > 0 {
			fmt.Fprintf(&b, "  (%s)", strings.Join(faults, "; "))
		}
	}
	return b.String()
}

// relLossCount returns how many losses are of class c.
func relLossCount(losses []relLoss, c relLossClass) int {
	n := 0
	for _, x := range losses {
		if x.class == c {
			n++
		}
	}
	return n
}

// relLogTraces logs the trace of the first few losses of classes (b)
// and (d), one per distinct acknowledging master and second.
func relLogTraces(t *testing.T, group string, losses []relLoss) {
	seen := map[string]bool{}
	n := 0
	for _, x := range losses {
		if x.trace == "" {
			continue
		}
		key := x.class.String() + x.ack.addr + x.ack.at.Truncate(time.Second).String()
		if seen[key] || n >= 20 {
			continue
		}
		seen[key] = true
		n++
		t.Logf("LOSS %s %s after %q: %s", group, x.class, x.fault, x.trace)
	}
}

// relFollowH1 returns the target of a writer of g on h1's side: the
// master the first Sentinel that answers names (h1's, then the next),
// asked again at most once a second as a client library would.
func relFollowH1(f *relFleet, g *relGroup) func() string {
	var mu sync.Mutex
	cur, at := "", time.Time{}
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if cur != "" && time.Since(at) < time.Second {
			return cur
		}
		for _, s := range f.sentinels {
			if a := s.masterAddr(g.Name); a != "" {
				cur, at = a, time.Now()
				break
			}
		}
		return cur
	}
}

// relCut is what one cut of a master did to a group's writes: the writes
// lost to it (class c), when the first and last of them were
// acknowledged, when the isolated master first refused a write with
// NOREPLICAS (the guard biting) and when the writer first wrote to
// another master (it moved), each as an offset from the cut; a negative
// offset means never.
type relCut struct {
	rec                    *relFaultRec
	master                 string
	lost                   int
	first, last, guard, mv time.Duration
}

// String prints the cut for the log and docs/coordinated-failover.md.
func (c relCut) String() string {
	off := func(d time.Duration) string {
		if d < 0 {
			return "never"
		}
		return fmt.Sprintf("+%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%s at %s: %d lost (acknowledged %s to %s after the cut); NOREPLICAS from %s; the writer on another master from %s",
		c.rec.name, c.rec.from.Format("15:04:05.000"), c.lost, off(c.first), off(c.last), off(c.guard), off(c.mv))
}

// relCuts returns, for every fault that cut g's master off (relFaultIsolate
// or relFaultHostCut of the node that was master then), what it did to
// w's writes, given the classified losses.
func relCuts(l *relLedger, w *relWriter, losses []relLoss) []relCut {
	l.mu.Lock()
	faults := append([]*relFaultRec(nil), l.faults...)
	l.mu.Unlock()
	w.mu.Lock()
	acked := append([]relAck(nil), w.acked...)
	refusals := append([]relRefusal(nil), w.refusal...)
	w.mu.Unlock()
	var cuts []relCut
	for _, f := range faults {
		if f.kind != relFaultIsolate && f.kind != relFaultHostCut {
			continue
		}
		c := relCut{rec: f, first: -1, last: -1, guard: -1, mv: -1}
		for _, a := range acked { // the master the writer was writing to at the cut
			if a.at.After(f.from) {
				break
			}
			c.master = a.addr
		}
		if c.master == "" || !(f.touchesNode(c.master) || (f.kind == relFaultHostCut && f.separates(l.hostOf[c.master], "", c.master))) {
			continue
		}
		for _, x := range losses {
			if x.rec == f && x.class == relLossCutOff {
				d := x.ack.at.Sub(f.from)
				if c.lost == 0 {
					c.first = d
				}
				c.lost++
				c.last = max(c.last, d)
			}
		}
		for _, r := range refusals {
			if r.at.After(f.from) && r.addr == c.master && r.kind == "NOREPLICAS" {
				c.guard = r.at.Sub(f.from)
				break
			}
		}
		for _, a := range acked {
			if a.at.After(f.from) && a.addr != c.master {
				c.mv = a.at.Sub(f.from)
				break
			}
		}
		cuts = append(cuts, c)
	}
	return cuts
}
