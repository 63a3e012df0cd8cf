package sim_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/sim"
	"github.com/go-sentinel/go-sentinel/internal/transcript"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// TestFleetTranscripts runs the transcripts in testdata/fleet: each drives
// a whole simulated fleet (Sentinel cores, modelled Redis servers, the
// network between them) and lists what came out, so a fleet behaviour
// reads as a transcript rather than as code.
//
// The file format is the one of internal/monitor's TestInteractions: a
// command line, optional input lines, a `----` line, then the expected
// output up to a blank line; lines starting with # outside blocks are
// comments. No command takes input lines. The commands:
//
//	fleet [seed=N] [sentinels=3] [replicas=2] [quorum=2] [down-after=5s]
//	      [failover-timeout=D] [master=m] [accel=redis|default] [proxy=yes]
//	                                  a fresh sim.Standard cluster, run until every
//	                                  Sentinel knows every replica and Sentinel, with
//	                                  every link up; proxy=yes gives every Sentinel a
//	                                  master-following proxy
//	run DURATION [types=T,...] [skip=T,...] [node=N,...] [until=T] [time]
//	                                  advance the clock; prints the events emitted,
//	                                  `<node>: <type> <msg>`; types/skip keep/drop
//	                                  event types (a trailing * matches a prefix);
//	                                  until stops after the first event of type T
//	                                  (of the nodes kept); time prefixes each line
//	                                  with its offset from the fleet command
//	kill-master                       crash the running master server
//	kill NAME / crash-sentinel NODE   crash a server or a Sentinel
//	restart NAME                      restart a server, or a Sentinel from its disk
//	partition A,B | C,D               cut the network between two groups
//	block A,B -> C,D                  cut it one way, packets only (sim.Cluster.Block)
//	cut-oneway A,B -> C,D             cut the connections A and B open to C and D
//	                                  (sim.Cluster.CutOneWay: C and D still reach A, B)
//	heal-oneway A,B -> C,D            remove that cut alone
//	isolate NAME / heal               cut one endpoint off / remove every cut
//	clock-jump NODE DURATION          move a Sentinel's clock
//	ping-error SERVER [TEXT...]       the server answers PING with TEXT ("" = PONG)
//	server NAME IP:PORT [replicaof=S] add a modelled Redis server
//	sentinel NODE|* SUBCOMMAND ARGS...
//	                                  a client's SENTINEL command to one Sentinel (or
//	                                  every one); prints the reply, then the events
//	                                  the command emitted; the subcommands are those
//	                                  of clientCommand; "" is an empty argument
//	masters [NODE...]                 the address each Sentinel gives for each master
//	                                  (GET-MASTER-ADDR-BY-NAME)
//	master NODE|* NAME                the same for one master
//	replicas NODE MASTER / sentinels NODE MASTER
//	                                  the SENTINEL REPLICAS / SENTINELS views, shortly
//	explain NODE MASTER [full]        SENTINEL EXPLAIN: the stage, why, election and
//	                                  failover lines; full prints every line
//	servers                           each server's role
//	proxies                           where each Sentinel's proxy forwards, or why it
//	                                  is fenced
//	epochs                            each Sentinel's current and config epochs (a
//	                                  crashed one's, from its disk)
//	invariants                        "ok", or the simulator's broken invariant
//
// NODE may be `leader`, the Sentinel that last emitted +elected-leader,
// or `crashed`, the first Sentinel that is down; a server NAME may be
// `master`, the first running master. In every output a Sentinel's run
// id is printed as its node name. A broken invariant fails the test even
// with -rewrite. FLEET_TRACE=1 logs the simulator's trace of each file's
// last fleet.
func TestFleetTranscripts(t *testing.T) {
	transcript.Glob(t, "testdata/fleet/*.txt", func(t *testing.T, path string) {
		t.Parallel()
		runFleetFile(t, path)
	})
}

// recorder is the sim.TB of a transcript's cluster: it keeps the first
// failure (a broken invariant, with the trace) so that the transcript can
// print it, and the test fails after the command that broke it.
type recorder struct{ msg string }

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	if r.msg == "" {
		r.msg = fmt.Sprintf(format, args...)
	}
}

// fleet is the state of one transcript.
type fleet struct {
	t        *testing.T
	c        *sim.Cluster
	rec      *recorder
	master   string // the master name of the fleet command
	reported bool   // the recorded failure was reported
}

