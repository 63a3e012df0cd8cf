package sim

import (
	"errors"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// ErrInvariant wraps every invariant violation returned by Err.
var ErrInvariant = errors.New("sim: invariant broken")

// epochKey names one epoch of one master.
type epochKey struct {
	master string
	epoch  uint64
}

// invariants is what the checks remember across steps.
type invariants struct {
	maxEpoch    map[string]uint64              // node → highest current epoch seen
	votes       map[string]map[epochKey]string // node → its vote in (master, epoch)
	leaderEpoch map[string]map[string]uint64   // node → master → persisted leader epoch
	leaders     map[epochKey]string            // (master, epoch) → node elected leader
	configAddr  map[epochKey]settings.Addr     // (master, config epoch ≥ 1) → master address
	configFrom  map[epochKey]string            // who first reported configAddr
	promoted    map[epochKey]settings.Addr     // (master, config epoch) → the replica promoted in it
	promotedBy  map[epochKey]string            // who promoted it
	persistedCE map[string]map[string]uint64   // node → master → highest config epoch it persisted
	initial     map[string]settings.Addr       // master → the address the Sentinels started with (checkDemotion)
	handovers   []handover                     // coordinated handovers of the current step, to check
	handed      HandoverStats                  // the handovers checked so far
}

func newInvariants() invariants {
	return invariants{
		maxEpoch:    map[string]uint64{},
		votes:       map[string]map[epochKey]string{},
		leaderEpoch: map[string]map[string]uint64{},
		leaders:     map[epochKey]string{},
		configAddr:  map[epochKey]settings.Addr{},
		configFrom:  map[epochKey]string{},
		promoted:    map[epochKey]settings.Addr{},
		promotedBy:  map[epochKey]string{},
		persistedCE: map[string]map[string]uint64{},
		initial:     map[string]settings.Addr{},
	}
}

// failoverActs are the events a leader emits while it carries out its
// failover; each must come from a failover whose epoch is not older than
// a config epoch the node has persisted for that master.
var failoverActs = map[event.Type]bool{
	event.SelectedSlave: true, event.StateSendSlaveofNoone: true,
	event.StateWaitPromotion: true, event.PromotedSlave: true,
	event.StateReconfSlaves: true, event.SlaveReconfSent: true,
	event.SlaveReconfSentBE: true, event.FailoverEnd: true, event.FailoverEndForTimeout: true,
}

// observeEvent checks the events that carry votes and elections: a node
// never votes for two run ids in one epoch of one master, one epoch of
// one master elects at most one leader, and a leader has the votes of a
// majority of the Sentinels that run (checkMajorityVotes).
func (c *Cluster) observeEvent(n *Node, e event.Event) {
	if failoverActs[e.Type] || (e.Type == event.SwitchMaster && c.leaderSwitch(n, e.Master)) {
		p, _ := n.Core.FailoverProgress(e.Master)
		if persisted := c.inv.persistedCE[n.Name][e.Master]; p.Epoch < persisted {
			c.fail("%s: %s from its failover of epoch %d after persisting config epoch %d", n.Name, e, p.Epoch, persisted)
			return
		}
	}
	switch e.Type {
	case event.VoteForLeader:
		f := strings.Fields(e.Msg)
		if len(f) != 2 {
			c.fail("%s: malformed %s", n.Name, e)
			return
		}
		epoch, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			c.fail("%s: malformed %s", n.Name, e)
			return
		}
		k := epochKey{e.Master, epoch}
		votes := c.inv.votes[n.Name]
		if votes == nil {
			votes = map[epochKey]string{}
			c.inv.votes[n.Name] = votes
		}
		if prev, ok := votes[k]; ok && !strings.EqualFold(prev, f[0]) {
			c.fail("%s voted twice in epoch %d of %s: for %s, then for %s", n.Name, epoch, e.Master, prev, f[0])
			return
		}
		votes[k] = f[0]
	case event.PromotedSlave:
		p, ok := n.Core.FailoverProgress(e.Master)
		if !ok || !p.HasPromoted {
			c.fail("%s: %s with no promoted replica in its state", n.Name, e)
			return
		}
		k := epochKey{e.Master, p.ConfigEpoch}
		if prev, ok := c.inv.promoted[k]; ok && prev != p.Promoted {
			c.fail("config epoch %d of %s promoted two replicas: %s:%d (%s) and %s:%d (%s)", k.epoch, k.master,
				prev.Host, prev.Port, c.inv.promotedBy[k], p.Promoted.Host, p.Promoted.Port, n.Name)
			return
		}
		c.inv.promoted[k] = p.Promoted
		c.inv.promotedBy[k] = n.Name
	case event.ElectedLeader:
		k := epochKey{e.Master, electionEpoch(n, e.Master)}
		if prev, ok := c.inv.leaders[k]; ok && prev != n.Name {
			c.fail("two leaders in epoch %d of %s: %s and %s", k.epoch, k.master, prev, n.Name)
			return
		}
		c.inv.leaders[k] = n.Name
		c.checkMajorityVotes(n, e.Master, k.epoch)
	}
}

