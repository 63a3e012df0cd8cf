package respserver

import (
	"errors"
	"net"
	"os"
	"time"
)

// defaultParkAfter is how long a client that can be parked (park_linux.go)
// stays idle between two requests before its reader goroutine parks it:
// between that and twice that. A client busier than that never pays for
// parking (an epoll_ctl, a wake-up and a goroutine per request); one idle
// longer costs no goroutine.
const defaultParkAfter = 250 * time.Millisecond

// defaultParkNewAfter is how long a new connection has to send its first
// request before it is parked. Clients send it as soon as they are
// connected, so they are served with no detour through the poller (a new
// connection per request is what many Sentinel clients do).
const defaultParkNewAfter = 10 * time.Millisecond

// defaultParkNewLimit is how many new connections may wait for their first
// request with a goroutine each; past that, a new connection is parked at
// once. A flood of connections that send nothing costs no more goroutines
// than that (the runtime keeps every goroutine it ever had, for reuse).
const defaultParkNewLimit = 64

// errIdle is returned by an idleReader when a whole period went by
// without a byte.
var errIdle = errors.New("client idle")

// idleReader reads a connection that can be parked, under a read deadline
// renewed at most once a period: a busy client pays for one
// SetReadDeadline per period, not one per read. When the deadline passes
// with no byte read since it was set, Read returns errIdle (and nothing is
// lost: the bytes that come later are read by the next Read).
//
// The first read of a client woken from parking has no deadline: it is
// readable, and a deadline that passed before that read was even tried
// would park it again with its bytes unread. A new connection's first
// read has a deadline of its own (defaultParkNewAfter).
type idleReader struct {
	conn   net.Conn
	period time.Duration
	armed  bool // the deadline is set
	got    bool // bytes were read since it was set
}

// newIdleReader returns the reader of conn; first is the deadline of the
// first read from now, 0 for none.
func newIdleReader(conn net.Conn, period, first time.Duration) *idleReader {
	r := &idleReader{conn: conn, period: period}
	if first > 0 {
		r.armed = true
		_ = conn.SetReadDeadline(time.Now().Add(first))
	} else {
		_ = conn.SetReadDeadline(time.Time{}) // the last reader's, long passed
	}
	return r
}

// arm sets the deadline one period from now.
func (r *idleReader) arm() {
	r.armed, r.got = true, false
	_ = r.conn.SetReadDeadline(time.Now().Add(r.period))
}

func (r *idleReader) Read(p []byte) (int, error) {
	for {
		n, err := r.conn.Read(p)
		if n > 0 {
			if r.armed {
				r.got = true
			} else {
				r.arm()
			}
			return n, err
		}
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		if !r.got {
			return 0, errIdle
		}
		r.arm()
	}
}