func runFleetFile(t *testing.T, path string) {
	f := &fleet{t: t}
	transcript.Run(t, path, func(b transcript.Block) []string {
		if len(b.Input) > 0 {
			t.Fatalf("%s:%d: %s takes no input lines", b.Path, b.Line, b.Cmd)
		}
		got := f.run(b.Cmd)
		if f.rec != nil && f.rec.msg != "" && !f.reported {
			f.reported = true
			t.Errorf("%s:%d: %s: %s", b.Path, b.Line, b.Cmd, f.rec.msg)
		}
		return got
	})
	if os.Getenv("FLEET_TRACE") != "" && f.c != nil {
		t.Logf("trace of the last fleet of %s:\n%s", path, f.c.TraceString())
	}
}

func (f *fleet) fatalf(format string, args ...any) {
	f.t.Helper()
	f.t.Fatalf(format, args...)
}

// run carries out one command line and returns its output lines.
func (f *fleet) run(line string) []string {
	fields := strings.Fields(line)
	cmd, args := fields[0], fields[1:]
	if cmd != "fleet" && f.c == nil {
		f.fatalf("%q before fleet", line)
	}
	c := f.c
	switch cmd {
	case "fleet":
		return f.newFleet(args)
	case "run":
		return f.runFor(args)
	case "kill-master":
		if s := c.KillMaster(); s != nil {
			return []string{s.Name + " crashed"}
		}
		return []string{"no master is running"}
	case "kill", "crash-sentinel":
		f.want(line, args, 1)
		name := f.endpoint(args[0])
		if cmd == "crash-sentinel" && c.Node(name) == nil {
			f.fatalf("%s: %s is not a Sentinel", line, name)
		}
		c.Crash(name)
		return []string{name + " crashed"}
	case "restart":
		f.want(line, args, 1)
		name := f.endpoint(args[0])
		c.Restart(name)
		if n := c.Node(name); n != nil {
			return []string{fmt.Sprintf("%s restarted from its disk: current-epoch %d", name, n.Core.CurrentEpoch())}
		}
		return []string{name + " restarted"}
	case "partition", "block", "cut-oneway", "heal-oneway":
		sep := "->"
		if cmd == "partition" {
			sep = "|"
		}
		a, b, ok := strings.Cut(strings.Join(args, " "), sep)
		if !ok {
			f.fatalf("%s: want A,B %s C,D", line, sep)
		}
		ga, gb := f.group(a), f.group(b)
		switch cmd {
		case "partition":
			c.Partition(ga, gb)
		case "block":
			c.Block(ga, gb)
		case "cut-oneway":
			c.CutOneWay(ga, gb)
		default:
			c.HealOneWay(ga, gb)
		}
	case "isolate":
		f.want(line, args, 1)
		name := f.endpoint(args[0])
		c.Isolate(name)
		return []string{name + " isolated"}
	case "heal":
		c.Heal()
	case "clock-jump":
		f.want(line, args, 2)
		c.ClockJump(f.node(args[0]).Name, f.duration(args[1]))
	case "ping-error":
		if len(args) == 0 {
			f.fatalf("%s: want a server", line)
		}
		c.SetPingError(f.server(args[0]).Name, strings.Trim(strings.Join(args[1:], " "), `"`))
	case "server":
		return f.addServer(line, args)
	case "sentinel":
		return f.sentinel(line, args)
	case "masters", "master":
		return f.masters(line, cmd, args)
	case "replicas", "sentinels":
		f.want(line, args, 2)
		return f.instances(cmd, f.node(args[0]), args[1])
	case "explain":
		if len(args) < 2 {
			f.fatalf("%s: want NODE MASTER", line)
		}
		return f.explain(f.node(args[0]), args[1], len(args) > 2 && args[2] == "full")
	case "servers":
		return f.servers()
	case "proxies":
		return f.proxies()
	case "epochs":
		return f.epochs()
	case "invariants":
		if err := c.Err(); err != nil {
			return []string{err.Error()}
		}
		return []string{"ok"}
	default:
		f.fatalf("unknown command %q", line)
	}
	return nil
}

// sentinel is the sentinel command: the reply of clientCommand on one
// node or every node, then the events each command emitted.
func (f *fleet) sentinel(line string, args []string) []string {
	c := f.c
	if len(args) < 2 {
		f.fatalf("%s: want NODE SUBCOMMAND", line)
	}
	for k, a := range args {
		if a == `""` {
			args[k] = "" // an empty argument
		}
	}
	nodes := c.Nodes()
	if args[0] != "*" {
		nodes = []*sim.Node{f.node(args[0])}
	}
	ids := f.ids()
	var out []string
	for _, n := range nodes {
		from := len(c.Events())
		for _, l := range clientCommand(c, n.Name, args[1:]) {
			if args[0] == "*" {
				l = n.Name + ": " + l
			}
			out = append(out, ids.Replace(l))
		}
		for _, e := range c.Events()[from:] {
			out = append(out, e.Node+": "+ids.Replace(e.String()))
		}
	}
	return out
}