// electionEpoch is the epoch n was just elected in for master: its
// failover's, which an election won sets to the epoch whose votes
// elected it (election.Elect), and which the current epoch may already
// have passed when the event is observed (another master's election
// started later in the same step raises it); or the current epoch when
// no failover of n runs (an event the invariants' tests inject).
func electionEpoch(n *Node, master string) uint64 {
	if p, ok := n.Core.FailoverProgress(master); ok && p.InProgress {
		return p.Epoch
	}
	return n.Core.CurrentEpoch()
}

// leaderSwitch reports whether a +switch-master of n ends n's own
// failover (rather than following another Sentinel's hello).
func (c *Cluster) leaderSwitch(n *Node, master string) bool {
	p, ok := n.Core.FailoverProgress(master)
	return ok && p.InProgress && p.State == "update_config"
}

// checkNode runs the per-step checks of one node: its current epoch never
// goes back (across restarts too), and, as ViewCheckEvery says, the checks
// that read its views, the first of them that the View the core keeps up
// to date shows what one built from scratch shows.
func (c *Cluster) checkNode(n *Node) {
	if n.crashed {
		return
	}
	ep := n.Core.CurrentEpoch()
	if prev := c.inv.maxEpoch[n.Name]; ep < prev {
		c.fail("%s: current epoch went back from %d to %d", n.Name, prev, ep)
		return
	}
	c.inv.maxEpoch[n.Name] = ep
	every := c.opts.ViewCheckEvery
	// A stalled node's state waits for what reaches it meanwhile (a
	// reply, a closed link): its views are checked once it resumes and
	// has taken all of that (its timer may run first at the resumption,
	// as a resumed process's may).
	if !n.stalled() && n.deferred == 0 && (every == 1 || (n.ticked && n.steps%every == 0)) {
		if err := n.Core.CheckView(n.Now()); err != nil {
			c.fail("%s: %v", n.Name, err)
			return
		}
		c.checkViews(n)
	}
	n.ticked = false
}

// checkPersisted checks a snapshot just written: no master's leader epoch
// (our last vote) goes back.
func (c *Cluster) checkPersisted(n *Node) {
	le := c.inv.leaderEpoch[n.Name]
	if le == nil {
		le = map[string]uint64{}
		c.inv.leaderEpoch[n.Name] = le
	}
	ce := c.inv.persistedCE[n.Name]
	if ce == nil {
		ce = map[string]uint64{}
		c.inv.persistedCE[n.Name] = ce
	}
	for _, m := range n.Disk.Masters {
		if m.ConfigEpoch > ce[m.Name] {
			ce[m.Name] = m.ConfigEpoch
		}
		if m.LeaderEpoch < le[m.Name] {
			c.fail("%s: persisted leader epoch of %s went back from %d to %d", n.Name, m.Name, le[m.Name], m.LeaderEpoch)
			return
		}
		le[m.Name] = m.LeaderEpoch
	}
}

