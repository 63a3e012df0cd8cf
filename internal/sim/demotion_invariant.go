package sim

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// checkDemotion is the invariant of the conversion of returning masters
// (issue 41): no Sentinel sends SLAVEOF <host> <port> to the master of
// the newest configuration of a master name, the replica promoted in
// the highest config epoch any Sentinel announced +promoted-slave for
// (or, before any promotion, the master the Sentinels were started
// with). Converting it would demote the real master; docs/proxy.md
// gives the argument that go-sentinel's conversion at first contact
// never does, and Redis's wait before converting exists for the same
// reason. It is checked at the Send, since what the argument covers is
// the decision, not when the command arrives.
func (c *Cluster) checkDemotion(n *Node, cn *conn, a msg.Send) {
	if len(a.Args) != 3 || !strings.EqualFold(a.Args[0], "SLAVEOF") || strings.EqualFold(a.Args[1], "NO") || cn.toSrv == nil {
		return
	}
	target := cn.toSrv.Addr
	for name, newest := range c.newestMasters() {
		if newest == target {
			why := "no conversion recorded (a failover's reconfiguration)"
			if e, err := n.Core.Explain(n.Now(), name); err == nil {
				for _, cv := range e.Conversions {
					if cv.Name == target.String() && cv.DecidedMs == 0 {
						why = fmt.Sprintf("its conversion (%s): %s", cv.Branch, cv.Why)
					}
				}
			}
			c.fail("%s sent SLAVEOF %s %s to %s (%s:%d), the master of the newest configuration of %s (config epoch %d); %s",
				n.Name, a.Args[1], a.Args[2], cn.toSrv.Name, target.Host, target.Port, name, c.newestEpoch(name), why)
			return
		}
	}
}

// newestMasters returns, by master name, the address of the master of
// its newest configuration (see checkDemotion).
func (c *Cluster) newestMasters() map[string]settings.Addr {
	out := make(map[string]settings.Addr, len(c.inv.initial))
	for name, a := range c.inv.initial {
		out[name] = a
	}
	best := map[string]uint64{}
	for k, a := range c.inv.promoted {
		if _, seen := best[k.master]; !seen || k.epoch > best[k.master] {
			best[k.master] = k.epoch
			out[k.master] = a
		}
	}
	return out
}

// newestEpoch is the config epoch of master name's newest configuration
// (0: the one the Sentinels started with).
func (c *Cluster) newestEpoch(name string) uint64 {
	var e uint64
	for k := range c.inv.promoted {
		if k.master == name && k.epoch > e {
			e = k.epoch
		}
	}
	return e
}

// noteInitialMasters records the masters a Sentinel's start-up
// configuration names at config epoch 0, the first time each name is
// seen.
func (c *Cluster) noteInitialMasters(p settings.Persisted) {
	for _, m := range p.Masters {
		if _, ok := c.inv.initial[m.Name]; !ok && m.ConfigEpoch == 0 {
			c.inv.initial[m.Name] = m.Addr
		}
	}
}
