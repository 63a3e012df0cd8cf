package monitor

import (
	"fmt"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// kind is what an instance object stands for.
type kind int

const (
	kindMaster kind = iota
	kindReplica
	kindSentinel
)

// kindRoles are the role names of the kinds, as events, SENTINEL replies
// and INFO's role field spell them.
var kindRoles = [...]string{kindMaster: inforeply.RoleMaster, kindReplica: inforeply.RoleSlave, kindSentinel: "sentinel"}

// String returns the kind's role name: "master", "slave" or "sentinel".
func (k kind) String() string { return kindRoles[k] }

// shownRole is how replies and events name a role an instance reported
// in INFO: "master", or "slave" for anything else (as Redis shows it).
func shownRole(reported string) string {
	if reported == inforeply.RoleMaster {
		return inforeply.RoleMaster
	}
	return inforeply.RoleSlave
}

// flag is one bit of an instance's state, as Redis's SRI_* flags.
type flag uint32

const (
	flagSDown flag = 1 << iota
	flagODown
	flagMasterDown // a sentinel object said the master is down
	flagFailoverInProgress
	flagPromoted
	flagReconfSent
	flagReconfInprog
	flagReconfDone
	flagForceFailover
	flagCoordFailover // SENTINEL FAILOVER ... COORDINATED runs (go-sentinel and Valkey 9)
	flagScriptKillSent
	flagMasterReboot
)

// flagNames lists the flags in the order `flags` fields show them, with
// the kind names interleaved where Redis puts them.
var flagNames = []struct {
	f    flag
	name string
}{
	{flagSDown, "s_down"},
	{flagODown, "o_down"},
}

var flagNamesAfterKind = []struct {
	f    flag
	name string
}{
	{flagMasterDown, "master_down"},
	{flagFailoverInProgress, "failover_in_progress"},
	{flagPromoted, "promoted"},
	{flagReconfSent, "reconf_sent"},
	{flagReconfInprog, "reconf_inprog"},
	{flagReconfDone, "reconf_done"},
	{flagForceFailover, "force_failover"},
	{flagCoordFailover, "coordinated_failover"},
	{flagScriptKillSent, "script_kill_sent"},
	{flagMasterReboot, "master_reboot"},
}

// instance is a master, a replica or another Sentinel as this Sentinel
// sees it. All times are Unix milliseconds; 0 means never, as in Redis, so
// `now - t` for a t that never happened is huge.
type instance struct {
	kind   kind
	name   string // master name, `ip:port` of a replica, run id of a sentinel
	addr   settings.Addr
	runID  string
	master *master // the master this object belongs to (itself for a master)
	link   *link
	flags  flag

	downAfter int64 // ms

	sdownSince int64
	odownSince int64

	// infoFacts is what the object's INFO reports (masters and
	// replicas).
	infoFacts

	// lastPubTime is the last hello we sent to it that was accepted.
	lastPubTime int64

	// leader and leaderEpoch are a vote: for a master, our own vote to
	// fail it over; for a sentinel object, its vote as its last
	// IS-MASTER-DOWN-BY-ADDR reply gave it.
	leader      string
	leaderEpoch uint64

	// peerFacts is what this Sentinel knows of another one (sentinel
	// objects).
	peerFacts
	// replicaFacts is what a reconfiguration and forgetting need of a
	// replica (replica objects).
	replicaFacts

	// removed is set when the object leaves the state (a reply may still
	// arrive for it).
	removed bool
}

func (i *instance) has(f flag) bool { return i.flags&f != 0 }

// flagString renders the flags field of SENTINEL MASTER and friends: the
// flags of an object of kind k whose link is disconnected or not;
// master_reboot only when reboot is set (Options.MasterRebootFlag).
func flagString(k kind, flags flag, disconnected, reboot bool) string {
	if !reboot {
		flags &^= flagMasterReboot
	}
	var parts []string
	for _, f := range flagNames {
		if flags&f.f != 0 {
			parts = append(parts, f.name)
		}
	}
	parts = append(parts, k.String())
	if disconnected {
		parts = append(parts, "disconnected")
	}
	for _, f := range flagNamesAfterKind {
		if flags&f.f != 0 {
			parts = append(parts, f.name)
		}
	}
	return strings.Join(parts, ",")
}

// prefix is the instance part of an event message (§11.1 of the
// reference): `master <name> <ip> <port>`, or for replicas and sentinels
// `<type> <name> <ip> <port> @ <master> <master-ip> <master-port>`.
func (i *instance) prefix(announce func(settings.Addr) string) string {
	switch i.kind {
	case kindMaster:
		return fmt.Sprintf("master %s %s %d", i.name, announce(i.addr), i.addr.Port)
	case kindReplica:
		m := i.master
		return fmt.Sprintf("slave %s %s %d @ %s %s %d", i.name, announce(i.addr), i.addr.Port,
			m.name, announce(m.addr), m.addr.Port)
	default:
		m := i.master
		return fmt.Sprintf("sentinel %s %s %d @ %s %s %d", i.name, announce(i.addr), i.addr.Port,
			m.name, announce(m.addr), m.addr.Port)
	}
}

// sameAddr compares two addresses: same port and the same host, where
// numeric IPs are compared in canonical form (so "::ffff:10.0.0.1" and
// "10.0.0.1", or "2001:db8:0::1" and "2001:db8::1", are the same host)
// and hostnames case-insensitively as written.
func sameAddr(a, b settings.Addr) bool {
	if a.Port != b.Port {
		return false
	}
	if strings.EqualFold(a.Host, b.Host) {
		return true
	}
	ai, aok := settings.CanonicalIP(a.Host)
	bi, bok := settings.CanonicalIP(b.Host)
	return aok && bok && ai == bi
}
