package respserver

import (
	"errors"
	"strconv"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// errNoSuchMaster is Redis's reply for an unknown master name.
const errNoSuchMaster = Err("ERR No such master with that name")

// errReply turns a core error into Redis's reply text. Only this layer
// knows the wire spelling of errors.
func errReply(err error) Value {
	var qe *view.QuorumError
	switch {
	case errors.Is(err, view.ErrNoSuchMaster):
		return errNoSuchMaster
	case errors.As(err, &qe):
		return Err(qe.Reply())
	case errors.Is(err, monitor.ErrFailoverInProgress):
		return Err("INPROG Failover already in progress")
	case errors.Is(err, monitor.ErrNoGoodReplica):
		return Err("NOGOODSLAVE No suitable replica to promote")
	case errors.Is(err, monitor.ErrNoGoodPrimary):
		return Err("NOGOODPRIMARY Primary does not support FAILOVER command")
	default:
		return Err("ERR " + err.Error())
	}
}

func kvMap(kv []view.KV) Map {
	m := make(Map, 0, 2*len(kv))
	for _, f := range kv {
		m = append(m, Bulk(f.Key), Bulk(f.Value))
	}
	return m
}

func kvMaps(list [][]view.KV) Array {
	out := make(Array, 0, len(list))
	for _, kv := range list {
		out = append(out, kvMap(kv))
	}
	return out
}

func cmdSentinelMasters(x *ctx) Value {
	v, now, ev := x.view()
	if ev != nil {
		return ev
	}
	return kvMaps(v.Masters(now))
}

func cmdSentinelMaster(x *ctx) Value {
	v, now, ev := x.view()
	if ev != nil {
		return ev
	}
	kv, err := v.Master(now, x.arg(2))
	if err != nil {
		return errReply(err)
	}
	return kvMap(kv)
}

func cmdSentinelReplicas(x *ctx) Value {
	v, now, ev := x.view()
	if ev != nil {
		return ev
	}
	list, err := v.Replicas(now, x.arg(2))
	if err != nil {
		return errReply(err)
	}
	return kvMaps(list)
}

func cmdSentinelSentinels(x *ctx) Value {
	v, now, ev := x.view()
	if ev != nil {
		return ev
	}
	list, err := v.Sentinels(now, x.arg(2))
	if err != nil {
		return errReply(err)
	}
	return kvMaps(list)
}

func cmdSentinelGetMasterAddr(x *ctx) Value {
	v, ev := x.viewOnly()
	if ev != nil {
		return ev
	}
	addr, ok := v.MasterAddr(x.arg(2))
	if !ok {
		return NullArray{}
	}
	return addrReply{addr.Host, addr.Port}
}

// addrReply is GET-MASTER-ADDR-BY-NAME's reply, the array of a host and
// a port (both bulk strings, as Array{Bulk(host), Bulk(port)} encodes
// them), encoded without building the array.
type addrReply struct {
	host string
	port int
}

func (v addrReply) appendTo(b []byte, _ int) []byte {
	var digits [20]byte
	port := strconv.AppendInt(digits[:0], int64(v.port), 10)
	b = append(b, "*2\r\n$"...)
	b = strconv.AppendInt(b, int64(len(v.host)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v.host...)
	b = append(b, "\r\n$"...)
	b = strconv.AppendInt(b, int64(len(port)), 10)
	b = append(b, '\r', '\n')
	b = append(b, port...)
	return append(b, '\r', '\n')
}

func cmdSentinelIsMasterDown(x *ctx) Value {
	req, err := gossip.ParseAskRequest(x.arg(2), x.arg(3), x.arg(4), x.arg(5))
	if err != nil {
		return errIntArg // gossip.ErrNotInteger, its only error
	}
	if rep, ok := x.c.group.take(); ok {
		return askReplyValue(rep) // answered with its group (loopGroup)
	}
	if !req.AsksVote() {
		// An ask without a vote changes nothing: the View answers it
		// without waiting for the loop (view.View.AnswerAsk).
		v, _, ev := x.view()
		if ev != nil {
			return ev
		}
		if rep, ok := v.AnswerAsk(req); ok {
			return askReplyValue(rep)
		}
	}
	rep, _, ev := x.step(msg.IsMasterDownByAddr{Request: req})
	if ev != nil {
		return ev
	}
	return askReplyValue(rep.(gossip.AskReply))
}

// askReplyValue writes an IS-MASTER-DOWN-BY-ADDR reply as its RESP array.
func askReplyValue(rep gossip.AskReply) Value {
	down, leader, epoch := rep.Elements()
	return Array{Int(down), Bulk(leader), Int(epoch)}
}

// cmdSentinelLease answers SENTINEL LEASE (gossip.LeaseRequest): an
// array with, for each master asked about, 1 when the lease is granted
// and 0 when it is refused. A malformed request changes nothing.
func cmdSentinelLease(x *ctx) Value {
	req, err := gossip.ParseLeaseRequest(stringArgs(x.args[2:]))
	switch {
	case errors.Is(err, gossip.ErrNotInteger):
		return errIntArg
	case err != nil:
		return Err("ERR " + err.Error())
	}
	ans, _, ev := x.step(msg.Lease{Request: req})
	if ev != nil {
		return ev
	}
	granted := ans.(msg.LeaseAnswer)
	out := make(Array, len(granted))
	for k, g := range granted {
		out[k] = Int(0)
		if g {
			out[k] = Int(1)
		}
	}
	return out
}

func cmdSentinelCkQuorum(x *ctx) Value {
	v, _, ev := x.view()
	if ev != nil {
		return ev
	}
	ck, err := v.CheckQuorum(x.arg(2))
	if err != nil {
		return errReply(err)
	}
	return Status(ck.Reply())
}

func cmdSentinelInfoCache(x *ctx) Value {
	names := make([]string, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		names = append(names, string(a))
	}
	var masters []string
	var entries [][]view.InfoCacheEntry
	if _, ev := x.exec(func(core monitor.Handle, now time.Time) { masters, entries = core.InfoCache(now, names) }); ev != nil {
		return ev
	}
	out := make(Array, 0, 2*len(masters))
	for k, name := range masters {
		list := make(Array, 0, len(entries[k]))
		for _, e := range entries[k] {
			var info Value = Null{}
			if e.Has {
				info = Bulk(e.Info)
			}
			list = append(list, Array{Int(e.Age), info})
		}
		out = append(out, Bulk(name), list)
	}
	return out
}

// cmdPublish accepts only hellos on the hello channel, processed as if
// received from an instance (§12.3); the reply is always 1.
func cmdPublish(x *ctx) Value {
	if x.arg(1) != gossip.Channel {
		return Err("ERR Only HELLO messages are accepted by Sentinel instances.")
	}
	if _, ok := x.c.group.take(); ok {
		return Int(1) // stepped with its group (loopGroup)
	}
	payload := x.arg(2)
	if _, _, ev := x.step(msg.HelloFromClient{Payload: payload}); ev != nil {
		return ev
	}
	return Int(1)
}