// newFleet builds a standard cluster and settles it.
func (f *fleet) newFleet(args []string) []string {
	o := sim.Options{Seed: 1}
	var top sim.Topology
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "seed":
			o.Seed = int64(f.num(v))
		case "sentinels":
			top.Sentinels = f.num(v)
		case "replicas":
			top.Replicas = f.num(v)
			if top.Replicas == 0 {
				top.Replicas = -1 // Topology's "none"
			}
		case "quorum":
			top.Quorum = f.num(v)
		case "down-after":
			top.DownAfter = f.duration(v)
		case "failover-timeout":
			top.FailoverTimeout = f.duration(v)
		case "master":
			top.MasterName = v
		case "accel":
			if v == "redis" {
				o.Accel = &settings.Accel{}
			}
		case "proxy":
			top.Proxy = v == "yes"
		default:
			f.fatalf("fleet: unknown option %q", a)
		}
	}
	f.rec = &recorder{}
	f.reported = false
	f.c = sim.StandardWith(f.rec, o, top)
	f.master = top.MasterName
	if f.master == "" {
		f.master = "m"
	}
	c := f.c
	replicas, others := len(c.Servers())-1, len(c.Nodes())-1
	settled := c.RunUntil(func() bool {
		for _, n := range c.Nodes() {
			if !f.settled(n, replicas, others) {
				return false
			}
		}
		return true
	}, 30*time.Second)
	out := f.servers()
	for _, n := range c.Nodes() {
		out = append(out, fmt.Sprintf("%s sentinel %s:%d", n.Name, n.IP, n.Port))
	}
	if !settled {
		return append(out, "not settled after 30s")
	}
	return append(out, "settled at "+f.offset(c.Now()))
}

// settled reports whether n knows the fleet master's replicas and other
// Sentinels, with every link up.
func (f *fleet) settled(n *sim.Node, replicas, others int) bool {
	now := n.Now()
	reps, err1 := n.Core.View().Replicas(now, f.master)
	sents, err2 := n.Core.View().Sentinels(now, f.master)
	kv, err3 := n.Core.View().Master(now, f.master)
	if err1 != nil || err2 != nil || err3 != nil || len(reps) != replicas || len(sents) != others {
		return false
	}
	for _, kv := range append(append(reps, sents...), kv) {
		if strings.Contains(sim.Field(kv, "flags"), "disconnected") {
			return false
		}
	}
	return true
}

// runFor is the run command.
func (f *fleet) runFor(args []string) []string {
	c := f.c
	if len(args) == 0 {
		f.fatalf("run: want a duration")
	}
	d := f.duration(args[0])
	var types, skip, nodes []string
	var until string
	stamp := false
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "types":
			types = strings.Split(v, ",")
		case "skip":
			skip = strings.Split(v, ",")
		case "node":
			for _, n := range strings.Split(v, ",") {
				nodes = append(nodes, f.node(n).Name)
			}
		case "until":
			until = v
		case "time":
			stamp = true
		default:
			f.fatalf("run: unknown option %q", a)
		}
	}
	kept := func(e sim.EventRecord) bool {
		return (len(nodes) == 0 || contains(nodes, e.Node)) && (len(types) == 0 || matchType(types, e.Type)) && !matchType(skip, e.Type)
	}
	from := len(c.Events())
	reached := true
	if until != "" {
		before := len(c.EventsOf("", event.Type(until)))
		reached = c.RunUntil(func() bool {
			evs := c.EventsOf("", event.Type(until))
			for _, e := range evs[before:] {
				if len(nodes) == 0 || contains(nodes, e.Node) {
					return true
				}
			}
			return false
		}, d)
	} else {
		c.Run(d)
	}
	ids := f.ids()
	var out []string
	for _, e := range c.Events()[from:] {
		if !kept(e) {
			continue
		}
		l := e.Node + ": " + ids.Replace(e.String())
		if stamp {
			l = f.offset(e.At) + " " + l
		}
		out = append(out, l)
	}
	if !reached {
		out = append(out, fmt.Sprintf("no %s within %v", until, d))
	}
	return out
}

