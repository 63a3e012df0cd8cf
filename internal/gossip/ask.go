package gossip

import (
	"errors"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/cnum"
)

// This file holds SENTINEL IS-MASTER-DOWN-BY-ADDR, with which one Sentinel
// asks another whether a master is down and, when it runs a failover, for
// its vote; the core's sdown.go asks and its vote.go answers.

// NoVote is the run id an AskRequest carries when it asks only whether the
// master is down, not for a vote, and the leader an AskReply names when no
// vote was asked for or none was cast.
const NoVote = "*"

// ErrNotInteger is returned by ParseAskRequest when the port or the epoch
// is not an integer in Redis's strict syntax, or the port is outside the
// int32 range. Its text is Redis's error message without the ERR code,
// which only the RESP layer writes.
var ErrNotInteger = errors.New("value is not an integer or out of range")

// AskRequest is SENTINEL IS-MASTER-DOWN-BY-ADDR as one Sentinel sends it to
// another: the master's address as the sender announces it, the sender's
// current epoch and, when it asks for a vote, its own run id (NoVote
// otherwise).
type AskRequest struct {
	IP           string
	Port         int
	CurrentEpoch uint64
	RunID        string
}

// Args returns the command as sent on the wire:
// `SENTINEL is-master-down-by-addr <ip> <port> <current-epoch> <runid>`,
// with the strings as given and the numbers in decimal. It returns a new
// slice on every call, which the caller may modify. A current epoch above
// MaxInt64 is written as is, though ParseAskRequest (like Redis) rejects
// it.
func (r AskRequest) Args() []string {
	return []string{"SENTINEL", "is-master-down-by-addr", r.IP, strconv.Itoa(r.Port),
		strconv.FormatUint(r.CurrentEpoch, 10), r.RunID}
}

// AsksVote reports whether r asks for a vote: its run id is not NoVote.
func (r AskRequest) AsksVote() bool { return r.RunID != NoVote }

// ParseAskRequest reads the four arguments a Sentinel receives after
// SENTINEL IS-MASTER-DOWN-BY-ADDR: ip, port, epoch and run id. The ip and
// the run id are taken as given. The port and the epoch are read as Redis
// reads integer arguments (cnum.ParseLongLong: an optional minus, no plus
// sign, no leading zeros, no spaces, within int64), the port must also fit
// in an int32, and a negative epoch is taken modulo 2^64 as Redis's cast
// to uint64_t does. The only error is ErrNotInteger.
func ParseAskRequest(ip, port, epoch, runID string) (AskRequest, error) {
	p, ok := parsePort(port)
	if !ok {
		return AskRequest{}, ErrNotInteger
	}
	e, ok := cnum.ParseLongLong(epoch)
	if !ok {
		return AskRequest{}, ErrNotInteger
	}
	return AskRequest{IP: ip, Port: p, CurrentEpoch: uint64(e), RunID: runID}, nil
}

// parsePort reads a port argument as Redis reads it: an integer in
// Redis's strict syntax (cnum.ParseLongLong) that fits in an int32.
func parsePort(s string) (int, bool) {
	p, ok := cnum.ParseLongLong(s)
	if !ok || p < -1<<31 || p > 1<<31-1 {
		return 0, false
	}
	return int(p), true
}

// AskReply is the answer to SENTINEL IS-MASTER-DOWN-BY-ADDR: whether the
// answering Sentinel thinks the master is down and, when a vote was asked
// for, the run id it voted for and the epoch of that vote.
type AskReply struct {
	Down        bool
	Leader      string // NoVote when no vote was asked for or none was cast
	LeaderEpoch uint64
}

// NoVoteReply returns the reply for a master the answering Sentinel does
// not know, which is also where every other reply starts: not down, leader
// NoVote, leader epoch 0.
func NoVoteReply() AskReply { return AskReply{Leader: NoVote} }

// Elements returns the three elements of r as written on the wire, in
// order: the integer 1 when Down and 0 otherwise, the bulk string Leader,
// and the integer LeaderEpoch, which wraps above MaxInt64 as Redis's cast
// to long long does.
func (r AskReply) Elements() (down int64, leader string, leaderEpoch int64) {
	if r.Down {
		down = 1
	}
	return down, r.Leader, int64(r.LeaderEpoch)
}

// ParseAskReply reads a received reply to SENTINEL IS-MASTER-DOWN-BY-ADDR
// from the elements of the array the caller's RESP reader decoded: each
// integer as an int64, each string as a string, anything else (an error, a
// nil, a nested array) as some other value such as nil; a reply that is not
// an array has no elements. Like Redis 7.0.15 it accepts exactly three
// elements, an integer, a string and an integer, and reports false for any
// other shape, which the caller ignores. Down is true only for the integer
// 1; the leader epoch is the integer read as a uint64 (modulo 2^64).
func ParseAskReply(elems []any) (AskReply, bool) {
	if len(elems) != 3 {
		return AskReply{}, false
	}
	down, ok0 := elems[0].(int64)
	leader, ok1 := elems[1].(string)
	epoch, ok2 := elems[2].(int64)
	if !ok0 || !ok1 || !ok2 {
		return AskReply{}, false
	}
	return AskReply{Down: down == 1, Leader: leader, LeaderEpoch: uint64(epoch)}, true
}

// AnswerDown is the answer's "down" for a master: whether the answering
// Sentinel thinks it subjectively down, and never while it is in TILT
// (Redis's sentinelCommand "is-master-down-by-addr").
func AnswerDown(sdown, tilt bool) bool { return sdown && !tilt }

// AnswerStale reports whether a peer's answer, age milliseconds old, is
// forgotten: after 5 ask periods (askPeriod in milliseconds), as Redis
// clears SRI_MASTER_DOWN and the leader it named.
func AnswerStale(age, askPeriod int64) bool { return age > 5*askPeriod }
