package view

import (
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Master is one master as the queries show it.
type Master struct {
	Head
	// Inst is the master's own object, Replicas its replicas by name
	// (replica-announced 0 included), Sentinels the other Sentinels by
	// run id.
	Inst      *Instance
	Replicas  []*Instance
	Sentinels []*Instance
}

// Head is what a Master shows besides its objects. It is comparable:
// the builder keeps the previous Master when its Head and objects are
// the same.
type Head struct {
	ConfigEpoch uint64
	Quorum      int
	// FailoverTimeout is failover-timeout in ms.
	FailoverTimeout      int64
	ParallelSyncs        int
	NotificationScript   string
	ClientReconfigScript string
	// ForgetReplicaAfter is forget-replica-after in ms; 0: off.
	ForgetReplicaAfter int64
	// Voters is the voters floor, ForgetSentinelAfter
	// forget-sentinel-after in ms; 0: off.
	Voters              int
	ForgetSentinelAfter int64
	// Addr is the address clients should use (GET-MASTER-ADDR-BY-NAME),
	// InfoAddr the configured one (INFO sentinel), both as announced.
	Addr     settings.Addr
	InfoAddr settings.Addr
	// AskAddr is the configured address as stored (a hostname stays
	// one): what IS-MASTER-DOWN-BY-ADDR is matched against.
	AskAddr settings.Addr
	// Proxy is the master-following proxy's settings and decision.
	Proxy ProxyHead
	// Reads is the read port's settings and verdict.
	Reads ReadsHead
}

// Instance is one object as the queries show it: a copy of what
// instanceMap reads, times as Unix ms. It is comparable.
type Instance struct {
	Kind  object.Kind
	Name  string
	IP    string // as announced
	Port  int
	RunID string
	Flags object.Flag

	// Link is the object's link, as it is now (one Sentinel's link is
	// shared by its objects under several masters).
	Link *LinkCell

	// FailoverState is the master's failover-state name, set with
	// object.FailoverInProgress.
	FailoverState string

	DownAfter        int64
	SDownSince       int64
	ODownSince       int64
	InfoRefresh      int64
	RoleReported     string
	RoleReportedTime int64

	// Replicas.
	MasterLinkDownTime int64
	MasterLinkUp       bool
	SlaveMasterHost    string
	SlaveMasterPort    int
	Priority           int
	ReplOffset         uint64
	Announced          int

	// Sentinels.
	LastHello   *TimeCell // the last hello received from it, as it is now
	Leader      string
	LeaderEpoch uint64
}