// checkViews reads a node's SENTINEL MASTER/REPLICAS/SENTINELS views:
// link-pending-commands is never negative and equals the commands the
// simulator carries for that address with no reply delivered yet; and
// every node that holds config epoch E ≥ 1 of a master names the same
// master address for it.
func (c *Cluster) checkViews(n *Node) {
	now := n.Now()
	pending := map[settings.Addr]int{}
	sentinels := map[string]bool{}
	add := func(kv []view.KV) bool {
		p, err := strconv.Atoi(Field(kv, "link-pending-commands"))
		port, err2 := strconv.Atoi(Field(kv, "port"))
		if err != nil || err2 != nil || p < 0 {
			c.fail("%s: bad link-pending-commands %q of %s", n.Name, Field(kv, "link-pending-commands"), Field(kv, "name"))
			return false
		}
		pending[settings.Addr{Host: Field(kv, "ip"), Port: port}] += p
		return true
	}
	for _, name := range n.Core.View().MasterNames() {
		mkv, err := n.Core.View().Master(now, name)
		if err != nil || !add(mkv) {
			return
		}
		ce, _ := strconv.ParseUint(Field(mkv, "config-epoch"), 10, 64)
		if ce > 0 {
			a, _ := n.Core.View().MasterAddr(name)
			k := epochKey{name, ce}
			if prev, ok := c.inv.configAddr[k]; !ok {
				c.inv.configAddr[k] = a
				c.inv.configFrom[k] = n.Name
			} else if prev != a {
				c.fail("config epoch %d of %s names two masters: %s:%d (%s) and %s:%d (%s)", ce, name,
					prev.Host, prev.Port, c.inv.configFrom[k], a.Host, a.Port, n.Name)
				return
			}
		}
		reps, _ := n.Core.View().Replicas(now, name)
		for _, kv := range reps {
			if !add(kv) {
				return
			}
		}
		sents, _ := n.Core.View().Sentinels(now, name)
		for _, kv := range sents {
			if id := Field(kv, "runid"); sentinels[id] {
				continue // a link shared by several masters counts once
			} else {
				sentinels[id] = true
			}
			if !add(kv) {
				return
			}
		}
	}
	carried := map[settings.Addr]int{}
	for _, cn := range n.conns {
		if cn.kind == msg.CmdLink {
			carried[cn.addr] += len(cn.outstanding)
		}
	}
	for a, v := range pending {
		if carried[a] != v {
			c.fail("%s: link-pending-commands for %s:%d is %d but %d commands are unanswered on the wire",
				n.Name, a.Host, a.Port, v, carried[a])
			return
		}
	}
}

// handover is one coordinated handover a server completed: the old
// master that ran FAILOVER TO and the target that promoted itself when
// the old master's PSYNC FAILOVER reached it.
type handover struct{ from, to *Server }

// HandoverStats counts the coordinated handovers the servers of a
// Cluster completed (each target that became master by a FAILOVER TO),
// the acknowledged writes the invariant checked on their new masters
// (a write once per handover), and those it found missing.
type HandoverStats struct {
	Completed     int
	WritesChecked int
	WritesLost    int
}

// Handovers returns the coordinated handovers completed so far and what
// checking them found.
func (c *Cluster) Handovers() HandoverStats { return c.inv.handed }

// recordHandover notes that the target to has just promoted itself on
// the PSYNC FAILOVER of from, for checkHandovers to check at the end of
// the step.
func (c *Cluster) recordHandover(from, to *Server) {
	c.inv.handovers = append(c.inv.handovers, handover{from, to})
}

// checkHandovers is the invariant of coordinated failovers: a
// coordinated handover loses no acknowledged write. At the end of the
// step in which the target of a server's FAILOVER TO promoted itself,
// every write a Writer had acknowledged by then (from the old master or
// from an earlier one) that the old master still holds must be on the
// target. A write the old master no longer holds was lost before the
// handover, by another fault (a crash, a partition, a plain failover),
// and is not the handover's to keep. FORCE handovers are checked too:
// Sentinel never sends FORCE, and one that did could lose writes.
func (c *Cluster) checkHandovers() {
	pending := c.inv.handovers
	c.inv.handovers = nil
	for _, h := range pending {
		c.inv.handed.Completed++
		for _, w := range c.writers {
			var lost []Ack
			for _, a := range w.acks {
				if _, held := h.from.data.kv[a.Key]; !held {
					continue
				}
				c.inv.handed.WritesChecked++
				if _, ok := h.to.data.kv[a.Key]; !ok {
					lost = append(lost, a)
				}
			}
			if len(lost) > 0 {
				c.inv.handed.WritesLost += len(lost)
				c.fail("coordinated handover from %s to %s lost %d acknowledged writes of %s that %s held: %s",
					h.from.Name, h.to.Name, len(lost), w.Name, h.from.Name, c.ackList(lost))
				return
			}
		}
	}
}

// checkConns checks that no command is lost: a connected link whose two
// directions are empty has every Send answered, but for the commands a
// paused server holds.
func (c *Cluster) checkConns() {
	for _, cn := range c.conns {
		if !cn.up {
			if len(cn.outstanding) != len(cn.queued) {
				c.fail("%s: %d commands outstanding before connect but %d queued", cn.label, len(cn.outstanding), len(cn.queued))
				return
			}
			continue
		}
		if len(cn.pipes[upstream].q) == 0 && len(cn.pipes[downstream].q) == 0 && len(cn.outstanding) > len(cn.held) {
			c.fail("%s: %d commands never answered and the link is still open", cn.label, len(cn.outstanding)-len(cn.held))
			return
		}
	}
}

// Field returns the value of key in an instance map, or "".
func Field(kv []view.KV, key string) string {
	for _, f := range kv {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}
