package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Role is a modelled Redis server's replication role.
type Role int

// The two roles a modelled server can have.
const (
	RoleMaster Role = iota
	RoleReplica
)

func (r Role) String() string {
	if r == RoleReplica {
		return "slave"
	}
	return "master"
}

// DefaultRedisPort is the port AddServer-style helpers give servers.
const DefaultRedisPort = 6379

// LoadingError is the error text of a Redis that is loading its dataset;
// Sentinel counts it as a valid PING reply.
const LoadingError = "LOADING Redis is loading the dataset in memory"

// MisconfError is the error text of a Redis that cannot persist; Sentinel
// does not count it as a valid PING reply.
const MisconfError = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk."

// Server is a modelled Redis server. Its exported fields are the model and
// may be changed by a scenario between runs; INFO and PING answers are
// generated from them when a command arrives.
type Server struct {
	c *Cluster

	// Name is the server's endpoint name (r0, r1, ...).
	Name string
	// Addr is where it listens.
	Addr settings.Addr
	// RunID is its 40-character run_id; a new one is drawn at every
	// Restart, as a real restart does.
	RunID string
	// Role is master or replica (role:slave in INFO).
	Role Role
	// MasterAddr is the master it replicates from when Role is
	// RoleReplica (master_host, master_port).
	MasterAddr settings.Addr
	// ReplOffset is its replication offset (slave_repl_offset,
	// master_repl_offset and the offset of its slaveN line).
	ReplOffset int64
	// Priority is slave_priority (100 by default; 0 = never promote).
	Priority int
	// ReplicaAnnounced is replica_announced.
	ReplicaAnnounced bool
	// PingError, when set, is the error PING is answered with instead
	// of PONG (LoadingError, MisconfError, ...).
	PingError string
	// LinkDown forces master_link_status:down on a replica; otherwise the
	// link is up whenever its master is alive and reachable.
	LinkDown bool
	// IgnoreSlaveOfNoOne makes the server answer SLAVEOF NO ONE with +OK
	// and change nothing: a replica that never promotes.
	IgnoreSlaveOfNoOne bool
	// SyncDelay is how long a replica's link stays down after SLAVEOF
	// host port (the time a full sync takes); 0 brings it up at once.
	SyncDelay time.Duration
	// ReplLag is how long a write applied by its master takes to reach
	// a replica whose link is up; 0 applies it right after.
	ReplLag time.Duration
	// RejectPSync makes the server refuse PSYNC, as `ACL SETUSER default
	// -psync` does: a coordinated FAILOVER to it aborts.
	RejectPSync bool

	crashed   bool
	life      int // bumps at every boot, to drop the timers of a past life
	startedAt time.Time
	// replID is the replication history the server is on
	// (master_replid; a replica takes its master's while its link is
	// up, followReplID), replID2 the one before its last promotion
	// (master_replid2; "" for none, shown as zeros).
	replID, replID2 string
	linkEverUp      bool
	linkDownSince   time.Time
	syncStart       time.Time // last SlaveOf, for SyncDelay

	data    dataset     // the writes it applied
	pause   clientPause // CLIENT PAUSE's
	foPause bool        // its own write pause while it fails over
	fo      failover    // the FAILOVER it runs
	blocked []*session  // connections with held commands, in blocking order
}

// Crashed reports whether the server is down.
func (s *Server) Crashed() bool { return s.crashed }

// AddServer adds a modelled Redis master listening at addr.
func (c *Cluster) AddServer(name string, addr settings.Addr) *Server {
	c.register(name)
	s := &Server{
		c:                c,
		Name:             name,
		Addr:             addr,
		Role:             RoleMaster,
		Priority:         inforeply.DefaultSlavePriority,
		ReplicaAnnounced: true,
	}
	s.boot()
	c.servers = append(c.servers, s)
	c.tracef(name, "server %s:%d role=%s run_id=%s", addr.Host, addr.Port, s.Role, s.RunID)
	return s
}

// AddReplica adds a modelled Redis replica of master listening at addr,
// already in sync.
func (c *Cluster) AddReplica(name string, addr settings.Addr, master *Server) *Server {
	s := c.AddServer(name, addr)
	s.Role = RoleReplica
	s.MasterAddr = master.Addr
	s.ReplOffset = master.ReplOffset
	s.linkEverUp = true
	c.tracef(name, "replicaof %s:%d", master.Addr.Host, master.Addr.Port)
	return s
}

// boot starts a new life of the server: new run id and replication id.
func (s *Server) boot() {
	s.crashed = false
	s.life++
	s.pause, s.foPause, s.fo, s.blocked = clientPause{}, false, failover{}, nil
	s.startedAt = s.c.now
	s.RunID = monitor.GenerateID(s.c.rnd)
	s.replID, s.replID2 = monitor.GenerateID(s.c.rnd), ""
	s.linkDownSince = time.Time{}
}

