package sim

import (
	"fmt"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// MonitorConfig returns the state of a Sentinel started for the first time
// with a config file holding one `sentinel monitor <master> <ip> <port>
// <quorum>` line and `sentinel down-after-milliseconds` downAfter.
func MonitorConfig(master string, addr settings.Addr, quorum int, downAfter time.Duration) settings.Persisted {
	spec := settings.NewMasterSpec(master, addr, quorum)
	if downAfter > 0 {
		spec.DownAfterMs = downAfter.Milliseconds()
	}
	return settings.Persisted{Masters: []settings.MasterSpec{spec}}
}

// ServerAddr is the address Standard gives server r<k>: 10.0.1.<k+1>:6379.
func ServerAddr(k int) settings.Addr {
	return settings.Addr{Host: fmt.Sprintf("10.0.1.%d", k+1), Port: DefaultRedisPort}
}

// Topology describes the usual fleet Standard builds. Zero fields take the
// defaults noted.
type Topology struct {
	Sentinels  int           // 3
	Replicas   int           // 2 (a negative value means none)
	Quorum     int           // 2
	DownAfter  time.Duration // 5 s
	MasterName string        // "m"
	// FailoverTimeout is the master's failover-timeout; the default
	// (3 min) if zero.
	FailoverTimeout time.Duration
	// Proxy gives every Sentinel a master-following proxy (at its
	// defaults: fence-after 2 s), which the proxy invariant checks.
	Proxy bool
	// ForgetReplicaAfter is the master's forget-replica-after; 0 (the
	// default) never forgets a replica.
	ForgetReplicaAfter time.Duration
	// Voters and ForgetSentinelAfter are the master's voters and
	// forget-sentinel-after; 0 (the default) is none and never.
	Voters              int
	ForgetSentinelAfter time.Duration
}

func (t Topology) withDefaults() Topology {
	if t.Sentinels == 0 {
		t.Sentinels = 3
	}
	if t.Replicas == 0 {
		t.Replicas = 2
	}
	if t.Replicas < 0 {
		t.Replicas = 0
	}
	if t.Quorum == 0 {
		t.Quorum = 2
	}
	if t.DownAfter == 0 {
		t.DownAfter = 5 * time.Second
	}
	if t.MasterName == "" {
		t.MasterName = "m"
	}
	return t
}

// Standard builds a Cluster seeded with seed: server r0 is a master at
// ServerAddr(0), r1..rR are its replicas at ServerAddr(1..R), and Sentinels
// s1..sN are each configured only with `sentinel monitor <name> <r0> <quorum>`.
func Standard(tb TB, seed int64, t Topology) *Cluster {
	return StandardWith(tb, Options{Seed: seed}, t)
}

// StandardWith is Standard with every Option.
func StandardWith(tb TB, o Options, t Topology) *Cluster {
	t = t.withDefaults()
	c := New(tb, o)
	m := c.AddServer("r0", ServerAddr(0))
	for k := 1; k <= t.Replicas; k++ {
		c.AddReplica(fmt.Sprintf("r%d", k), ServerAddr(k), m)
	}
	for k := 0; k < t.Sentinels; k++ {
		p := MonitorConfig(t.MasterName, m.Addr, t.Quorum, t.DownAfter)
		if t.FailoverTimeout > 0 {
			p.Masters[0].FailoverTimeoutMs = t.FailoverTimeout.Milliseconds()
		}
		if t.Proxy {
			p.Masters[0].Proxy = []settings.Addr{{Host: "127.0.0.1", Port: 6380}}
		}
		p.Masters[0].ForgetReplicaAfterMs = t.ForgetReplicaAfter.Milliseconds()
		p.Masters[0].Voters = t.Voters
		p.Masters[0].ForgetSentinelAfterMs = t.ForgetSentinelAfter.Milliseconds()
		c.AddSentinel(p)
	}
	return c
}

// NodeNames returns the names of every Sentinel node, in order.
func (c *Cluster) NodeNames() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.Name
	}
	return out
}

// ServerNames returns the names of every server, in order.
func (c *Cluster) ServerNames() []string {
	out := make([]string, len(c.servers))
	for i, s := range c.servers {
		out[i] = s.Name
	}
	return out
}
