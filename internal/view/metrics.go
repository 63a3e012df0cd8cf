package view

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Metrics is the state a metrics exporter reads at one moment: every
// figure it shows that is a level rather than a count of events. It is
// read on the core's loop and holds no reference into the core.
type Metrics struct {
	CurrentEpoch uint64
	Tilt         bool
	// TiltFor is how long TILT has lasted; 0 when not in TILT.
	TiltFor time.Duration
	// Tilts counts the times TILT was entered since start.
	Tilts           int64
	ScriptsRunning  int
	ScriptsQueued   int
	SimulateFailure failover.SimFailure
	Masters         []MasterMetrics // in name order
}

// MasterMetrics is one master's figures.
type MasterMetrics struct {
	Name string
	// Addr is the master's address as INFO sentinel shows it.
	Addr   settings.Addr
	Status MasterStatus
	SDown  bool
	ODown  bool
	// Replicas counts every known replica (INFO's slaves=); OKReplicas
	// the announced ones (those SENTINEL REPLICAS lists) that are neither
	// SDOWN nor ODOWN.
	Replicas   int
	OKReplicas int
	// PromotableReplicas counts the replicas that replica selection would
	// accept if the master failed now (none of failover.Exclude's rules
	// keeps them out): 0 means a failover would abort with
	// -failover-abort-no-good-slave.
	PromotableReplicas int
	// Sentinels counts the Sentinels that know the master, this one
	// included (INFO's sentinels=); OKSentinels those of them not SDOWN,
	// this one included.
	Sentinels   int
	OKSentinels int
	Quorum      int
	// Check is SENTINEL CKQUORUM's verdict (election.CheckQuorum over the
	// master's Sentinels as they are now, as View.CheckQuorum decides).
	Check election.Check

	ConfigEpoch   uint64
	LeaderEpoch   uint64 // the epoch of this Sentinel's last vote for the master
	FailoverEpoch uint64 // the epoch of the last failover this Sentinel started

	FailoverInProgress bool
	FailoverState      string // failover-state names; "none" when idle

	DownAfter       time.Duration
	FailoverTimeout time.Duration
	ParallelSyncs   int
	// LastOKPing is the time since the master's last valid PING reply
	// (SENTINEL MASTER's last-ok-ping-reply).
	LastOKPing time.Duration

	// Links is every instance of the master, the master first, then
	// replicas and Sentinels by name.
	Links []LinkMetrics
}

// LinkMetrics is the connection to one instance.
type LinkMetrics struct {
	Role string // "master", "slave" or "sentinel"
	Name string
	Addr settings.Addr
	// Connected reports a live command connection (and pub/sub one, for
	// masters and replicas): the opposite of the `disconnected` flag.
	Connected bool
	SDown     bool
	// RTT is the round trip of the last PING answered, from that PING's
	// own send time, with the core's millisecond resolution. It stays set
	// while a later PING is in flight; HasRTT is false before any answer.
	RTT    time.Duration
	HasRTT bool
}
