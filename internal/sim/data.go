package sim

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// replPoll is how often replication is retried while a replica that is
// behind its master has its link down.
const replPoll = 100 * time.Millisecond

// entry is one write in a server's data log: the write commands it
// applied (one command, or those of one MULTI/EXEC), its size in the
// replication stream, the replication offset after it, when this server
// applied it, and an id every copy of it keeps.
type entry struct {
	id     uint64
	cmds   [][]string
	size   int64
	offset int64
	at     time.Time
}

// dataset is a server's data: the log of the writes it applied and the
// keys they set.
type dataset struct {
	log     []entry
	kv      map[string]string
	inTxn   bool       // an EXEC is running: its writes form one entry
	pending [][]string // the writes of that EXEC so far
}

// writeCommands are the modelled commands with Redis's write flag: a
// read-only replica refuses them and a write pause holds them.
var writeCommands = map[string]bool{"INCR": true, "SET": true}

// ReadOnlyError is the error text of a write sent to a read-only replica.
const ReadOnlyError = "READONLY You can't write against a read only replica."

// LogEntry is one write of a server's data log, as Log returns it: the
// write commands it applied and the server's replication offset after it.
type LogEntry struct {
	Cmds   [][]string
	Offset int64
}

// Log returns the server's data log, oldest write first.
func (s *Server) Log() []LogEntry {
	out := make([]LogEntry, len(s.data.log))
	for i, e := range s.data.log {
		out[i] = LogEntry{Cmds: e.cmds, Offset: e.offset}
	}
	return out
}

// Get returns the value of a key in the server's data, as GET would.
func (s *Server) Get(key string) (string, bool) {
	v, ok := s.data.kv[key]
	return v, ok
}

