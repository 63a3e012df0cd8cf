package links

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// mergeLinks makes New merge links (see merged) unless Options.TwoLinks;
// the tests also run with it off.
var mergeLinks = true

// ErrCarrierClosed is the LinkClosed reason of a pub/sub link riding a
// command link's connection (see merged) when that connection ends.
var ErrCarrierClosed = errors.New("links: the command link this pub/sub link rides on closed")

// A Sentinel keeps two links to every master and replica: a command link
// and a pub/sub link subscribed to the hello channel, each its own
// connection, as redis-sentinel does. Over RESP3 one connection carries
// both: the subscription's messages come as push frames ('>') between the
// replies, and any command may be sent while subscribed. So when Links
// merge (the default; Options.TwoLinks turns it off), a pub/sub link opened
// to the instance a command link of the same credentials and renames
// already has (a carrier) rides the carrier's connection instead of
// dialing its own:
//
//   - The carrier asks `HELLO 3` (renamed per the link's Renames) behind
//     what it has sent, only when a pub/sub link first wants to ride it, so
//     a link to a Sentinel or one no pub/sub link pairs with never changes
//     protocol; the handshake (AUTH, CLIENT SETNAME) is what it always was.
//   - If the reply is a map with proto 3 (Redis 6 or later, HELLO not
//     renamed away, the connection authenticated), the rider's SUBSCRIBE is
//     written on the carrier and its LinkConnected delivered; its pushes
//     (subscribe confirmation, messages) go to the rider, replies to the
//     carrier's Sends, in order. Anything else (an error: Redis 5, HELLO
//     renamed or disabled, NOAUTH after a wrong password) and the rider,
//     and every pub/sub link after it, dials a connection of its own, as
//     before: two RESP2 links.
//   - Replies over RESP3 are given to the core as RESP2 would have carried
//     them (parseReply3), so the core sees the same inputs either way.
//   - The carrier keeps its name (CLIENT SETNAME sentinel-<id>-cmd): it is
//     named before anyone knows whether a rider will come, and stays the
//     command link whatever rides it.
//   - Fate: when the carrier ends (failed, or closed by the core) its rider
//     gets a LinkClosed (ErrCarrierClosed), delivered at once, also when the
//     connection closed while no reply was awaited; the core reopens both.
//     When the rider is closed by the core, the carrier goes on: the rider
//     is detached, the subscription left in place and its pushes dropped
//     until a new rider subscribes again (its first push is the new
//     SUBSCRIBE's confirmation, so nothing sent for the old one reaches it).
//
// Redis counts a RESP3 connection with a subscription as type pubsub: the
// CLIENT KILL TYPE pubsub of a failover's transaction (SKIPME yes) kills
// the merged links of the other Sentinels, whose two links CLIENT KILL TYPE
// normal and pubsub both killed anyway, and spares the sender's; and the
// pubsub client-output-buffer-limit (32mb 8mb 60 by default) applies to it,
// which the replies a Sentinel asks for (INFO, a few KB) stay far below.
type merged struct {
	// A carrier's (a command link of merging Links), guarded by lk.mu
	// unless marked.
	key       string      // the carrierKey it is registered under; "" if none
	proto     protoState  // what HELLO 3 found
	rider     *link       // the pub/sub link riding, or waiting to ride, it
	riderOK   bool        // the rider's SUBSCRIBE is confirmed
	helloSent atomic.Bool // HELLO 3 was queued: replies are parsed as RESP3
	resp3     bool        // the reader's (loop's): pushes come as '>' frames

	// A rider's: the carrier it rides or waits for, set before the link
	// is shared; nil once it dials a connection of its own (lk.mu).
	carrier *link
}

// protoState is what a carrier knows of its connection's protocol.
type protoState uint8

// The protoStates, in the order a carrier goes through them.
const (
	protoNone  protoState = iota // HELLO not asked
	protoAsked                   // HELLO 3 sent, its reply not read yet
	protoRESP2                   // refused: no rider
	protoRESP3                   // riders welcome
)

// The tags of a carrier's own Sends (sentOf): the core's tags count up from
// 1 and never reach tagOwn.
const (
	tagOwn   = uint64(1) << 63
	tagHello = tagOwn
	tagSub   = tagOwn | 1<<62 // | the rider's LinkID
)