// clientCommand carries out SENTINEL <args> as a client connected to node
// would send it, and renders the reply. It is the one place that maps a
// subcommand onto the core: a mutating one is a command input stepped
// through Cluster.Command (which carries out what the core produced), a
// read calls the core's read method. Errors print the core's error text;
// a crashed node refuses the connection.
func clientCommand(c *sim.Cluster, node string, args []string) []string {
	n := c.Node(node)
	if n.Crashed() {
		return []string{"(connection refused)"}
	}
	sub, rest := strings.ToLower(args[0]), args[1:]
	if sub == "config" && len(rest) > 0 {
		sub, rest = "config-"+strings.ToLower(rest[0]), rest[1:]
	}
	arg := func(k int) string {
		if k < len(rest) {
			return rest[k]
		}
		return ""
	}
	from := func(k int) []string { return rest[min(k, len(rest)):] }
	var reply []string
	// step sends a command input to the node; the reads below use its
	// core's read methods directly.
	step := func(in msg.Input) msg.Answer {
		ans, err := c.Command(node, in)
		if err != nil {
			reply = []string{"(error) " + err.Error()}
		} else if reply == nil {
			reply = []string{"OK"}
		}
		return ans
	}
	read := func(err error, lines ...string) {
		if err != nil {
			reply = []string{"(error) " + err.Error()}
			return
		}
		reply = lines
	}
	switch sub {
	case "failover":
		step(msg.Failover{Name: arg(0), Coordinated: strings.EqualFold(arg(1), "coordinated")})
	case "set":
		step(msg.Set{Name: arg(0), Args: from(1), Executables: msg.Executables{}})
	case "monitor":
		port, _ := strconv.Atoi(arg(2))
		quorum, _ := strconv.Atoi(arg(3))
		step(msg.Monitor{Name: arg(0), Host: arg(1), Port: port, Quorum: quorum})
	case "remove":
		step(msg.Remove{Name: arg(0)})
	case "reset":
		reply = []string{fmt.Sprintf("(integer) %d", step(msg.Reset{Pattern: arg(0)}))}
	case "config-set":
		step(msg.ConfigSet{Args: rest})
	case "config-get":
		read(nil, kvLines(n.Core.ConfigGet(rest))...)
	case "flushconfig":
		step(msg.FlushConfig{})
	case "is-master-down-by-addr":
		runID := arg(3)
		if p := c.Node(runID); p != nil {
			runID = p.Core.MyID() // a node name stands for its run id
		}
		req, err := gossip.ParseAskRequest(arg(0), arg(1), arg(2), runID)
		if err != nil {
			read(err)
			break
		}
		if ans := step(msg.IsMasterDownByAddr{Request: req}); ans != nil {
			down, leader, epoch := ans.(gossip.AskReply).Elements()
			reply = []string{fmt.Sprintf("down %d leader %s epoch %d", down, leader, epoch)}
		}
	case "simulate-failure":
		if step(msg.SimulateFailure{Names: rest}) == msg.SimulateFailureHelp(true) {
			reply = []string{"crash-after-election", "crash-after-promotion"}
		}
	case "debug":
		if len(rest) == 0 {
			read(nil, kvLines(n.Core.DebugValues())...)
		} else {
			step(msg.Debug{Args: rest})
		}
	case "ckquorum":
		ck, err := n.Core.View().CheckQuorum(arg(0))
		read(err, fmt.Sprintf("OK %d usable Sentinels", ck.Usable))
	default:
		return []string{"(error) unknown subcommand " + args[0]}
	}
	return reply
}

// kvLines renders a list of parameters, one `name value` a line ("" for
// an empty value).
func kvLines(kv []view.KV) []string {
	out := []string{}
	for _, p := range kv {
		v := p.Value
		if v == "" {
			v = `""`
		}
		out = append(out, p.Key+" "+v)
	}
	if len(out) == 0 {
		out = append(out, "(empty)")
	}
	return out
}

// addServer is the server command.
func (f *fleet) addServer(line string, args []string) []string {
	if len(args) < 2 {
		f.fatalf("%s: want NAME IP:PORT [replicaof=S]", line)
	}
	a := f.addr(args[1])
	if len(args) > 2 {
		m, ok := strings.CutPrefix(args[2], "replicaof=")
		if !ok {
			f.fatalf("%s: unknown option %q", line, args[2])
		}
		f.c.AddReplica(args[0], a, f.server(m))
		return nil
	}
	f.c.AddServer(args[0], a)
	return nil
}
