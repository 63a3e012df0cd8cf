package monitor_test

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
	"github.com/go-sentinel/go-sentinel/internal/transcript"
)

// TestInteractions runs the transcripts in testdata/interactions: each
// drives one core only through New, Step, Tick and Ready and lists what
// came out, so a behaviour reads as a transcript rather than as code.
//
// A file is a sequence of blocks: a command line, optional input lines,
// a `----` line, then the expected output up to a blank line. Lines
// starting with # outside blocks are comments. The commands:
//
//	new [seed=N] [accel=redis|default]   config lines follow (sentinel.conf syntax)
//	tick [DURATION]                      advance the clock (default 100ms), then Tick
//	run DURATION [every=D]               tick every D (100ms) for DURATION; prints everything
//	elapse DURATION                      advance the clock without ticking (a stall)
//	jump DURATION                        step the wall clock alone (TILT's), as NTP or date -s
//	connected LINK...                    LinkConnected
//	local LINK IP:PORT                   LinkLocalAddr
//	closed LINK [REASON...]              LinkClosed
//	reply LINK TAG KIND [VALUE...]       CommandReply; KIND is status, error, int, nil, array (empty),
//	                                     ask DOWN LEADER EPOCH, exec (VALUE: ok, err or a number per
//	                                     command of the transaction), or info (VALUE: key:value pairs,
//	                                     written as INFO replication lines)
//	pong LINK...                         from now on every PING sent on LINK is answered PONG at once, and
//	                                     a pub/sub LINK has activity at every tick
//	healthy LINK...                      as pong, and every INFO is answered role:master at once (a
//	                                     healthy master without replicas, master_replid 4444...)
//	message LINK PAYLOAD                 PubSubMessage on the hello channel
//	hello PAYLOAD                        HelloFromClient (PUBLISH to our port)
//	failover MASTER [coordinated]        SENTINEL FAILOVER [COORDINATED]
//	is-master-down IP PORT EPOCH RUNID   SENTINEL IS-MASTER-DOWN-BY-ADDR; prints the reply
//	script-started ID PID / script-exited ID [code=N] [signal=N] [start-failed]
//	explain MASTER                       prints SENTINEL EXPLAIN's text
//	resolved HOST IP                     HostResolved (a link dialed HOST and found IP)
//	debug NAME VALUE...                  SENTINEL DEBUG (timings, such as info-period in ms)
//	replicas MASTER                      prints SENTINEL REPLICAS: name, ip, port, flags of each
//	master MASTER                        prints SENTINEL MASTER's name, ip, port and flags
//	addr MASTER                          prints SENTINEL GET-MASTER-ADDR-BY-NAME
//
// Every command but explain prints the Ready that followed it: log lines
// (level char, text; an event's line is printed as `event`), then the
// actions.
func TestInteractions(t *testing.T) {
	transcript.Glob(t, "testdata/interactions/*.txt", runInteractionFile)
}

// interactionStart is the clock of every transcript's first instant.
var interactionStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type interaction struct {
	t   *testing.T
	s   *monitor.Sentinel
	now time.Time
	// wallOffset is the wall clock minus the core's (monotonic) clock:
	// the sum of the jumps.
	wallOffset time.Duration
	// answered are the links whose PINGs (pong) or PINGs and INFOs
	// (healthy) are answered at once.
	answered map[msg.LinkID]string
}

func runInteractionFile(t *testing.T, path string) {
	in := &interaction{t: t, now: interactionStart}
	transcript.Run(t, path, func(b transcript.Block) []string { return in.run(b.Cmd, b.Input) })
}

// healthyReplID is the master_replid of a healthy master's INFO
// (healthy).
const healthyReplID = "4444444444444444444444444444444444444444"

// tick runs the core's Tick at the current instant, the pub/sub links
// answered (pong) showing activity first.
func (in *interaction) tick() {
	for id := range in.answered {
		if _, err := in.s.Step(in.now, msg.PubSubActivity{ID: id}); err != nil {
			in.fatalf("activity L%d: %v", id, err)
		}
	}
	in.s.Tick(in.now, in.now.Add(in.wallOffset))
}

func (in *interaction) fatalf(format string, args ...any) {
	in.t.Helper()
	in.t.Fatalf(format, args...)
}

