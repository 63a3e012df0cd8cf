package respserver

import (
	"context"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/scriptq"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// executable reports whether path can be executed by this process, as
// access(X_OK) does for Redis's script checks.
func executable(path string) bool {
	return syscall.Access(path, 0x1) == nil
}

// saved turns a persisted change into +OK or Redis's save error.
func saved(out monitor.Outcome) Value {
	if out.PersistErr != nil {
		return errSaveConfig
	}
	return OK
}

// stepSaved steps a command that persists: its error, or +OK once the
// config was saved.
func (x *ctx) stepSaved(in msg.Input) Value {
	_, out, ev := x.step(in)
	if ev != nil {
		return ev
	}
	return saved(out)
}

func cmdSentinelMonitor(x *ctx) Value {
	quorum, ok := parseLongLong(x.arg(5))
	if !ok {
		return Err("ERR " + monitor.ErrInvalidQuorum.Error())
	}
	port, ok := parseLongLong(x.arg(4))
	if !ok {
		return Err("ERR " + monitor.ErrInvalidPort.Error())
	}
	if quorum <= 0 {
		return Err("ERR " + monitor.ErrQuorumTooSmall.Error())
	}
	host := x.arg(3)
	if net.ParseIP(host) == nil {
		// A hostname must resolve now (the core only accepts one with
		// resolve-hostnames on); resolve off the core's loop.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, lerr := net.DefaultResolver.LookupHost(ctx, host)
		cancel()
		if lerr != nil {
			return Err("ERR " + monitor.ErrInvalidAddress.Error())
		}
	}
	return x.stepSaved(msg.Monitor{Name: x.arg(2), Host: host, Port: int(port), Quorum: int(quorum)})
}

func cmdSentinelRemove(x *ctx) Value {
	return x.stepSaved(msg.Remove{Name: x.arg(2)})
}

func cmdSentinelSet(x *ctx) Value {
	args := make([]string, 0, len(x.args)-3)
	for _, a := range x.args[3:] {
		args = append(args, string(a))
	}
	// Script paths are checked here, off the core's loop: every value is
	// looked at, the core picks the ones that are script paths.
	exe := msg.Executables{}
	for _, a := range args {
		exe[a] = executable(a)
	}
	return x.stepSaved(msg.Set{Name: x.arg(2), Args: args, Executables: exe})
}

func cmdSentinelReset(x *ctx) Value {
	n, _, ev := x.step(msg.Reset{Pattern: x.arg(2)})
	if ev != nil {
		return ev
	}
	return Int(int64(n.(msg.ResetCount)))
}

func cmdSentinelDebug(x *ctx) Value {
	if len(x.args) == 2 {
		var kv []view.KV
		if _, ev := x.exec(func(core monitor.Handle, _ time.Time) { kv = core.DebugValues() }); ev != nil {
			return ev
		}
		return kvMap(kv)
	}
	args := make([]string, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		args = append(args, string(a))
	}
	if _, _, ev := x.step(msg.Debug{Args: args}); ev != nil {
		return ev
	}
	return OK
}

func cmdSentinelSimulateFailure(x *ctx) Value {
	var names []string
	for _, a := range x.args[2:] {
		names = append(names, string(a))
	}
	ans, _, ev := x.step(msg.SimulateFailure{Names: names})
	if ans == msg.SimulateFailureHelp(true) {
		return Array{Bulk("crash-after-election"), Bulk("crash-after-promotion")}
	}
	if ev != nil {
		return ev
	}
	return OK
}

// cmdSentinelPendingScripts lists the script queue (§12.2).
func cmdSentinelPendingScripts(x *ctx) Value {
	var list []scriptq.Pending
	if _, ev := x.exec(func(core monitor.Handle, now time.Time) { list = core.PendingScripts(now) }); ev != nil {
		return ev
	}
	out := make(Array, 0, len(list))
	for _, p := range list {
		argv := make(Array, len(p.Argv))
		for i, a := range p.Argv {
			argv[i] = Bulk(a)
		}
		m := Map{Bulk("argv"), argv}
		if p.Running {
			m = append(m, Bulk("flags"), Bulk("running"), Bulk("pid"), Bulk(strconv.Itoa(p.PID)),
				Bulk("run-time"), Bulk(strconv.FormatInt(p.RunTime.Milliseconds(), 10)))
		} else {
			m = append(m, Bulk("flags"), Bulk("scheduled"), Bulk("pid"), Bulk(strconv.Itoa(p.PID)),
				Bulk("run-delay"), Bulk(strconv.FormatInt(p.RunDelay.Milliseconds(), 10)))
		}
		m = append(m, Bulk("retry-num"), Bulk(strconv.Itoa(p.RetryNum)))
		out = append(out, m)
	}
	return out
}

// cmdSentinelFailover is SENTINEL FAILOVER <master> [COORDINATED]
// (COORDINATED as Valkey 9: checked after the master exists, before
// anything else).
func cmdSentinelFailover(x *ctx) Value {
	if len(x.args) > 4 {
		return Err("ERR wrong number of arguments for 'sentinel|failover' command")
	}
	in := msg.Failover{Name: x.arg(2)}
	if len(x.args) == 4 {
		if !strings.EqualFold(x.arg(3), "coordinated") {
			v, ev := x.viewOnly()
			if ev != nil {
				return ev
			}
			_, known := v.MasterAddr(x.arg(2))
			if !known {
				return errNoSuchMaster
			}
			return Err("ERR Unknown failover option specified")
		}
		in.Coordinated = true
	}
	if _, _, ev := x.step(in); ev != nil {
		return ev
	}
	return OK
}

var sentinelHelp = []string{
	"SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CKQUORUM <master-name>",
	"    Check if the current Sentinel configuration is able to reach the quorum",
	"    needed to failover a master and the majority needed to authorize the",
	"    failover.",
	helpConfigSet70,
	"    Set a global Sentinel configuration parameter.",
	helpConfigGet70,
	"    Get global Sentinel configuration parameter.",
	"DEBUG [<param> <value> ...]",
	"    Show a list of configurable time parameters and their values (milliseconds).",
	"    Or update current configurable parameters values (one or more).",
	"GET-MASTER-ADDR-BY-NAME <master-name>",
	"    Return the ip and port number of the master with that name.",
	"FAILOVER <master-name>",
	"    Manually failover a master node without asking for agreement from other",
	"    Sentinels",
	"FLUSHCONFIG",
	"    Force Sentinel to rewrite its configuration on disk, including the current",
	"    Sentinel state.",
	"INFO-CACHE <master-name>",
	"    Return last cached INFO output from masters and all its replicas.",
	"IS-MASTER-DOWN-BY-ADDR <ip> <port> <current-epoch> <runid>",
	"    Check if the master specified by ip:port is down from current Sentinel's",
	"    point of view.",
	"MASTER <master-name>",
	"    Show the state and info of the specified master.",
	"MASTERS",
	"    Show a list of monitored masters and their state.",
	"MONITOR <name> <ip> <port> <quorum>",
	"    Start monitoring a new master with the specified name, ip, port and quorum.",
	"MYID",
	"    Return the ID of the Sentinel instance.",
	"PENDING-SCRIPTS",
	"    Get pending scripts information.",
	"REMOVE <master-name>",
	"    Remove master from Sentinel's monitor list.",
	"REPLICAS <master-name>",
	"    Show a list of replicas for this master and their state.",
	"RESET <pattern>",
	"    Reset masters for specific master name matching this pattern.",
	"SENTINELS <master-name>",
	"    Show a list of Sentinel instances for this master and their state.",
	"SET <master-name> <option> <value> [<option> <value> ...]",
	"    Set configuration parameters for certain masters.",
	"SIMULATE-FAILURE [CRASH-AFTER-ELECTION] [CRASH-AFTER-PROMOTION] [HELP]",
	"    Simulate a Sentinel crash.",
	"HELP",
	"    Prints this help.",
}

func cmdSentinelHelp(x *ctx) Value {
	out := make(Array, len(sentinelHelp))
	for i, l := range sentinelHelp {
		if x.srv.opts.Surface >= commands.Surface72 {
			// Redis 7.2 reworded the CONFIG lines for the multi-parameter
			// forms.
			switch l {
			case helpConfigSet70:
				l = helpConfigSet72
			case helpConfigGet70:
				l = helpConfigGet72
			}
		}
		out[i] = Status(l)
	}
	return out
}
