package monitor

import "github.com/go-sentinel/go-sentinel/internal/view"

// This file holds the parts of an instance that belong to one role: an
// instance is a master, a replica or a Sentinel in one type, and each
// group below is embedded in it, so the role a field belongs to is in its
// type while every access reads i.field as before. A field of a group is
// zero, or what newInstance set, on an object of another role.

// infoFacts is what INFO reports of a master or a replica, and the INFO
// request waiting for its reply.
type infoFacts struct {
	info         string
	infoRefresh  int64
	roleReported string
	// failoverReported is INFO's master_failover_state, "" while the
	// server never reported one (older than Redis 6.2, or no INFO yet).
	failoverReported string
	// failoverReportedTime is when failoverReported last changed (the
	// first INFO that reported it counts as a change).
	failoverReportedTime int64
	roleReportedTime     int64
	slaveConfChangeTime  int64
	masterLinkDownTime   int64 // ms
	slaveMasterHost      string
	slaveMasterPort      int
	masterLinkUp         bool
	priority             int
	replOffset           uint64
	announced            int
	rebootTime           int64
	// replID and replID2 are INFO's master_replid and master_replid2
	// ("" when the last INFO had none); idsStale: a master reset to a new
	// address has had no INFO since (reset.go).
	replID, replID2 string
	idsStale        bool
	// restartedAt is when its INFO last reported a new run id (a
	// restart), 0 if never.
	restartedAt int64
	// convertSent: this Sentinel sent it SLAVEOF to convert it
	// (+convert-to-slave) and has had no INFO from it since;
	// reportedAgainAt is when the first INFO after the last such
	// SLAVEOF came, 0 if none was sent.
	convertSent     bool
	reportedAgainAt int64

	// infoPending: an INFO sent to this object waits for its reply.
	infoPending bool
	// infoSentAt is when the INFO whose reply is info was sent, as the
	// last tick before it knew the time (never later than the real
	// moment); 0 when unknown.
	infoSentAt int64
}

// peerFacts is what this Sentinel knows of another Sentinel: its hellos
// and its IS-MASTER-DOWN-BY-ADDR replies (its vote is the instance's
// leader and leaderEpoch).
type peerFacts struct {
	// lastHelloTime is the last hello received from it; helloCell shows
	// it to the queries (set with setLastHello).
	lastHelloTime int64
	helloCell     *view.TimeCell
	// lastMasterDownReplyTime is when it last answered
	// IS-MASTER-DOWN-BY-ADDR.
	lastMasterDownReplyTime int64
	// helloSeen: a hello was received from it; lastHelloTime starts at
	// creation, as in Redis, before any was.
	helloSeen bool
	// answered is set once the Sentinel answered IS-MASTER-DOWN-BY-ADDR
	// about the master's current address.
	answered bool
	// askPending: an IS-MASTER-DOWN-BY-ADDR about this object's master
	// waits for its reply.
	askPending bool
	// helloHolds: its last hello held the master at the address and
	// configuration epoch this Sentinel holds (fence.HelloPeer).
	helloHolds bool
	// grantedUntil is until when its lease on the master, at the
	// configuration this Sentinel holds, runs (lease.go); 0: none.
	// grantedEpoch is the configuration epoch of its last grant.
	grantedUntil int64
	grantedEpoch uint64
}

// replicaFacts is what a failover's reconfiguration and the forgetting
// of replicas (forget.go) keep of a replica.
type replicaFacts struct {
	// slaveReconfSentTime is when the SLAVEOF that points the replica to
	// the promoted one was sent.
	slaveReconfSentTime int64
	// listedByMaster: the master's INFO listed this replica at least once
	// since the object was made (forget.go).
	listedByMaster bool
	// rejoin is the conversion of the replica while it reports itself
	// a master (rejoin.go).
	rejoin rejoinState
}