// run carries out one command and returns its output lines.
func (in *interaction) run(line string, input []string) []string {
	f := strings.Fields(line)
	cmd, args := f[0], f[1:]
	if cmd != "new" && in.s == nil {
		in.fatalf("%q before new", line)
	}
	step := func(v msg.Input) {
		if _, err := in.s.Step(in.now, v); err != nil {
			in.fatalf("%s: %v", line, err)
		}
	}
	switch cmd {
	case "new":
		// A new process's clock starts at the wall clock.
		in.now, in.wallOffset = in.now.Add(in.wallOffset), 0
		in.answered = nil
		in.newCore(args, input)
	case "tick":
		d := 100 * time.Millisecond
		if len(args) > 0 {
			d = in.duration(args[0])
		}
		in.now = in.now.Add(d)
		in.tick()
	case "run":
		every := 100 * time.Millisecond
		for _, a := range args[1:] {
			if v, ok := strings.CutPrefix(a, "every="); ok {
				every = in.duration(v)
			}
		}
		var out []string
		for end := in.now.Add(in.duration(args[0])); in.now.Before(end); {
			in.now = in.now.Add(every)
			in.tick()
			out = append(out, in.ready()...)
		}
		return out
	case "elapse":
		in.now = in.now.Add(in.duration(args[0]))
	case "jump":
		in.wallOffset += in.duration(args[0])
	case "connected":
		for _, a := range args {
			step(msg.LinkConnected{ID: in.link(a)})
		}
	case "local":
		step(msg.LinkLocalAddr{ID: in.link(args[0]), Addr: in.addr(args[1])})
	case "closed":
		step(msg.LinkClosed{ID: in.link(args[0]), Err: strings.Join(args[1:], " ")})
	case "reply":
		step(msg.CommandReply{ID: in.link(args[0]), Tag: uint64(in.num(strings.TrimPrefix(args[1], "#"))), Reply: in.reply(args[2:])})
	case "pong", "healthy":
		if in.answered == nil {
			in.answered = map[msg.LinkID]string{}
		}
		for _, a := range args {
			in.answered[in.link(a)] = cmd
		}
	case "message":
		step(msg.PubSubMessage{ID: in.link(args[0]), Channel: gossip.Channel, Payload: args[1]})
	case "hello":
		step(msg.HelloFromClient{Payload: args[0]})
	case "failover":
		coordinated := len(args) > 1 && args[1] == "coordinated"
		if _, err := in.s.Step(in.now, msg.Failover{Name: args[0], Coordinated: coordinated}); err != nil {
			return append([]string{"error " + err.Error()}, in.ready()...)
		}
	case "is-master-down":
		req, err := gossip.ParseAskRequest(args[0], args[1], args[2], args[3])
		if err != nil {
			in.fatalf("is-master-down %q: %v", args, err)
		}
		ans, err := in.s.Step(in.now, msg.IsMasterDownByAddr{Request: req})
		if err != nil {
			in.fatalf("is-master-down %q: %v", args, err)
		}
		down, leader, epoch := ans.(gossip.AskReply).Elements()
		return append([]string{fmt.Sprintf("reply %d %s %d", down, leader, epoch)}, in.ready()...)
	case "lease":
		req, err := gossip.ParseLeaseRequest(args)
		if err != nil {
			in.fatalf("lease %q: %v", args, err)
		}
		ans, err := in.s.Step(in.now, msg.Lease{Request: req})
		if err != nil {
			in.fatalf("lease %q: %v", args, err)
		}
		line := "granted"
		for _, g := range ans.(msg.LeaseAnswer) {
			line += map[bool]string{true: " 1", false: " 0"}[g]
		}
		return append([]string{line}, in.ready()...)
	case "script-started":
		step(msg.ScriptStarted{ID: uint64(in.num(args[0])), PID: in.num(args[1])})
	case "script-exited":
		ex := msg.ScriptExited{ID: uint64(in.num(args[0]))}
		for _, a := range args[1:] {
			switch k, v, _ := strings.Cut(a, "="); k {
			case "code":
				ex.ExitCode = in.num(v)
			case "signal":
				ex.Signal = in.num(v)
			case "start-failed":
				ex.StartFailed = true
			}
		}
		step(ex)
	case "set":
		// Quoted as redis-cli quotes: `set m proxy "127.0.0.1 6380"`.
		args, err := splitargs.Split(strings.Join(args, " "))
		if err != nil {
			in.fatalf("%s: %v", line, err)
		}
		if _, err := in.s.Step(in.now, msg.Set{Name: args[0], Args: args[1:]}); err != nil {
			return append([]string{"error " + err.Error()}, in.ready()...)
		}
	case "proxy":
		rt, ok := in.s.View().ProxyRoute(args[0])
		if !ok {
			return []string{"no proxy"}
		}
		if rt.Fenced {
			return []string{fmt.Sprintf("fenced %s:%d hold %v protected %v: %s", rt.Addr.Host, rt.Addr.Port, rt.Hold, rt.Protected, rt.Reason)}
		}
		return []string{fmt.Sprintf("forward %s:%d hold %v protected %v", rt.Addr.Host, rt.Addr.Port, rt.Hold, rt.Protected)}
	case "reset":
		step(msg.Reset{Pattern: args[0]})
	case "reads":
		rt, ok := in.s.View().ReadRoute(args[0])
		if !ok {
			return []string{"no read port"}
		}
		if rt.Fenced {
			return []string{fmt.Sprintf("fenced hold %v protected %v: %s", rt.Hold, rt.Protected, rt.Reason)}
		}
		return []string{fmt.Sprintf("forward %s on-master %v hold %v protected %v", settings.FormatProxyAddrs(rt.Addrs), rt.OnMaster, rt.Hold, rt.Protected)}
	case "fields":
		// SENTINEL MASTER's fields whose name starts with args[1].
		kv, err := in.s.View().Master(in.now, args[0])
		if err != nil {
			return []string{"error " + err.Error()}
		}
		var out []string
		for _, e := range kv {
			if strings.HasPrefix(e.Key, args[1]) {
				out = append(out, e.Key+": "+e.Value)
			}
		}
		return out
	case "resolved":
		step(msg.HostResolved{Host: args[0], IP: args[1]})
	case "debug":
		step(msg.Debug{Args: args})
	case "replicas":
		rs, err := in.s.View().Replicas(in.now, args[0])
		if err != nil {
			return []string{"error " + err.Error()}
		}
		var out []string
		for _, r := range rs {
			f := map[string]string{}
			for _, kv := range r {
				f[kv.Key] = kv.Value
			}
			out = append(out, fmt.Sprintf("%s %s %s %s", f["name"], f["ip"], f["port"], f["flags"]))
		}
		return out
	case "master":
		kv, err := in.s.View().Master(in.now, args[0])
		if err != nil {
			return []string{"error " + err.Error()}
		}
		f := map[string]string{}
		for _, e := range kv {
			f[e.Key] = e.Value
		}
		return []string{fmt.Sprintf("%s %s %s %s", f["name"], f["ip"], f["port"], f["flags"])}
	case "addr":
		a, ok := in.s.View().MasterAddr(args[0])
		if !ok {
			return []string{"nil"}
		}
		return []string{fmt.Sprintf("%s %d", a.Host, a.Port)}
	case "explain":
		e, err := in.s.Explain(in.now, args[0])
		if err != nil {
			return []string{"error " + err.Error()}
		}
		return strings.Split(strings.TrimRight(e.Text(), "\n"), "\n")
	default:
		in.fatalf("unknown command %q", line)
	}
	return in.ready()
}