// followReplID gives a replica whose link is up its master's replication
// id, as a sync does.
func (c *Cluster) followReplID(s *Server) {
	if s.Role != RoleReplica || !c.replLinkUp(s) {
		return
	}
	if m := c.serverAt(s.MasterAddr); m != nil {
		s.replID = m.replID
	}
}

// promote makes the server's replication history a new one, the old one
// its replID2, as a promotion (or an aborted FAILOVER) does in Redis.
func (s *Server) promote() {
	s.c.followReplID(s)
	s.replID2, s.replID = s.replID, monitor.GenerateID(s.c.rnd)
}

// SlaveOf makes the server replicate from a, as `SLAVEOF host port` does.
func (s *Server) SlaveOf(a settings.Addr) {
	if s.Role == RoleReplica && s.MasterAddr == a {
		return
	}
	s.Role = RoleReplica
	s.MasterAddr = a
	s.linkEverUp = false
	s.linkDownSince = time.Time{}
	s.syncStart = s.c.now
	s.c.tracef(s.Name, "replicaof %s:%d", a.Host, a.Port)
	s.c.kickReplication()
}

// SlaveOfNoOne makes the server a master, as `SLAVEOF NO ONE` does.
func (s *Server) SlaveOfNoOne() {
	if s.Role == RoleMaster {
		return
	}
	s.promote()
	s.Role = RoleMaster
	s.MasterAddr = settings.Addr{}
	s.c.tracef(s.Name, "replicaof no one")
	s.c.kickReplication()
}

// replLinkUp reports whether a replica's link to its master is up: the
// master server exists, is alive and can be reached both ways, and the
// SyncDelay since the last SlaveOf has passed. While a server hands its
// role over in a FAILOVER its own link is down (it is handshaking with the
// target) and so are its replicas' (it refuses their SYNC).
func (c *Cluster) replLinkUp(s *Server) bool {
	if s.Role != RoleReplica || s.LinkDown || s.crashed || s.fo.state == foInProgress {
		return false
	}
	if s.SyncDelay > 0 && c.now.Sub(s.syncStart) < s.SyncDelay {
		return false
	}
	m := c.serverAt(s.MasterAddr)
	return m != nil && m != s && !m.crashed && c.linkOK(s.Name, m.Name) &&
		m.fo.state != foInProgress
}

// connectedReplicas returns the servers replicating from s with their link
// up, in the order they were added: the slaveN lines of s's INFO.
func (c *Cluster) connectedReplicas(s *Server) []*Server {
	var out []*Server
	for _, r := range c.servers {
		if r != s && r.Role == RoleReplica && r.MasterAddr == s.Addr && c.replLinkUp(r) {
			out = append(out, r)
		}
	}
	return out
}

// Info renders the server's INFO reply in Redis 7.0's format (Server and
// Replication sections, "\r\n" line ends), as of now.
func (s *Server) Info() string {
	c := s.c
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\r\n")
	}
	line("# Server")
	line("redis_version:7.0.15")
	line("redis_mode:standalone")
	line("run_id:%s", s.RunID)
	line("tcp_port:%d", s.Addr.Port)
	line("uptime_in_seconds:%d", int64(c.now.Sub(s.startedAt)/time.Second))
	line("")
	line("# Replication")
	c.followReplID(s)
	line("role:%s", s.Role)
	if s.Role == RoleReplica {
		up := c.replLinkUp(s)
		status, io := "down", -1
		if up {
			status, io = "up", 0
			s.linkEverUp = true
			s.linkDownSince = time.Time{}
		}
		line("master_host:%s", s.MasterAddr.Host)
		line("master_port:%d", s.MasterAddr.Port)
		line("master_link_status:%s", status)
		line("master_last_io_seconds_ago:%d", io)
		line("master_sync_in_progress:0")
		line("slave_read_repl_offset:%d", s.ReplOffset)
		line("slave_repl_offset:%d", s.ReplOffset)
		if !up {
			since := int64(-1)
			if s.linkEverUp {
				if s.linkDownSince.IsZero() {
					s.linkDownSince = c.now
				}
				since = int64(c.now.Sub(s.linkDownSince) / time.Second)
			}
			line("master_link_down_since_seconds:%d", since)
		}
		line("slave_priority:%d", s.Priority)
		line("slave_read_only:1")
		announced := 0
		if s.ReplicaAnnounced {
			announced = 1
		}
		line("replica_announced:%d", announced)
	}
	reps := c.connectedReplicas(s)
	line("connected_slaves:%d", len(reps))
	for i, r := range reps {
		line("slave%d:ip=%s,port=%d,state=online,offset=%d,lag=0", i, r.Addr.Host, r.Addr.Port, r.ReplOffset)
	}
	line("master_failover_state:%s", s.fo.state)
	line("master_replid:%s", s.replID)
	replID2 := s.replID2
	if replID2 == "" {
		replID2 = "0000000000000000000000000000000000000000"
	}
	line("master_replid2:%s", replID2)
	line("master_repl_offset:%d", s.ReplOffset)
	line("second_repl_offset:-1")
	return b.String()
}