// sentOf is the record of s awaiting its reply.
func sentOf(s msg.Send) sent {
	switch {
	case s.Tag&tagSub == tagSub:
		return sent{tag: s.Tag, kind: sentSub}
	case s.Tag&tagOwn != 0:
		return sent{tag: s.Tag, kind: sentHello}
	case len(s.Args) == 0:
		return sent{tag: s.Tag, kind: sentEmpty}
	}
	return sent{tag: s.Tag, kind: sentCmd}
}

// carrierKey is what a command link and a pub/sub link must share for one
// to ride the other: the address, the credentials and the renames.
func carrierKey(spec msg.OpenLink) string {
	var b strings.Builder
	b.WriteString(spec.Addr.String())
	b.WriteByte(0)
	b.WriteString(strconv.Quote(spec.Auth.User))
	b.WriteString(strconv.Quote(spec.Auth.Pass))
	names := make([]string, 0, len(spec.Renames))
	for k := range spec.Renames {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		b.WriteString(strconv.Quote(k))
		b.WriteString(strconv.Quote(spec.Renames[k]))
	}
	return b.String()
}

// share, with l.mu held, registers a new command link as a carrier, or
// has a new pub/sub link ride a carrier of its key; it reports whether
// lk rides (it then dials nothing).
func (l *Links) share(lk *link) bool {
	key := carrierKey(lk.spec)
	if lk.spec.Kind == msg.CmdLink {
		lk.key = key
		l.carriers[key] = append(l.carriers[key], lk)
		return false
	}
	for _, c := range l.carriers[key] {
		if c.offer(lk) {
			return true
		}
	}
	return false
}

// dropCarrier forgets c as a carrier.
func (l *Links) dropCarrier(c *link) {
	l.mu.Lock()
	defer l.mu.Unlock()
	list := slices.DeleteFunc(l.carriers[c.key], func(x *link) bool { return x == c })
	if len(list) == 0 {
		delete(l.carriers, c.key)
	} else {
		l.carriers[c.key] = list
	}
}

// offer has rider ride c if c is free for one (l.mu held): at once when c
// speaks RESP3 already, else once HELLO 3 is answered (verdict).
func (c *link) offer(rider *link) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended.Load() || c.proto == protoRESP2 || c.rider != nil {
		return false
	}
	rider.mu.Lock()
	rider.carrier = c
	rider.mu.Unlock()
	c.rider, c.riderOK = rider, false
	switch c.proto {
	case protoNone:
		c.proto = protoAsked
		c.helloSent.Store(true)
		c.enqueueLocked(msg.Send{Tag: tagHello, Args: []string{renamed(c.spec.Renames, "HELLO"), "3"}})
	case protoRESP3:
		c.links.wg.Add(1) // l.mu is held: the Links are not closed
		go func() {
			defer c.links.wg.Done()
			c.carry(rider)
		}()
	}
	return true
}

// carry reports rider connected and writes its SUBSCRIBE on c.
func (c *link) carry(rider *link) {
	rider.deliver(msg.LinkConnected{ID: rider.spec.ID})
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rider == rider && !rider.ended.Load() {
		c.enqueueLocked(msg.Send{Tag: tagSub | uint64(rider.spec.ID),
			Args: []string{renamed(rider.spec.Renames, "SUBSCRIBE"), rider.spec.Channel}})
	}
}

// verdict takes the reply to c's HELLO 3: a map with proto 3 lets the
// rider ride c; anything else sends it, and every later pub/sub link, to
// a connection of its own.
func (c *link) verdict(r msg.Reply) {
	ok := helloProto3(r)
	c.mu.Lock()
	rider := c.rider
	if ok {
		c.proto = protoRESP3
		c.resp3 = true
	} else {
		c.proto = protoRESP2
		c.rider = nil
	}
	c.mu.Unlock()
	c.links.logf("link %d (%s): HELLO 3: %v, one connection: %v", c.spec.ID, c.spec.Addr.String(), r, ok)
	if ok {
		if rider != nil {
			c.carry(rider)
		}
		return
	}
	c.links.dropCarrier(c)
	if rider != nil {
		rider.dialOwn()
	}
}