func (in *interaction) newCore(args, input []string) {
	seed := int64(1)
	accel := settings.DefaultAccel()
	for _, a := range args {
		switch k, v, _ := strings.Cut(a, "="); k {
		case "seed":
			seed = int64(in.num(v))
		case "accel":
			if v == "redis" {
				accel = settings.Accel{}
			}
		}
	}
	cfg, err := config.ParseWith("sentinel.conf", []byte(strings.Join(input, "\n")+"\n"), nil, config.Options{Cwd: "/"})
	if err != nil {
		in.fatalf("new: %v", err)
	}
	in.s = monitor.New(cfg.Sentinel, monitor.Options{Port: cfg.Server.Port, Accel: accel,
		MasterRebootFlag: cfg.CommandSurface >= commands.Surface72}, rand.New(rand.NewSource(seed)), in.now)
}

// ready renders what the core produced.
func (in *interaction) ready() []string {
	r := in.s.Ready()
	var out []string
	for _, l := range r.Logs {
		if l.Event != nil {
			out = append(out, "event "+l.Text)
			continue
		}
		out = append(out, "log "+string(".-*#"[l.Level])+" "+l.Text)
	}
	var answer []msg.Send
	for _, a := range r.Actions {
		out = append(out, renderAction(a))
		if sd, ok := a.(msg.Send); ok && len(sd.Args) == 1 && (sd.Args[0] == "PING" && in.answered[sd.ID] != "" || sd.Args[0] == "INFO" && in.answered[sd.ID] == "healthy") {
			answer = append(answer, sd)
		}
	}
	for _, sd := range answer {
		r := msg.Reply{Kind: msg.ReplyString, Str: "PONG"}
		if sd.Args[0] == "INFO" {
			r.Str = "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_replid:" + healthyReplID + "\r\n"
		}
		if _, err := in.s.Step(in.now, msg.CommandReply{ID: sd.ID, Tag: sd.Tag, Reply: r}); err != nil {
			in.fatalf("healthy L%d #%d: %v", sd.ID, sd.Tag, err)
		}
		out = append(out, in.ready()...)
	}
	return out
}

