package gossip

import (
	"errors"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/cnum"
)

// This file holds SENTINEL LEASE, a go-sentinel extension with which the
// Sentinel of a master-following proxy asks each peer, in one command for
// every master it proxies, for a lease: "I hold the master at this
// address in this configuration epoch, it is not down for me, and I have
// not voted, nor been asked to vote, to fail it over in a newer epoch".
// The rule that grants is fence.Grant; redis-sentinel answers the
// command with an error and so never grants.

// LeaseSubcommand is the SENTINEL subcommand of a lease request.
const LeaseSubcommand = "lease"

// ErrLeaseArgs is returned by ParseLeaseRequest when the arguments do not
// come as a run id, a lease length and one or more triples of ip, port
// and epoch. Its text is the body of Redis's wrong-arity error, which
// only the RESP layer writes.
var ErrLeaseArgs = errors.New("wrong number of arguments for 'sentinel|lease' command")

// ErrLeaseLength is returned by ParseLeaseRequest for a lease length that
// is not a positive integer.
var ErrLeaseLength = errors.New("lease length must be a positive number of milliseconds")

// LeaseTarget is one master a lease is asked for: its address as the
// asker announces it and the configuration epoch the asker holds it at.
type LeaseTarget struct {
	IP    string
	Port  int
	Epoch uint64
}

// LeaseRequest is SENTINEL LEASE as one Sentinel sends it to another: its
// run id, the length of the lease in ms (the asker's proxy-fence-after,
// counted on the asker's clock from when it sent the request) and the
// masters.
type LeaseRequest struct {
	RunID   string
	LeaseMs int64
	Targets []LeaseTarget
}

// Args returns the command as sent on the wire:
// `SENTINEL lease <runid> <lease-ms> <ip> <port> <epoch> [<ip> <port> <epoch> ...]`.
// It returns a new slice on every call.
func (r LeaseRequest) Args() []string {
	out := make([]string, 0, 4+3*len(r.Targets))
	out = append(out, "SENTINEL", LeaseSubcommand, r.RunID, strconv.FormatInt(r.LeaseMs, 10))
	for _, t := range r.Targets {
		out = append(out, t.IP, strconv.Itoa(t.Port), strconv.FormatUint(t.Epoch, 10))
	}
	return out
}

// ParseLeaseRequest reads the arguments a Sentinel receives after
// SENTINEL LEASE. Numbers are read as Redis reads integer arguments
// (cnum.ParseLongLong); a port must fit in an int32 and an epoch must not
// be negative. Its errors are ErrLeaseArgs, ErrLeaseLength and
// ErrNotInteger.
func ParseLeaseRequest(args []string) (LeaseRequest, error) {
	if len(args) < 5 || (len(args)-2)%3 != 0 {
		return LeaseRequest{}, ErrLeaseArgs
	}
	ms, ok := cnum.ParseLongLong(args[1])
	if !ok {
		return LeaseRequest{}, ErrNotInteger
	}
	if ms <= 0 {
		return LeaseRequest{}, ErrLeaseLength
	}
	r := LeaseRequest{RunID: args[0], LeaseMs: ms, Targets: make([]LeaseTarget, 0, (len(args)-2)/3)}
	for i := 2; i < len(args); i += 3 {
		p, ok := parsePort(args[i+1])
		if !ok {
			return LeaseRequest{}, ErrNotInteger
		}
		e, ok := cnum.ParseLongLong(args[i+2])
		if !ok || e < 0 {
			return LeaseRequest{}, ErrNotInteger
		}
		r.Targets = append(r.Targets, LeaseTarget{IP: args[i], Port: p, Epoch: uint64(e)})
	}
	return r, nil
}

// ParseLeaseReply reads a received reply to a LeaseRequest of n targets:
// an array of exactly n integers, 1 for a lease granted and 0 for one
// refused. Anything else (an error, as redis-sentinel answers, or another
// shape) grants nothing and reports false.
func ParseLeaseReply(elems []any, isArray bool, n int) ([]bool, bool) {
	if !isArray || len(elems) != n {
		return nil, false
	}
	out := make([]bool, n)
	for i, e := range elems {
		v, ok := e.(int64)
		if !ok || (v != 0 && v != 1) {
			return nil, false
		}
		out[i] = v == 1
	}
	return out, true
}
