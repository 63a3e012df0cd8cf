package settings

// Addr is a host and port as the configuration or a peer gave them. Host is
// kept as written (an IP in its canonical text form, or a hostname when
// resolve-hostnames is on).
type Addr struct {
	Host string
	Port int
}

// SentinelSpec is a known Sentinel of one master, as persisted by the
// `sentinel known-sentinel <master> <ip> <port> <runid>` line.
type SentinelSpec struct {
	Addr  Addr
	RunID string
}

// Rename is one `sentinel rename-command <master> <command> <renamed>` entry:
// the command Sentinel would send as Command is sent as Renamed instead.
type Rename struct {
	Command string
	Renamed string
}

// Master are a master's options: what its config directives and
// SENTINEL SET set. The core keeps them as one value, copied whole from
// the MasterSpec it starts from and back into the one it persists.
type Master struct {
	Quorum int

	// Every duration below is in milliseconds, as the directives give
	// them and the core computes with them.

	// DownAfterMs is down-after-milliseconds; always > 0.
	DownAfterMs int64
	// FailoverTimeoutMs is failover-timeout; always > 0.
	FailoverTimeoutMs int64
	// ParallelSyncs is parallel-syncs (the config file accepts any integer).
	ParallelSyncs int
	// RebootDownAfterMs is master-reboot-down-after-period; 0 disables it.
	RebootDownAfterMs int64

	NotificationScript   string
	ClientReconfigScript string
	AuthPass             string
	AuthUser             string

	// RenameCommands is kept in the order the mappings were made.
	RenameCommands []Rename

	// Proxy are the addresses the master-following proxy listens on, in
	// the order given (`sentinel proxy <master> <ip> <port>`); none: no
	// proxy. The proxy's other options matter only with one.
	Proxy []Addr
	// ProxyFenceAfterMs is proxy-fence-after: the proxy forwards only while
	// a majority of the master's Sentinels (this one counted) answered a
	// PING within it; always > 0.
	ProxyFenceAfterMs int64
	// ProxyHoldMs is proxy-hold: how long a new connection waits for the
	// proxy to forward before it is closed.
	ProxyHoldMs int64
	// ProxyNoFencing is `proxy-fencing no`: the rules that depend on the
	// peers (the majority, and the fence at a vote for another) are off.
	ProxyNoFencing bool
	// ProxyNoProtectedMode is `proxy-protected-mode no`: clients from
	// other hosts are forwarded even when the data nodes need no password.
	ProxyNoProtectedMode bool

	// ProxyReplicas are the addresses of the read port (`sentinel
	// proxy-replicas <master> <ip> <port>`), which spreads client
	// connections over the master's healthy replicas; none: no read port.
	// It shares proxy-hold, proxy-fencing, proxy-fence-after and
	// proxy-protected-mode with the master's proxy.
	ProxyReplicas []Addr
	// ProxyReplicaMaxLagMs is proxy-replica-max-lag: a replica whose data
	// is older than it (internal/readroute's Lag) is not served; 0 serves
	// replicas whatever their lag.
	ProxyReplicaMaxLagMs int64
	// ProxyReplicasNoPriorityZero is `proxy-replicas-priority-zero no`:
	// replicas with replica-priority 0 are not served.
	ProxyReplicasNoPriorityZero bool
	// ProxyReplicasNoFallback is `proxy-replicas-fallback no`: when no
	// replica qualifies the read port holds its clients rather than
	// forwarding them to the master.
	ProxyReplicasNoFallback bool

	// ForgetReplicaAfterMs is forget-replica-after (go-sentinel's
	// extension, issue 21): a replica that gave no valid PING reply for
	// longer than it, and that the master's INFO no longer lists, is
	// forgotten (the core's forget.go); 0, the default, never forgets one, as Redis.
	ForgetReplicaAfterMs int64
	// Voters is `sentinel voters` (go-sentinel's extension, issue 21):
	// how many Sentinels monitor the master, this one included, as the
	// operator states it. A leader's majority is counted over it when it
	// is above the known Sentinels; 0, the default, is Redis's count.
	Voters int
	// ForgetSentinelAfterMs is forget-sentinel-after (go-sentinel's
	// extension): a known Sentinel not heard from for longer than it is
	// forgotten, only while Voters is set (the core's forget_sentinel.go); 0, the
	// default, never forgets one, as Redis.
	ForgetSentinelAfterMs int64
}

// MasterSpec is everything about one monitored master that the config file
// carries: its settings and the state Sentinel persists for it. It is plain
// data; the core turns it into live state and back.
type MasterSpec struct {
	Name string
	Addr Addr
	Master

	ConfigEpoch uint64
	LeaderEpoch uint64
	// LeasesGranted: this Sentinel has granted a peer's proxy a lease on
	// the master (a go-sentinel extension, `sentinel leases-granted`), so
	// after a restart it holds back its votes about it until any lease
	// it may have granted just before has lapsed.
	LeasesGranted bool

	KnownReplicas  []Addr
	KnownSentinels []SentinelSpec
}

// Persisted is the whole Sentinel state that survives a restart through the
// config file: global Sentinel settings, epochs, identity and every master.
// Masters are kept sorted by name, the order the rewrite writes them in.
type Persisted struct {
	// MyID is the 40-character run id of this Sentinel; empty until generated.
	MyID         string
	CurrentEpoch uint64

	DenyScriptsReconfig bool
	ResolveHostnames    bool
	AnnounceHostnames   bool
	AnnounceIP          string
	// AnnouncePort is 0 when not set.
	AnnouncePort int
	SentinelUser string
	SentinelPass string

	Masters []MasterSpec
}

// Defaults that a newly declared master gets, and that the rewrite omits.
const (
	DefaultDownAfterMs       = 30000
	DefaultFailoverTimeoutMs = 180000
	DefaultParallelSyncs     = 1
	DefaultProxyFenceAfterMs = 2000
	// MaxProxyFenceAfterMs is the longest proxy-fence-after, and so the
	// longest lease a Sentinel grants: a vote held back for a lease must
	// still reach its candidate within the election timeout (10 s).
	MaxProxyFenceAfterMs = 5000
	DefaultProxyHoldMs   = 5000
	// DefaultProxyReplicaMaxLagMs is proxy-replica-max-lag's default.
	DefaultProxyReplicaMaxLagMs = 10000
)

// NewMasterSpec returns a master declared by `sentinel monitor` with the
// defaults Redis gives a new master.
func NewMasterSpec(name string, addr Addr, quorum int) MasterSpec {
	return MasterSpec{
		Name: name,
		Addr: addr,
		Master: Master{
			Quorum:            quorum,
			DownAfterMs:       DefaultDownAfterMs,
			FailoverTimeoutMs: DefaultFailoverTimeoutMs,
			ParallelSyncs:     DefaultParallelSyncs,
			ProxyFenceAfterMs: DefaultProxyFenceAfterMs,
			ProxyHoldMs:       DefaultProxyHoldMs,

			ProxyReplicaMaxLagMs: DefaultProxyReplicaMaxLagMs,
		},
	}
}
