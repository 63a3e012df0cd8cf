package object

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/election"
)

// Flag is one bit of an instance's state, as Redis's SRI_* flags; a Flag
// value is a set of them.
type Flag uint32

// The flags.
const (
	SDown Flag = 1 << iota
	ODown
	MasterDown // a sentinel object said the master is down
	FailoverInProgress
	Promoted
	ReconfSent
	ReconfInprog
	ReconfDone
	ForceFailover
	CoordFailover // SENTINEL FAILOVER ... COORDINATED runs (go-sentinel and Valkey 9)
	ScriptKillSent
	MasterReboot
)

// flagNames lists the flags in the order `flags` fields show them, with
// the kind names interleaved where Redis puts them.
var flagNames = []struct {
	f    Flag
	name string
}{
	{SDown, "s_down"},
	{ODown, "o_down"},
}

var flagNamesAfterKind = []struct {
	f    Flag
	name string
}{
	{MasterDown, "master_down"},
	{FailoverInProgress, "failover_in_progress"},
	{Promoted, "promoted"},
	{ReconfSent, "reconf_sent"},
	{ReconfInprog, "reconf_inprog"},
	{ReconfDone, "reconf_done"},
	{ForceFailover, "force_failover"},
	{CoordFailover, "coordinated_failover"},
	{ScriptKillSent, "script_kill_sent"},
	{MasterReboot, "master_reboot"},
}

// FlagString renders the flags field of SENTINEL MASTER and friends: the
// flags of an object of kind k whose link is disconnected or not;
// master_reboot only when reboot is set (Options.MasterRebootFlag).
func FlagString(k Kind, flags Flag, disconnected, reboot bool) string {
	if !reboot {
		flags &^= MasterReboot
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

// ElectionPeer is the election.Peer of a Sentinel with these flags, link
// state and last vote (the core's election, and the View's CKQUORUM).
func ElectionPeer(runID string, flags Flag, linkUp bool, leader string, leaderEpoch uint64) election.Peer {
	return election.Peer{
		RunID:       runID,
		LinkUp:      linkUp,
		SDown:       flags&SDown != 0,
		ODown:       flags&ODown != 0,
		ReportsDown: flags&MasterDown != 0,
		Leader:      leader,
		LeaderEpoch: leaderEpoch,
	}
}