func renderAction(a msg.Action) string {
	switch a := a.(type) {
	case msg.PersistConfig:
		if a.Deferrable {
			return "persist (" + a.Reason + ", deferrable)"
		}
		return "persist (" + a.Reason + ")"
	case msg.OpenLink:
		s := fmt.Sprintf("open L%d %s %s:%d", a.ID, a.Kind, a.Addr.Host, a.Addr.Port)
		if a.Auth.Pass != "" {
			s += " auth=" + a.Auth.User + ":" + a.Auth.Pass
		}
		return s
	case msg.CloseLink:
		return fmt.Sprintf("close L%d", a.ID)
	case msg.Send:
		args := strings.Join(a.Args, " ")
		if len(args) > 80 {
			args = args[:77] + "..."
		}
		return fmt.Sprintf("send L%d #%d %s", a.ID, a.Tag, args)
	case msg.StartScript:
		return fmt.Sprintf("script-start %d %s %s", a.ID, a.Path, strings.Join(a.Args, " "))
	case msg.KillScript:
		return fmt.Sprintf("script-kill %d", a.ID)
	case msg.Exit:
		return fmt.Sprintf("exit %d", a.Code)
	}
	return fmt.Sprintf("%T", a)
}

func (in *interaction) num(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		in.fatalf("not a number: %q", s)
	}
	return n
}

func (in *interaction) duration(s string) time.Duration {
	d, err := time.ParseDuration(strings.TrimPrefix(s, "+"))
	if err != nil {
		in.fatalf("not a duration: %q", s)
	}
	return d
}

func (in *interaction) link(s string) msg.LinkID {
	return msg.LinkID(in.num(strings.TrimPrefix(s, "L")))
}

func (in *interaction) addr(s string) settings.Addr {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		in.fatalf("not an address: %q", s)
	}
	return settings.Addr{Host: s[:i], Port: in.num(s[i+1:])}
}

// reply builds a reply from its KIND [VALUE...] notation.
func (in *interaction) reply(f []string) msg.Reply {
	switch f[0] {
	case "status":
		return msg.Reply{Kind: msg.ReplyString, Str: strings.Join(f[1:], " ")}
	case "error":
		return msg.Reply{Kind: msg.ReplyError, Str: strings.Join(f[1:], " ")}
	case "int":
		return msg.Reply{Kind: msg.ReplyInt, Int: int64(in.num(f[1]))}
	case "nil":
		return msg.Reply{Kind: msg.ReplyNil}
	case "array":
		return msg.Reply{Kind: msg.ReplyArray}
	case "exec":
		r := msg.Reply{Kind: msg.ReplyArray}
		for _, e := range f[1:] {
			switch e {
			case "ok":
				r.Elems = append(r.Elems, msg.Reply{Kind: msg.ReplyString, Str: "OK"})
			case "err":
				r.Elems = append(r.Elems, msg.Reply{Kind: msg.ReplyError, Str: "ERR refused"})
			default:
				r.Elems = append(r.Elems, msg.Reply{Kind: msg.ReplyInt, Int: int64(in.num(e))})
			}
		}
		return r
	case "ask":
		return msg.Reply{Kind: msg.ReplyArray, Elems: []msg.Reply{
			{Kind: msg.ReplyInt, Int: int64(in.num(f[1]))},
			{Kind: msg.ReplyString, Str: f[2]},
			{Kind: msg.ReplyInt, Int: int64(in.num(f[3]))},
		}}
	case "info":
		fields := append([]string(nil), f[1:]...)
		sort.SliceStable(fields, func(i, j int) bool {
			return strings.HasPrefix(fields[i], "run_id:") && !strings.HasPrefix(fields[j], "run_id:")
		})
		var b strings.Builder
		b.WriteString("# Server\r\n")
		for _, kv := range fields {
			if strings.HasPrefix(kv, "run_id:") {
				b.WriteString(kv + "\r\n")
			}
		}
		b.WriteString("\r\n# Replication\r\n")
		for _, kv := range fields {
			if !strings.HasPrefix(kv, "run_id:") {
				b.WriteString(kv + "\r\n")
			}
		}
		return msg.Reply{Kind: msg.ReplyString, Str: b.String()}
	}
	in.fatalf("unknown reply kind %q", f[0])
	return msg.Reply{}
}
