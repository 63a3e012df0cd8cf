package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// failoverPoll is how often a server waiting for its FAILOVER target to
// catch up checks it again (Redis checks before every event loop turn).
const failoverPoll = 10 * time.Millisecond

// psyncRetry is how long a server failing over waits before it tries
// again to reach a target it could not reach (Redis's replication cron).
const psyncRetry = time.Second

// foState is the state of a server's coordinated failover, as INFO's
// master_failover_state prints it.
type foState int

// The three states of Redis's failover_state.
const (
	foNone foState = iota
	foWaitSync
	foInProgress
)

// String returns the state as INFO's master_failover_state prints it.
func (f foState) String() string {
	switch f {
	case foWaitSync:
		return "waiting-for-sync"
	case foInProgress:
		return "failover-in-progress"
	}
	return "no-failover"
}

// failover is the FAILOVER a server runs: its state, its target (zero for
// any replica), its deadline (zero for none), FORCE, and its id, which
// the timers of an earlier failover do not match.
type failover struct {
	state  foState
	target settings.Addr
	end    time.Time
	force  bool
	id     uint64
}

// FailoverState returns the server's master_failover_state: no-failover,
// waiting-for-sync or failover-in-progress.
func (s *Server) FailoverState() string { return s.fo.state.String() }

// failoverCommand is FAILOVER [TO host port [FORCE]] [TIMEOUT ms] and
// FAILOVER ABORT, with Redis 7.0's checks and error texts. It starts the
// failover in waiting-for-sync with the server's own write pause; the
// rest happens in updateFailover.
func (c *Cluster) failoverCommand(s *Server, args []string) msg.Reply {
	if len(args) == 2 && strings.EqualFold(args[1], "abort") {
		if s.fo.state == foNone {
			return errReply("ERR No failover in progress.")
		}
		c.abortFailover(s, "Failover manually aborted")
		return status("OK")
	}
	var timeout int64
	var force bool
	var to settings.Addr
	for j := 1; j < len(args); j++ {
		switch a := strings.ToLower(args[j]); {
		case a == "timeout" && j+1 < len(args) && timeout == 0:
			v, err := strconv.ParseInt(args[j+1], 10, 64)
			if err != nil {
				return errReply("ERR value is not an integer or out of range")
			}
			if v <= 0 {
				return errReply("ERR FAILOVER timeout must be greater than 0")
			}
			timeout, j = v, j+1
		case a == "to" && j+2 < len(args) && to.Host == "":
			port, err := strconv.Atoi(args[j+2])
			if err != nil {
				return errReply("ERR value is not an integer or out of range")
			}
			to, j = settings.Addr{Host: args[j+1], Port: port}, j+2
		case a == "force" && !force:
			force = true
		default:
			return errReply("ERR syntax error")
		}
	}
	switch {
	case s.fo.state != foNone:
		return errReply("ERR FAILOVER already in progress.")
	case s.Role == RoleReplica:
		return errReply("ERR FAILOVER is not valid when server is a replica.")
	case len(c.attachedReplicas(s)) == 0:
		return errReply("ERR FAILOVER requires connected replicas.")
	case force && (timeout == 0 || to.Host == ""):
		return errReply("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
	}
	if to.Host != "" {
		r := c.replicaAt(s, to)
		if r == nil {
			return errReply("ERR FAILOVER target HOST and PORT is not a replica.")
		}
		if !c.replLinkUp(r) {
			return errReply("ERR FAILOVER target replica is not online.")
		}
	}
	c.nextFo++
	s.fo = failover{state: foWaitSync, target: to, force: force, id: c.nextFo}
	if timeout > 0 {
		s.fo.end = c.now.Add(time.Duration(timeout) * time.Millisecond)
	}
	s.foPause = true
	c.tracef(s.Name, "failover requested to %s (timeout %dms%s); writes paused", addrText(to), timeout, map[bool]string{true: ", force"}[force])
	id := s.fo.id
	if timeout > 0 {
		c.sched.at(s.fo.end, func() {
			if s.fo.id == id && !s.crashed {
				c.updateFailover(s)
			}
		})
	}
	c.sched.at(c.now, func() { c.pollFailover(s, id) })
	return status("OK")
}

// addrText renders a FAILOVER target: host:port, or "any replica".
func addrText(a settings.Addr) string {
	if a.Host == "" {
		return "any replica"
	}
	return a.String()
}

// attachedReplicas returns the replicas connected to s, synced or still
// syncing: Redis's server.slaves.
func (c *Cluster) attachedReplicas(s *Server) []*Server {
	var out []*Server
	for _, r := range c.servers {
		if r != s && r.Role == RoleReplica && r.MasterAddr == s.Addr && !r.crashed && !r.LinkDown &&
			r.fo.state != foInProgress && !s.crashed && c.linkOK(r.Name, s.Name) {
			out = append(out, r)
		}
	}
	return out
}

// replicaAt returns the replica attached to s at a, or nil.
func (c *Cluster) replicaAt(s *Server, a settings.Addr) *Server {
	for _, r := range c.attachedReplicas(s) {
		if strings.EqualFold(r.Addr.Host, a.Host) && r.Addr.Port == a.Port {
			return r
		}
	}
	return nil
}

// pollFailover checks a waiting failover now and again every
// failoverPoll until it leaves waiting-for-sync.
func (c *Cluster) pollFailover(s *Server, id uint64) {
	if s.crashed || s.fo.id != id || s.fo.state != foWaitSync {
		return
	}
	c.updateFailover(s)
	if s.fo.id == id && s.fo.state == foWaitSync {
		c.sched.at(c.now.Add(failoverPoll), func() { c.pollFailover(s, id) })
	}
}

// updateFailover is Redis's updateFailoverStatus: past the deadline the
// failover aborts (or, with FORCE, hands over anyway); once the target's
// replication offset equals the master's, the master hands over.
func (c *Cluster) updateFailover(s *Server) {
	if s.fo.state != foWaitSync {
		return
	}
	if !s.fo.end.IsZero() && !c.now.Before(s.fo.end) {
		if s.fo.force {
			c.tracef(s.Name, "FAILOVER to %s time out exceeded, failing over.", addrText(s.fo.target))
			c.handOver(s)
			return
		}
		c.abortFailover(s, "Replica never caught up before timeout")
		return
	}
	var r *Server
	if s.fo.target.Host != "" {
		r = c.replicaAt(s, s.fo.target)
	} else {
		for _, x := range c.connectedReplicas(s) {
			if x.ReplOffset == s.ReplOffset {
				r, s.fo.target = x, x.Addr
				break
			}
		}
	}
	if r != nil && c.replLinkUp(r) && r.ReplOffset == s.ReplOffset {
		c.tracef(s.Name, "Failover target %s is synced, failing over.", addrText(s.fo.target))
		c.handOver(s)
	}
}

// handOver is failover-in-progress: the master becomes a replica of the
// target (keeping its data) and sends it PSYNC FAILOVER.
func (c *Cluster) handOver(s *Server) {
	s.fo.state = foInProgress
	s.Role = RoleReplica
	s.MasterAddr = s.fo.target
	s.linkEverUp = false
	s.linkDownSince = time.Time{}
	c.tracef(s.Name, "replicaof %s:%d (failover)", s.MasterAddr.Host, s.MasterAddr.Port)
	c.sendPSyncFailover(s, s.fo.id, c.latency()+c.latency()+c.latency())
}

// sendPSyncFailover has the PSYNC FAILOVER of s reach its target after d
// (the connect and the handshake), where the target promotes itself or
// refuses; its answer comes back one delay later. A target that promotes
// itself completes the handover, which checkHandovers checks at the end
// of the step. A target s cannot reach is tried again after psyncRetry,
// the failover staying in progress.
func (c *Cluster) sendPSyncFailover(s *Server, id uint64, d time.Duration) {
	c.sched.at(c.now.Add(d), func() {
		if s.crashed || s.fo.id != id || s.fo.state != foInProgress {
			return
		}
		t := c.serverAt(s.fo.target)
		if t == nil || t.crashed || !c.linkOK(s.Name, t.Name) {
			c.tracef(s.Name, "failover target %s unreachable; retrying", addrText(s.fo.target))
			c.sendPSyncFailover(s, id, psyncRetry)
			return
		}
		var reply string
		switch {
		case t.RejectPSync:
			reply = "-NOPERM this user has no permissions to run the 'psync' command"
		case t.Role == RoleMaster:
			reply = "-ERR PSYNC FAILOVER can't be sent to a master."
		case t.MasterAddr != s.Addr:
			reply = "-ERR PSYNC FAILOVER replid must match my replid."
		default:
			reply = "+CONTINUE"
			t.promote()
			t.Role = RoleMaster
			t.MasterAddr = settings.Addr{}
			c.tracef(t.Name, "replicaof no one (failover request from %s)", s.Name)
			c.recordHandover(s, t)
			c.kickReplication()
		}
		c.tracef(t.Name, "PSYNC FAILOVER from %s: %s", s.Name, reply)
		c.sched.at(c.now.Add(c.latency()), func() {
			if s.crashed || s.fo.id != id || s.fo.state != foInProgress {
				return
			}
			if reply != "+CONTINUE" {
				c.abortFailover(s, "Failover target rejected psync request")
				return
			}
			c.tracef(s.Name, "failover to %s done", addrText(s.fo.target))
			c.clearFailover(s)
		})
	})
}

// abortFailover is Redis's abortFailover: a failover in progress makes
// the server a master again (with a new replication id), and the state
// clears.
func (c *Cluster) abortFailover(s *Server, why string) {
	if s.fo.state == foNone {
		return
	}
	c.tracef(s.Name, "FAILOVER to %s aborted: %s", addrText(s.fo.target), why)
	if s.fo.state == foInProgress {
		s.promote()
		s.Role = RoleMaster
		s.MasterAddr = settings.Addr{}
		c.tracef(s.Name, "replicaof no one (failover aborted)")
	}
	c.clearFailover(s)
}

// clearFailover is Redis's clearFailoverState: no failover, and the
// server's own write pause lifts (CLIENT PAUSE's stays, and then so do
// the commands it holds).
func (c *Cluster) clearFailover(s *Server) {
	s.fo = failover{}
	c.liftPause(s, func() { s.foPause = false })
	c.kickReplication()
}
