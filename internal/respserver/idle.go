package respserver

import (
	"errors"
	"net"
	"os"
	"time"
)

// defaultParkAfter is how long a client that can be parked (park_linux.go)
// stays idle before its reader goroutine parks it: between that and twice
// that. A client busier than that never pays for parking (an epoll_ctl,
// a wake-up and a goroutine per request); one idle longer costs no
// goroutine. A new connection is parked at once, before its first request.
const defaultParkAfter = 250 * time.Millisecond

// errIdle is returned by an idleReader when a whole period went by
// without a byte.
var errIdle = errors.New("client idle")

// idleReader reads a connection that can be parked, under a read deadline
// renewed at most once a period: a busy client pays for one
// SetReadDeadline per period, not one per read. When the deadline passes
// with no byte read since it was set, Read returns errIdle (and nothing is
// lost: the bytes that come later are read by the next Read).
//
// The first read has no deadline: a reader starts when the connection is
// readable (woken from parking), and a deadline that passed before that
// read was even tried would park the client again with its bytes unread.
type idleReader struct {
	conn   net.Conn
	period time.Duration
	armed  bool // the deadline is set
	got    bool // bytes were read since it was set
}

func newIdleReader(conn net.Conn, period time.Duration) *idleReader {
	_ = conn.SetReadDeadline(time.Time{}) // the last reader's, long passed
	return &idleReader{conn: conn, period: period}
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
