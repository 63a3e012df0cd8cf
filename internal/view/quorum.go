package view

import (
	"errors"

	"github.com/go-sentinel/go-sentinel/internal/election"
	"github.com/go-sentinel/go-sentinel/internal/object"
)

// ErrNoQuorum is what a *QuorumError from CheckQuorum wraps: the usable
// Sentinels cannot reach the quorum or the majority.
var ErrNoQuorum = errors.New("NOQUORUM")

// QuorumError is a failed CheckQuorum: its check, whose NoQuorumText is
// the error text.
type QuorumError struct {
	election.Check
}

// Error is Redis's reply text after the NOQUORUM code.
func (e *QuorumError) Error() string { return e.NoQuorumText() }

// Unwrap returns ErrNoQuorum.
func (e *QuorumError) Unwrap() error { return ErrNoQuorum }

// CheckQuorum is SENTINEL CKQUORUM: whether the Sentinels that are
// usable now could reach the master's quorum and a majority, counted as
// an election counts it, over the voters floor when it is larger
// (election.CheckQuorum). The error is a *QuorumError, with the same
// check, when they could not.
func (v *View) CheckQuorum(name string) (election.Check, error) {
	mv, err := v.master(name)
	if err != nil {
		return election.Check{}, err
	}
	peers := make([]election.Peer, len(mv.Sentinels))
	for k, si := range mv.Sentinels {
		l := si.Link.Load()
		peers[k] = object.ElectionPeer(si.RunID, si.Flags, !object.Disconnected(object.Sentinel, l.CCUp, l.PCUp), si.Leader, si.LeaderEpoch)
	}
	ck := election.CheckQuorum(peers, mv.Quorum, mv.Voters)
	if !ck.OK() {
		return ck, &QuorumError{Check: ck}
	}
	return ck, nil
}
