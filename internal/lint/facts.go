package lint

import "time"

// Facts is what a probe learned from the running fleet. A nil *Facts means
// a static check: only the configuration is looked at.
type Facts struct {
	// Sentinels is one entry per Sentinel address given to the probe, in
	// the order given.
	Sentinels []SentinelFacts
	// Masters maps the master names of the configuration to what the
	// Sentinels and the instances said about them; a name is missing when
	// no Sentinel could be asked about it.
	Masters map[string]MasterFacts
	// Impls maps the run id (lower case) of every Sentinel whose INFO the
	// probe read, given or listed by SENTINEL SENTINELS, to what it runs;
	// a Sentinel missing from it is ImplUnknown.
	Impls map[string]Impl
}

// Impl is the Sentinel implementation a Sentinel runs, as its INFO tells.
type Impl int

const (
	// ImplUnknown: its INFO could not be read.
	ImplUnknown Impl = iota
	// ImplGo: go-sentinel, whose INFO server section has go_version.
	ImplGo
	// ImplRedis: any other Sentinel (redis-sentinel, Valkey's), timed as
	// Redis 7.0's.
	ImplRedis
)

// ImplOfInfo tells the implementation from the fields of an INFO server
// reply: go-sentinel adds go_version to Redis's fields.
func ImplOfInfo(info map[string]string) Impl {
	if _, ok := info["go_version"]; ok {
		return ImplGo
	}
	if _, ok := info["redis_version"]; ok {
		return ImplRedis
	}
	return ImplUnknown
}

// SentinelFacts is one queried Sentinel.
type SentinelFacts struct {
	// Addr is the address as given ("host:port").
	Addr string
	// Err is why the Sentinel could not be queried; empty on success.
	Err string
	// ID is its myid.
	ID string
}

// MasterFacts is what is known of one master at run time.
type MasterFacts struct {
	// Views holds what each reachable Sentinel reports about the master.
	Views []SentinelView
	// Master is the master instance, queried at the address the Sentinels
	// report (the file's address if none did).
	Master Instance
	// Replicas are the replicas the Sentinels and the master list.
	Replicas []Instance
}

// SentinelView is one Sentinel's view of one master.
type SentinelView struct {
	// Sentinel is the queried Sentinel's address, ID its myid.
	Sentinel string
	ID       string
	// Monitors is false when that Sentinel does not monitor the master
	// (the other fields are then empty).
	Monitors bool
	// MasterAddr is its answer to GET-MASTER-ADDR-BY-NAME ("host:port").
	MasterAddr string
	// Quorum is its quorum for the master.
	Quorum int
	// Others are the run ids of the other Sentinels it knows for the
	// master (SENTINEL SENTINELS).
	Others []string
	// CKQuorum is its CKQUORUM reply text and CKQuorumOK whether that
	// reply was +OK.
	CKQuorum   string
	CKQuorumOK bool
	// NoLease: that Sentinel does not know SENTINEL LEASE (it answers
	// a malformed one with "unknown subcommand": a redis-sentinel), so
	// it never grants a proxy a lease.
	NoLease bool
}

// Instance is one Redis server (master or replica) as probed.
type Instance struct {
	// Addr is "host:port".
	Addr string
	// Err is why it could not be queried; empty on success.
	Err string
	// Role is its INFO role: "master" or "slave".
	Role string
	// MaxRTT is the slowest PING round trip measured to it (0 if none).
	MaxRTT time.Duration

	// MinReplicasKnown tells whether the two min-replicas settings below
	// were read (CONFIG GET may be renamed or denied).
	MinReplicasKnown bool
	// MinReplicasToWrite and MinReplicasMaxLag (seconds) are the
	// instance's min-replicas-to-write and min-replicas-max-lag.
	MinReplicasToWrite int
	MinReplicasMaxLag  int

	// UsedMemory, MaxMemory and TotalSystemMemory are INFO memory's
	// used_memory, maxmemory (0 = no limit) and total_system_memory, in
	// bytes.
	UsedMemory        int64
	MaxMemory         int64
	TotalSystemMemory int64
	// OpsPerSec is INFO stats' instantaneous_ops_per_sec.
	OpsPerSec int64

	// PriorityKnown tells whether Priority was read; Priority is the
	// replica's replica-priority (INFO slave_priority).
	PriorityKnown bool
	Priority      int
	// ReadOnlyKnown tells whether ReadOnly was read; ReadOnly is the
	// replica's replica-read-only (INFO slave_read_only).
	ReadOnlyKnown bool
	ReadOnly      bool

	// Version is INFO server's valkey_version when it has one (Valkey
	// true), else its redis_version; "" when it has neither.
	Version string
	Valkey  bool
	// FailoverState tells whether INFO has master_failover_state, which
	// Redis reports from 6.2 on, with the FAILOVER command.
	FailoverState bool

	// FailoverACL is what ACL DRYRUN said about the commands a failover
	// sends to the instance; the zero value means it was not asked.
	FailoverACL ACLCheck
}

// ACLCheck is the outcome of asking an instance, with ACL DRYRUN, whether
// the user Sentinel logs in as may run the commands a failover sends it.
type ACLCheck struct {
	// User is the user asked about: the master's auth-user, or "default"
	// when no auth-user and auth-pass pair is set.
	User string
	// Verified tells whether ACL DRYRUN answered for every command;
	// Denied then lists those the user may not run.
	Verified bool
	Denied   []ACLDenial
	// Unverified is why ACL DRYRUN could not answer (its error reply:
	// unknown before Redis 7.0, or not permitted to the user check logs
	// in as); empty when Verified or not asked.
	Unverified string
}

// ACLDenial is one command the user may not run.
type ACLDenial struct {
	// Command is the command as an ACL rule names it, lower case:
	// "failover", "client|pause", "multi" (under its rename-command name
	// when the configuration renames it).
	Command string
	// Missing tells that the server has no such command (disabled or
	// renamed there); Reason is ACL DRYRUN's reply.
	Missing bool
	Reason  string
}

// reachable reports whether the instance answered.
func (i Instance) reachable() bool { return i.Err == "" }
