package sim

import (
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestInfoFormat parses the generated INFO with the core's own parser.
func TestInfoFormat(t *testing.T) {
	t.Parallel()
	type want struct {
		role      string
		runID     bool
		replicas  []settings.Addr
		host      string
		port      int
		linkUp    bool
		linkDown  time.Duration
		priority  int
		offset    uint64
		announced int
	}
	tests := []struct {
		name  string
		setup func(c *Cluster) *Server
		want  want
	}{
		{"master with two replicas", func(c *Cluster) *Server { return c.Server("r0") },
			want{role: "master", runID: true, replicas: []settings.Addr{ServerAddr(1), ServerAddr(2)}, priority: 100, announced: 1}},
		{"master lists only linked replicas", func(c *Cluster) *Server {
			c.Server("r2").LinkDown = true
			return c.Server("r0")
		}, want{role: "master", runID: true, replicas: []settings.Addr{ServerAddr(1)}, priority: 100, announced: 1}},
		{"replica in sync", func(c *Cluster) *Server {
			r := c.Server("r1")
			r.Priority, r.ReplOffset = 7, 12345
			return r
		}, want{role: "slave", runID: true, host: "10.0.1.1", port: 6379, linkUp: true, priority: 7, offset: 12345, announced: 1}},
		{"replica of a crashed master", func(c *Cluster) *Server {
			c.Crash("r0")
			c.Server("r1").Info() // the link is seen down now
			c.Run(3 * time.Second)
			return c.Server("r1")
		}, want{role: "slave", runID: true, host: "10.0.1.1", port: 6379, linkDown: 3 * time.Second, priority: 100, announced: 1}},
		{"replica never linked", func(c *Cluster) *Server {
			r := c.Server("r2")
			r.SlaveOf(settings.Addr{Host: "10.0.9.9", Port: 6379})
			return r
		}, want{role: "slave", runID: true, host: "10.0.9.9", port: 6379, linkDown: -time.Second, priority: 100, announced: 1}},
		{"hidden replica", func(c *Cluster) *Server {
			r := c.Server("r1")
			r.ReplicaAnnounced = false
			return r
		}, want{role: "slave", runID: true, host: "10.0.1.1", port: 6379, linkUp: true, priority: 100, announced: 0}},
		{"replica cut off from its master", func(c *Cluster) *Server {
			c.Partition([]string{"r1"}, []string{"r0"})
			return c.Server("r1")
		}, want{role: "slave", runID: true, host: "10.0.1.1", port: 6379, linkDown: 0, priority: 100, announced: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(t, Options{Seed: 1})
			m := c.AddServer("r0", ServerAddr(0))
			c.AddReplica("r1", ServerAddr(1), m)
			c.AddReplica("r2", ServerAddr(2), m)
			s := tt.setup(c)
			text := s.Info()
			r := inforeply.Parse(text)
			w := tt.want
			if r.Role != w.role || (r.RunID == s.RunID) != w.runID {
				t.Fatalf("role %q run id %q in\n%s", r.Role, r.RunID, text)
			}
			if len(r.Replicas) != len(w.replicas) {
				t.Fatalf("replicas %v, want %v", r.Replicas, w.replicas)
			}
			for i := range w.replicas {
				if r.Replicas[i] != w.replicas[i] {
					t.Fatalf("replicas %v, want %v", r.Replicas, w.replicas)
				}
			}
			if r.MasterLinkDownTime != w.linkDown {
				t.Fatalf("link down time %v, want %v", r.MasterLinkDownTime, w.linkDown)
			}
			if w.role != "slave" {
				if r.HasMasterHost {
					t.Fatalf("a master reports master_host")
				}
				return
			}
			if r.MasterHost != w.host || r.MasterPort != w.port || r.MasterLinkUp != w.linkUp ||
				r.SlavePriority != w.priority || r.SlaveReplOffset != w.offset || r.ReplicaAnnouncedValue != w.announced {
				t.Fatalf("parsed %+v from\n%s", r, text)
			}
		})
	}
}

// newConnFor builds a connected command link from a fresh node to s, for
// driving the command models directly.
func newConnFor(c *Cluster, s *Server) *conn {
	n := c.Node("s1")
	return &conn{from: n, inc: n.inc, kind: msg.CmdLink, toSrv: s, up: true, outstanding: map[uint64]bool{}, label: "test"}
}

// TestRedisCommands drives the modelled Redis command by command.
func TestRedisCommands(t *testing.T) {
	t.Parallel()
	c := New(t, Options{Seed: 1})
	m := c.AddServer("r0", ServerAddr(0))
	r := c.AddReplica("r1", ServerAddr(1), m)
	c.AddSentinel(MonitorConfig(masterName, m.Addr, 2, downAfter))
	cn := newConnFor(c, r)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "+PONG"},
		{[]string{"ping"}, "+PONG"},
		{[]string{"EXEC"}, "-ERR EXEC without MULTI"},
		{[]string{"DISCARD"}, "-ERR DISCARD without MULTI"},
		{[]string{"SLAVEOF", "10.0.1.1", "x"}, "-ERR value is not an integer or out of range"},
		{[]string{"SLAVEOF", "10.0.1.1"}, "-ERR wrong number of arguments for 'slaveof' command"},
		{[]string{"SLAVEOF", "10.0.1.1", "6379"}, "+OK Already connected to specified master"},
		{[]string{"PUBLISH", "ch"}, "-ERR wrong number of arguments for 'publish' command"},
		{[]string{"PUBLISH", "ch", "x"}, ":0"},
		{[]string{"CONFIG", "GET", "x"}, "-ERR unknown subcommand for 'config'"},
		{[]string{"CLIENT", "LIST"}, "-ERR syntax error"},
		{[]string{"SCRIPT", "KILL"}, "-NOTBUSY No scripts in execution right now."},
		{[]string{"FLUSHALL"}, "-ERR unknown command 'FLUSHALL'"},
		{[]string{"MULTI"}, "+OK"},
		{[]string{"MULTI"}, "-ERR MULTI calls can not be nested"},
		{[]string{"SLAVEOF", "NO", "ONE"}, "+QUEUED"},
		{[]string{"CONFIG", "REWRITE"}, "+QUEUED"},
		{[]string{"CLIENT", "KILL", "TYPE", "normal"}, "+QUEUED"},
		{[]string{"CLIENT", "KILL", "TYPE", "pubsub"}, "+QUEUED"},
		{[]string{"EXEC"}, "*[+OK +OK :0 :0]"},
		{[]string{"MULTI"}, "+OK"},
		{[]string{"SLAVEOF", "10.0.1.1", "6379"}, "+QUEUED"},
		{[]string{"DISCARD"}, "+OK"},
	}
	for i, tt := range tests {
		if got := traceReply(c.redisCommand(r, cn, tt.args)); got != tt.want {
			t.Fatalf("step %d %q: %s, want %s", i, tt.args, got, tt.want)
		}
	}
	if r.Role != RoleMaster {
		t.Fatalf("SLAVEOF NO ONE in EXEC did not promote: role %s", r.Role)
	}
	if got := traceReply(c.redisCommand(r, cn, []string{"SLAVEOF", "10.0.1.1", "6379"})); got != "+OK" || r.Role != RoleReplica || r.MasterAddr != m.Addr {
		t.Fatalf("SLAVEOF: %s, role %s of %v", got, r.Role, r.MasterAddr)
	}
	m.PingError = LoadingError
	if got := traceReply(c.redisCommand(m, cn, []string{"PING"})); got != "-"+LoadingError {
		t.Fatalf("PING of a loading master: %s", got)
	}
}

