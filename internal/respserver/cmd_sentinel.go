package respserver

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// sentinelSubcommands are the SENTINEL subcommands implemented so far,
// with Redis 7.0's arities.
func sentinelSubcommands() []*command {
	return []*command{
		{name: "myid", handler: cmdSentinelMyID},
		{name: "flushconfig", handler: cmdSentinelFlushConfig},
		{name: "masters", handler: cmdSentinelMasters},
		{name: "master", handler: cmdSentinelMaster},
		{name: "replicas", handler: cmdSentinelReplicas},
		{name: "slaves", handler: cmdSentinelReplicas},
		{name: "sentinels", handler: cmdSentinelSentinels},
		{name: "get-master-addr-by-name", handler: cmdSentinelGetMasterAddr},
		{name: "is-master-down-by-addr", handler: cmdSentinelIsMasterDown},
		{name: "ckquorum", handler: cmdSentinelCkQuorum},
		{name: "info-cache", handler: cmdSentinelInfoCache},
		{name: "monitor", handler: cmdSentinelMonitor},
		{name: "remove", handler: cmdSentinelRemove},
		{name: "set", handler: cmdSentinelSet},
		{name: "reset", handler: cmdSentinelReset},
		{name: "debug", handler: cmdSentinelDebug},
		{name: "config", handler: cmdSentinelConfig},
		{name: "simulate-failure", handler: cmdSentinelSimulateFailure},
		{name: "pending-scripts", handler: cmdSentinelPendingScripts},
		{name: "failover", handler: cmdSentinelFailover},
		{name: "help", handler: cmdSentinelHelp},
		// Valkey's spellings of the same subcommands.
		{name: "primaries", handler: cmdSentinelMasters},
		{name: "primary", handler: cmdSentinelMaster},
		{name: "get-primary-addr-by-name", handler: cmdSentinelGetMasterAddr},
		{name: "is-primary-down-by-addr", handler: cmdSentinelIsMasterDown},
	}
}

// exec runs fn on the core and turns a stopped loop into an error reply.
func (x *ctx) exec(fn func(core *monitor.Sentinel, now time.Time)) (Outcome, Value) {
	if x.srv.opts.Backend == nil {
		return Outcome{}, Err("ERR " + ErrStopped.Error())
	}
	out, err := x.srv.opts.Backend.Exec(fn)
	if err != nil {
		return out, Err("ERR " + err.Error())
	}
	return out, nil
}

// run is exec for a core call that can fail: a stopped loop or fn's error
// becomes the error reply (nil on success).
func (x *ctx) run(fn func(core *monitor.Sentinel, now time.Time) error) (Outcome, Value) {
	var err error
	out, ev := x.exec(func(core *monitor.Sentinel, now time.Time) { err = fn(core, now) })
	if ev != nil {
		return out, ev
	}
	if err != nil {
		return out, errReply(err)
	}
	return out, nil
}

func cmdSentinelMyID(x *ctx) Value {
	var id string
	if _, ev := x.exec(func(core *monitor.Sentinel, _ time.Time) { id = core.MyID() }); ev != nil {
		return ev
	}
	return Bulk(id)
}

// errSaveConfig is Redis's reply when the config rewrite failed.
const errSaveConfig = Err("ERR Failed to save config file. Check server logs.")

func cmdSentinelFlushConfig(x *ctx) Value {
	var stepErr error
	out, ev := x.exec(func(core *monitor.Sentinel, now time.Time) {
		stepErr = core.Step(now, monitor.FlushConfig{})
	})
	if ev != nil {
		return ev
	}
	if stepErr != nil || out.PersistErr != nil {
		return errSaveConfig
	}
	return OK
}

func cmdRole(x *ctx) Value {
	var names []string
	if _, ev := x.exec(func(core *monitor.Sentinel, _ time.Time) { names = core.MasterNames() }); ev != nil {
		return ev
	}
	list := make(Array, len(names))
	for i, n := range names {
		list[i] = Bulk(n)
	}
	return Array{Bulk("sentinel"), list}
}
