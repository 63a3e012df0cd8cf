package links

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// A pub/sub link reads its connection directly rather than through a
// go-redis client: go-redis v9 gives every PubSub connection fixed 32 KiB
// read and write buffers (newPubSubPool ignores Options.ReadBufferSize and
// WriteBufferSize), 64 KiB per link that never carries more than a hello of
// about 200 bytes. The link only writes its handshake and then reads
// messages, so the shared read buffers of chunkReader and the RESP2
// decoder of parseReply do; an idle pub/sub link holds no buffer.

// servePubSub sends the pub/sub handshake on conn and then delivers what
// the instance pushes until the link ends or fails. The handshake is
// `AUTH [user] pass` (when a password is set), `CLIENT SETNAME <name>` (when
// named) and `SUBSCRIBE <channel>`, each first word renamed per the link's
// Renames, written at once. Replies to AUTH and CLIENT are ignored; an error
// reply to SUBSCRIBE fails the link (as hiredis drops it), a good one is the
// link's first pub/sub activity. Then a "message" is a PubSubMessage, any
// other array (a subscription change, a pong) is pub/sub activity, and an
// error reply or anything else fails the link.
func (lk *link) servePubSub(conn net.Conn) {
	defer lk.links.wg.Done()
	if err := lk.subscribe(conn); err != nil {
		lk.fail(err)
		return
	}
	rd := newChunkReader(conn)
	var rest []byte    // the start of a push not complete yet
	var scan replyScan // follows rest
	k := 0             // replies read so far
	for {
		chunk, err := rd.read()
		if err != nil {
			lk.fail(err)
			return
		}
		data := chunk
		var sc *replyScan // data is rest, which scan follows
		if len(rest) > 0 {
			rest = append(rest, chunk...)
			data = rest
			sc = &scan
		}
		for len(data) > 0 {
			r, n, err := parseKept(data, sc, false)
			sc = nil
			if errors.Is(err, errIncomplete) {
				break
			}
			if err == nil {
				data = data[n:]
				err = lk.push(k, r)
				k++
			}
			if err != nil {
				rd.release()
				lk.fail(err)
				return
			}
		}
		if len(data) == 0 {
			rest = nil // held only while a push is incomplete
		} else if len(rest) > 0 {
			rest = append(rest[:0], data...) // data is within rest
		} else {
			rest = append([]byte(nil), data...)
		}
		rd.release()
		if lk.ended.Load() {
			return
		}
	}
}

// push handles the k-th reply read on a pub/sub link (see servePubSub);
// an error fails the link.
func (lk *link) push(k int, r msg.Reply) error {
	if k < lk.handshakeReplies() {
		if k == lk.handshakeReplies()-1 { // the SUBSCRIBE reply
			if r.Kind == msg.ReplyError {
				return fmt.Errorf("%w: %s", ErrSubscribeRejected, r.Str)
			}
			lk.deliver(msg.PubSubActivity{ID: lk.spec.ID})
		}
		return nil
	}
	switch {
	case r.Kind == msg.ReplyError:
		return fmt.Errorf("links: error on the pub/sub link: %s", r.Str)
	case r.Kind != msg.ReplyArray:
		return fmt.Errorf("%w: pub/sub push is not an array", ErrMalformedReply)
	case isMessage(r):
		lk.deliver(msg.PubSubMessage{ID: lk.spec.ID, Channel: r.Elems[1].Str, Payload: r.Elems[2].Str})
	default:
		lk.deliver(msg.PubSubActivity{ID: lk.spec.ID})
	}
	return nil
}

// handshakeReplies is how many replies the pub/sub handshake gets, the last
// one being SUBSCRIBE's.
func (lk *link) handshakeReplies() int { return handshakeLen(lk.spec) + 1 }

// subscribe writes the pub/sub handshake in one write.
func (lk *link) subscribe(conn net.Conn) error {
	_, err := conn.Write(lk.subscription())
	return err
}

// subscription is the pub/sub handshake: the link's handshake and
// SUBSCRIBE.
func (lk *link) subscription() []byte {
	buf := appendHandshake(make([]byte, 0, 256), lk.spec)
	return appendCommand(buf, renamed(lk.spec.Renames, "SUBSCRIBE"), lk.spec.Channel)
}

// isMessage reports whether r is a ["message", channel, payload] push.
func isMessage(r msg.Reply) bool {
	return len(r.Elems) == 3 && r.Elems[0].Kind == msg.ReplyString && r.Elems[0].Str == "message" &&
		r.Elems[1].Kind == msg.ReplyString && r.Elems[2].Kind == msg.ReplyString
}

// appendCommand appends args to buf as a RESP2 command (an array of bulk
// strings).
func appendCommand(buf []byte, args ...string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(args)), 10)
	buf = append(buf, '\r', '\n')
	for _, a := range args {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(a)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, a...)
		buf = append(buf, '\r', '\n')
	}
	return buf
}