// TestSentinelCommands drives a node's command surface as peers use it.
func TestSentinelCommands(t *testing.T) {
	t.Parallel()
	c := New(t, Options{Seed: 1})
	m := c.AddServer("r0", ServerAddr(0))
	n := c.AddSentinel(MonitorConfig(masterName, m.Addr, 2, downAfter))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "+PONG"},
		{[]string{"PUBLISH", "other", "x"}, "-ERR Only HELLO messages are accepted by Sentinel instances."},
		{[]string{"PUBLISH", gossip.Channel}, "-ERR wrong number of arguments for 'publish' command"},
		{[]string{"PUBLISH", gossip.Channel, "garbage"}, ":1"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "x", "0", "*"}, "-ERR value is not an integer or out of range"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "6379", "y", "*"}, "-ERR value is not an integer or out of range"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "+6379", "0", "*"}, "-ERR value is not an integer or out of range"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "2147483648", "0", "*"}, "-ERR value is not an integer or out of range"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "6379", "00", "*"}, "-ERR value is not an integer or out of range"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1"}, "-ERR Unknown subcommand or wrong number of arguments"},
		{[]string{"SENTINEL"}, "-ERR Unknown subcommand or wrong number of arguments"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "6379", "0", "*"}, "*[:0 +* :0]"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.0.9.9", "6379", "0", "*"}, "*[:0 +* :0]"},
		{[]string{"INFO"}, "-ERR unknown command 'INFO'"},
	}
	for _, tt := range tests {
		if got := traceReply(c.sentinelCommand(n, tt.args)); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.args, got, tt.want)
		}
	}
	// A vote request is a vote: it is recorded and persisted.
	voter := "0123456789012345678901234567890123456789"
	got := traceReply(c.sentinelCommand(n, []string{"SENTINEL", "is-master-down-by-addr", "10.0.1.1", "6379", "3", voter}))
	if got != "*[:0 +"+voter+" :3]" {
		t.Fatalf("vote reply %s", got)
	}
	if n.Disk.Masters[0].LeaderEpoch != 3 || n.Core.CurrentEpoch() != 3 {
		t.Fatalf("vote not persisted: %+v", n.Disk.Masters[0])
	}
	if !c.HasEvent(c.start, "s1", "+vote-for-leader", voter+" 3") {
		t.Fatalf("no +vote-for-leader event")
	}
}

// TestTraceReply renders every reply kind on one line.
func TestTraceReply(t *testing.T) {
	t.Parallel()
	long := make([]byte, 100)
	for i := range long {
		long[i] = 'x'
	}
	tests := []struct {
		r    msg.Reply
		want string
	}{
		{status("PONG"), "+PONG"},
		{bulk("a\r\nb"), "$(4 bytes)"},
		{bulk(string(long)), "$(100 bytes)"},
		{errReply("ERR x"), "-ERR x"},
		{intReply(-3), ":-3"},
		{msg.Reply{Kind: msg.ReplyNil}, "(nil)"},
		{arrayReply(intReply(1), arrayReply()), "*[:1 *[]]"},
	}
	for _, tt := range tests {
		if got := traceReply(tt.r); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
}
