package election

import "fmt"

// NoQuorumCode is the error code of a failed SENTINEL CKQUORUM.
const NoQuorumCode = "NOQUORUM"

// Check is the verdict of SENTINEL CKQUORUM: whether the Sentinels that
// are Usable now could reach the master's quorum and a majority.
type Check struct {
	// Usable is how many Sentinels are usable, this one included.
	Usable int
	// NoQuorum is true when they are fewer than the quorum.
	NoQuorum bool
	// NoMajority is true when they are fewer than the Majority of all
	// known Sentinels, so no failover could be authorized.
	NoMajority bool
}

// CheckQuorum is Redis 7.0's SENTINEL CKQUORUM over the peers of a master
// with quorum and voters floor (0: none): this Sentinel and the Usable
// peers against the quorum and the Majority of the Voters (all the known
// Sentinels, or the floor when it is larger, as an election counts them).
func CheckQuorum(peers []Peer, quorum, floor int) Check {
	usable := UsableCount(peers)
	return Check{Usable: usable, NoQuorum: usable < quorum, NoMajority: usable < Majority(Voters(len(peers)+1, floor))}
}

// OK reports whether both the quorum and the majority can be reached.
func (c Check) OK() bool { return !c.NoQuorum && !c.NoMajority }

// OKText is Redis's status text for a successful check.
func (c Check) OKText() string {
	return fmt.Sprintf("OK %d usable Sentinels. Quorum and failover authorization can be reached", c.Usable)
}

// NoQuorumText is Redis's error text for a failed check, after the
// NoQuorumCode.
func (c Check) NoQuorumText() string {
	msg := fmt.Sprintf("%d usable Sentinels. ", c.Usable)
	if c.NoQuorum {
		msg += "Not enough available Sentinels to reach the specified quorum for this master"
	}
	if c.NoQuorum && c.NoMajority {
		msg += ". "
	}
	if c.NoMajority {
		msg += "Not enough available Sentinels to reach the majority and authorize a failover"
	}
	return msg
}

// Reply is the whole reply text without the RESP framing: OKText when the
// check is OK, else the NoQuorumCode and NoQuorumText.
func (c Check) Reply() string {
	if c.OK() {
		return c.OKText()
	}
	return NoQuorumCode + " " + c.NoQuorumText()
}