// helloProto3 reports whether r is HELLO's map (an array of keys and
// values) with proto 3.
func helloProto3(r msg.Reply) bool {
	if r.Kind != msg.ReplyArray {
		return false
	}
	for k := 0; k+1 < len(r.Elems); k += 2 {
		if r.Elems[k].Kind == msg.ReplyString && r.Elems[k].Str == "proto" {
			return r.Elems[k+1].Kind == msg.ReplyInt && r.Elems[k+1].Int == 3
		}
	}
	return false
}

// dialOwn has a rider whose carrier refused RESP3 dial a connection of its
// own.
func (lk *link) dialOwn() {
	lk.mu.Lock()
	lk.carrier = nil
	lk.mu.Unlock()
	l := lk.links
	l.mu.Lock()
	if l.closed || lk.ended.Load() {
		l.mu.Unlock()
		lk.end()
		return
	}
	l.wg.Add(1)
	l.mu.Unlock()
	go lk.run()
}

// subscribeRefused takes a reply to a rider's SUBSCRIBE (tag) that is not
// a push: its error. The rider, if still riding, is dropped, as a pub/sub
// link whose SUBSCRIBE is refused is.
func (c *link) subscribeRefused(tag uint64, r msg.Reply) {
	c.mu.Lock()
	rider := c.rider
	if rider == nil || tag != tagSub|uint64(rider.spec.ID) {
		c.mu.Unlock()
		return
	}
	c.rider = nil
	c.mu.Unlock()
	rider.fail(fmt.Errorf("%w: %s", ErrSubscribeRejected, r.Str))
}

// routePush delivers a push read on c to its rider: the confirmation of
// the rider's SUBSCRIBE (which answers the sentSub at the head) as its
// first pub/sub activity, then messages and other activity; pushes before
// that confirmation, or while no rider rides, are dropped. It reports
// false once c has ended.
func (c *link) routePush(r msg.Reply) bool {
	var kind string
	if len(r.Elems) > 0 {
		kind = r.Elems[0].Str
	}
	c.mu.Lock()
	if c.ended.Load() {
		c.mu.Unlock()
		return false
	}
	rider := c.rider
	var in msg.Input
	switch {
	case kind == "subscribe":
		if len(c.inflight) > 0 && c.inflight[0].kind == sentSub {
			s := c.inflight[0]
			c.inflight = c.inflight[1:]
			if rider != nil && !c.riderOK && s.tag == tagSub|uint64(rider.spec.ID) {
				c.riderOK = true
				in = msg.PubSubActivity{ID: rider.spec.ID}
			}
		}
	case rider == nil || !c.riderOK:
	case isMessage(r):
		in = msg.PubSubMessage{ID: rider.spec.ID, Channel: r.Elems[1].Str, Payload: r.Elems[2].Str}
	default:
		in = msg.PubSubActivity{ID: rider.spec.ID}
	}
	c.mu.Unlock()
	if in != nil {
		rider.deliver(in)
	}
	return true
}

// carries reports whether a rider rides (or waits for) lk's connection:
// then a closed connection fails lk at once, for the rider's sake.
func (lk *link) carries() bool {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	return lk.rider != nil
}

// takeRider, with lk.mu held, removes and returns lk's rider.
func (lk *link) takeRider() *link {
	r := lk.rider
	lk.rider = nil
	return r
}

// detach stops rider riding c.
func (c *link) detach(rider *link) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rider == rider {
		c.rider, c.riderOK = nil, false
	}
}

// unmerge undoes what ties an ended link to others: a rider leaves its
// carrier; a carrier is forgotten as one and its rider fails (unless the
// Links are closing, when it only ends).
func (lk *link) unmerge(carrier, rider *link, why error) {
	if carrier != nil {
		carrier.detach(lk)
	}
	if lk.key != "" {
		lk.links.dropCarrier(lk)
	}
	if rider == nil {
		return
	}
	l := lk.links
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		rider.end()
		return
	}
	l.wg.Add(1)
	l.mu.Unlock()
	go func() {
		defer l.wg.Done()
		err := fmt.Errorf("%w (link %d)", ErrCarrierClosed, lk.spec.ID)
		if why != nil {
			err = fmt.Errorf("%w: %w", err, why)
		}
		rider.fail(err)
	}()
}
