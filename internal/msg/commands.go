package msg

import "github.com/go-sentinel/go-sentinel/internal/gossip"

// This file holds the inputs of the mutating client commands: each is
// applied by Step, like every other change to the core. The read-only
// commands are methods of the View (internal/view), or of the core
// for what the View does not serve (explain.go, reads.go).

// FlushConfig asks for the config to be rewritten (SENTINEL FLUSHCONFIG).
type FlushConfig struct{}

// Shutdown tells the core the process is stopping; it persists its state.
type Shutdown struct{}

// Monitor is SENTINEL MONITOR: start monitoring a master. The caller has
// parsed the numbers and, for a hostname, checked that it resolves.
type Monitor struct {
	Name   string
	Host   string
	Port   int
	Quorum int
}

// Remove is SENTINEL REMOVE: stop monitoring a master.
type Remove struct{ Name string }

// Reset is SENTINEL RESET: forget what was learned about every master
// whose name matches the glob Pattern. It answers ResetCount.
type Reset struct{ Pattern string }

// ResetCount is Reset's answer: the number of masters reset.
type ResetCount int

// Set is SENTINEL SET: change options of master Name. Args are the
// option and value words as given. Executables must say, for every script
// path among the values, whether it is executable (the core does no I/O).
type Set struct {
	Name        string
	Args        []string
	Executables Executables
}

// Executables says which paths name a file this process may execute; the
// caller finds out before stepping the core.
type Executables map[string]bool

// ConfigSet is SENTINEL CONFIG SET of the core's parameters, Args being
// parameter and value pairs (loglevel is the process's, not the core's).
type ConfigSet struct{ Args []string }

// Debug is SENTINEL DEBUG with parameter and value pairs: the timing
// knobs, not persisted.
type Debug struct{ Args []string }

// SimulateFailure is SENTINEL SIMULATE-FAILURE with its flag names. It
// answers SimulateFailureHelp.
type SimulateFailure struct{ Names []string }

// SimulateFailureHelp is SimulateFailure's answer: true when the names
// asked for help (the reply lists the flags).
type SimulateFailureHelp bool

// Failover is SENTINEL FAILOVER: fail master Name over now. The plain
// form does not ask the other Sentinels. Coordinated (SENTINEL FAILOVER
// <name> COORDINATED, as Valkey 9) runs a real election and hands over
// through the master's own FAILOVER TO, which loses no acknowledged
// write.
type Failover struct {
	Name        string
	Coordinated bool
}

// IsMasterDownByAddr is another Sentinel's SENTINEL
// IS-MASTER-DOWN-BY-ADDR: is the master at the request's address down,
// and, when the request asks for it, our vote. It answers a
// gossip.AskReply.
type IsMasterDownByAddr struct{ Request gossip.AskRequest }

// Lease is another Sentinel's SENTINEL LEASE: a lease on each master it
// names, for its proxy (lease.go). It answers a LeaseAnswer.
type Lease struct{ Request gossip.LeaseRequest }

// LeaseAnswer is the answer to a Lease: for each master asked about, in
// order, whether the lease is granted.
type LeaseAnswer []bool

func (Lease) isInput()              {}
func (IsMasterDownByAddr) isInput() {}
func (FlushConfig) isInput()        {}
func (Shutdown) isInput()           {}
func (Monitor) isInput()            {}
func (Remove) isInput()             {}
func (Reset) isInput()              {}
func (Set) isInput()                {}
func (ConfigSet) isInput()          {}
func (Debug) isInput()              {}
func (SimulateFailure) isInput()    {}
func (Failover) isInput()           {}
