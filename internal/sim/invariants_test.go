package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// quietCluster is a settled standard cluster that reports violations
// through Err instead of failing the test.
func quietCluster(t *testing.T) *Cluster {
	c := Standard(nil, 1, Topology{})
	c.Run(5 * time.Second)
	if c.Err() != nil {
		t.Fatalf("unexpected violation: %v", c.Err())
	}
	return c
}

// TestInvariantsCatchViolations feeds each check a state that breaks it.
func TestInvariantsCatchViolations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		breakIt func(c *Cluster)
		want    string
	}{
		{"two votes in one epoch", func(c *Cluster) {
			n := c.Node("s1")
			c.observeEvent(n, event.Event{Type: "+vote-for-leader", Msg: strings.Repeat("a", 40) + " 7", Master: masterName})
			c.observeEvent(n, event.Event{Type: "+vote-for-leader", Msg: strings.Repeat("b", 40) + " 7", Master: masterName})
		}, "voted twice in epoch 7"},
		{"two leaders in one epoch", func(c *Cluster) {
			c.observeEvent(c.Node("s1"), event.Event{Type: "+elected-leader", Master: masterName})
			c.observeEvent(c.Node("s2"), event.Event{Type: "+elected-leader", Master: masterName})
		}, "two leaders in epoch 0"},
		{"epoch goes back across a restart", func(c *Cluster) {
			n := c.Node("s1")
			c.inv.maxEpoch["s1"] = 4 // as if it had seen epoch 4 but never persisted it
			c.Restart(n.Name)
			c.Run(time.Second)
		}, "current epoch went back from 4 to 0"},
		{"persisted leader epoch goes back", func(c *Cluster) {
			n := c.Node("s2")
			c.inv.leaderEpoch["s2"] = map[string]uint64{masterName: 9}
			c.act(n, msg.PersistConfig{Reason: "test"})
		}, "persisted leader epoch of m went back from 9 to 0"},
		{"one config epoch, two masters", func(c *Cluster) {
			c.inv.configAddr[epochKey{masterName, 3}] = settings.Addr{Host: "10.0.9.9", Port: 1}
			c.inv.configFrom[epochKey{masterName, 3}] = "nobody"
			p := c.Node("s3").Disk
			p.Masters[0].ConfigEpoch = 3
			c.Node("s3").Disk = p
			c.Restart("s3")
			c.Run(time.Second)
		}, "config epoch 3 of m names two masters"},
		{"a coordinated handover whose target misses acknowledged writes", func(c *Cluster) {
			r0, r1 := c.Server("r0"), c.Server("r1")
			r1.ReplLag = time.Hour
			w := c.AddWriter("w", WriterOptions{Server: r0.Name})
			c.Run(time.Second)
			if len(w.Acked()) == 0 {
				c.Fatalf("no write acknowledged")
			}
			c.recordHandover(r0, r1)
			c.afterStep()
		}, "coordinated handover from r0 to r1 lost"},
		{"SLAVEOF to the master of the newest configuration", func(c *Cluster) {
			n := c.Node("s1")
			for id, cn := range n.conns {
				if cn.kind == msg.CmdLink && cn.toSrv == c.Server("r0") {
					c.act(n, msg.Send{ID: id, Tag: 424242, Args: []string{"SLAVEOF", "10.0.1.2", "6379"}})
					return
				}
			}
			c.Fatalf("s1 has no command link to r0")
		}, "the master of the newest configuration of m (config epoch 0)"},
		{"SLAVEOF to the replica promoted in the newest epoch", func(c *Cluster) {
			c.inv.promoted[epochKey{masterName, 2}] = c.Server("r1").Addr
			n := c.Node("s2")
			for id, cn := range n.conns {
				if cn.kind == msg.CmdLink && cn.toSrv == c.Server("r1") {
					c.act(n, msg.Send{ID: id, Tag: 434343, Args: []string{"SLAVEOF", "10.0.1.1", "6379"}})
					return
				}
			}
			c.Fatalf("s2 has no command link to r1")
		}, "the master of the newest configuration of m (config epoch 2)"},
		{"send on a closed link", func(c *Cluster) {
			c.act(c.Node("s1"), msg.Send{ID: 999, Tag: 1, Args: []string{"PING"}})
		}, "Send on unknown or closed link 999"},
		{"close of an unknown link", func(c *Cluster) {
			c.act(c.Node("s1"), msg.CloseLink{ID: 999})
		}, "CloseLink of unknown link 999"},
		{"reply nobody waits for", func(c *Cluster) {
			n := c.Node("s1")
			for _, cn := range c.conns {
				if cn.from == n && cn.kind == msg.CmdLink {
					c.deliverReply(cn, 123456, status("PONG"))
					return
				}
			}
		}, "reply to tag 123456 that is not outstanding"},
		{"pending count disagrees with the wire", func(c *Cluster) {
			n := c.Node("s1")
			for _, cn := range c.conns {
				if cn.from == n && cn.kind == msg.CmdLink && cn.toSrv != nil {
					cn.outstanding[777] = true
					break
				}
			}
			c.checkViews(n)
		}, "link-pending-commands for"},
		{"a command lost on the wire", func(c *Cluster) {
			for _, cn := range c.conns {
				if cn.kind == msg.CmdLink && cn.up && len(cn.pipes[0].q)+len(cn.pipes[1].q) == 0 {
					cn.outstanding[888] = true
					break
				}
			}
			c.checkConns()
		}, "commands never answered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := quietCluster(t)
			tt.breakIt(c)
			err := c.Err()
			if err == nil || !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Err() = %v, want one containing %q", err, tt.want)
			}
			if tr := c.Trace(); !strings.Contains(tr[len(tr)-1], "INVARIANT BROKEN") {
				t.Fatalf("trace does not end with the violation: %q", tr[len(tr)-1])
			}
			// A broken cluster does not run on.
			at := c.Now()
			c.Run(time.Second)
			if !c.Now().Equal(at) {
				t.Fatalf("the run went on after a violation")
			}
		})
	}
}