// Keys returns the keys in the server's data, sorted.
func (s *Server) Keys() []string {
	out := make([]string, 0, len(s.data.kv))
	for k := range s.data.kv {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dataCommand runs INCR, SET and GET. A replica answers the writes
// -READONLY; a master applies them and logs them (inside EXEC, at the end
// of the transaction), which advances its replication offset.
func (c *Cluster) dataCommand(s *Server, cmd string, args []string) msg.Reply {
	want := map[string]int{"INCR": 2, "SET": 3, "GET": 2}[cmd]
	if len(args) != want {
		return errWrongArgs(args[0])
	}
	if cmd == "GET" {
		if v, ok := s.data.kv[args[1]]; ok {
			return bulk(v)
		}
		return msg.Reply{Kind: msg.ReplyNil}
	}
	if s.Role == RoleReplica {
		return errReply(ReadOnlyError)
	}
	r := status("OK")
	if cmd == "INCR" {
		v, err := incr(s.data.kv[args[1]])
		if err != nil {
			return errReply("ERR value is not an integer or out of range")
		}
		r = intReply(v)
	}
	s.data.apply(args)
	if s.data.inTxn {
		s.data.pending = append(s.data.pending, args)
	} else {
		c.logWrite(s, [][]string{args})
	}
	return r
}

// commitTxn ends an EXEC: its writes become one entry of the log.
func (c *Cluster) commitTxn(s *Server) {
	p := s.data.pending
	s.data.inTxn, s.data.pending = false, nil
	if len(p) > 0 {
		c.logWrite(s, p)
	}
}

// incr is INCR's arithmetic on a value ("" for a missing key).
func incr(v string) (int64, error) {
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, err
	}
	return n + 1, nil
}

// apply carries out one write command on the keys.
func (d *dataset) apply(args []string) {
	if d.kv == nil {
		d.kv = map[string]string{}
	}
	switch strings.ToUpper(args[0]) {
	case "INCR":
		n, _ := incr(d.kv[args[1]])
		d.kv[args[1]] = strconv.FormatInt(n, 10)
	case "SET":
		d.kv[args[1]] = args[2]
	}
}

// logWrite appends a write a master applied to its log: its replication
// offset advances by the write's size in the replication stream, and the
// replicas get it as replication goes.
func (c *Cluster) logWrite(s *Server, cmds [][]string) {
	size := respSize(cmds)
	if len(cmds) > 1 {
		size += respSize([][]string{{"MULTI"}, {"EXEC"}})
	}
	c.nextEntry++
	s.ReplOffset += size
	s.data.log = append(s.data.log, entry{id: c.nextEntry, cmds: cmds, size: size, offset: s.ReplOffset, at: c.now})
	c.kickReplication()
}

// respSize is the length of commands in RESP, as a master sends them to
// its replicas.
func respSize(cmds [][]string) int64 {
	n := 0
	for _, a := range cmds {
		n += len(strconv.Itoa(len(a))) + 3
		for _, x := range a {
			n += len(strconv.Itoa(len(x))) + 3 + len(x) + 2
		}
	}
	return int64(n)
}

// kickReplication runs replication now (and again as long as a replica is
// behind). Until the first write anywhere it does nothing: a cluster that
// never writes keeps the offsets its scenario set and schedules nothing.
func (c *Cluster) kickReplication() {
	if c.nextEntry == 0 {
		return
	}
	c.replGen++
	gen := c.replGen
	c.sched.at(c.now, func() { c.replicate(gen) })
}

// replicate brings every replica's data up to date with its master's as
// far as the links and ReplLag allow now, and schedules its next run: when
// the next write becomes due on a replica, or after replPoll while a
// replica that is behind has its link down.
func (c *Cluster) replicate(gen uint64) {
	if gen != c.replGen {
		return // a later kick took over
	}
	var next time.Time
	soon := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, r := range c.servers {
		if r.Role != RoleReplica || r.crashed {
			continue
		}
		m := c.serverAt(r.MasterAddr)
		if m == nil || m == r || inSync(r, m) {
			continue
		}
		if !c.replLinkUp(r) {
			soon(c.now.Add(replPoll))
			continue
		}
		c.followReplID(r)
		if t, behind := c.catchUp(r, m); behind {
			soon(t)
		}
		if m.fo.state == foWaitSync {
			c.updateFailover(m)
		}
	}
	if !next.IsZero() {
		c.replGen++
		g := c.replGen
		c.sched.at(next, func() { c.replicate(g) })
	}
}

// inSync reports whether replica r holds exactly the data and the offset
// of its master m. Two servers that never saw a write are in sync whatever
// their offsets.
func inSync(r, m *Server) bool {
	if len(r.data.log) == 0 && len(m.data.log) == 0 {
		return true
	}
	return sameLog(r.data.log, m.data.log) && r.ReplOffset == m.ReplOffset
}

// sameLog reports whether two logs are the same writes.
func sameLog(a, b []entry) bool {
	return len(a) == len(b) && isPrefix(a, b)
}

// isPrefix reports whether log a is the beginning of log b. Logs only grow
// by appending and copy each other by prefix, so the last entry tells.
func isPrefix(a, b []entry) bool {
	if len(a) > len(b) {
		return false
	}
	return len(a) == 0 || a[len(a)-1].id == b[len(a)-1].id
}

// catchUp copies to replica r the writes of its master m that have reached
// it (those m applied at least r.ReplLag ago). A replica whose log is not a
// beginning of m's (repointed to another master, or an old master that
// has writes the new one lacks) resyncs: it ends up with exactly m's log,
// what it had beyond is thrown away. It returns when the next write of m
// reaches r, if r is still behind.
func (c *Cluster) catchUp(r, m *Server) (time.Time, bool) {
	ml := m.data.log
	k := len(ml)
	for k > 0 && ml[k-1].at.Add(r.ReplLag).After(c.now) {
		k--
	}
	if isPrefix(r.data.log, ml) {
		for _, e := range ml[min(len(r.data.log), k):k] {
			e.at = c.now
			r.data.log = append(r.data.log, e)
			for _, a := range e.cmds {
				r.data.apply(a)
			}
		}
		k = max(k, len(r.data.log))
	} else {
		dropped := len(r.data.log) - commonPrefix(r.data.log, ml)
		r.data = dataset{}
		for _, e := range ml[:k] {
			e.at = c.now
			r.data.log = append(r.data.log, e)
			for _, a := range e.cmds {
				r.data.apply(a)
			}
		}
		c.tracef(r.Name, "resync from %s: %d writes, %d of its own thrown away", m.Name, k, dropped)
	}
	switch {
	case k == len(ml):
		r.ReplOffset = m.ReplOffset
	case k > 0:
		r.ReplOffset = ml[k-1].offset
	default:
		r.ReplOffset = ml[0].offset - ml[0].size
	}
	if k < len(ml) {
		return ml[k].at.Add(r.ReplLag), true
	}
	return time.Time{}, false
}

// commonPrefix returns how many first entries two logs share.
func commonPrefix(a, b []entry) int {
	n := 0
	for n < len(a) && n < len(b) && a[n].id == b[n].id {
		n++
	}
	return n
}

// Master returns the running server in the master role, or nil when there
// is none or more than one.
func (c *Cluster) Master() *Server {
	var m *Server
	for _, s := range c.servers {
		if !s.crashed && s.Role == RoleMaster {
			if m != nil {
				return nil
			}
			m = s
		}
	}
	return m
}
