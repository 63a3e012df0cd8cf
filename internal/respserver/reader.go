package respserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// The request limits of Redis 7.0 (server.h, networking.c) that are not
// configurable.
const (
	// inlineMaxSize bounds an inline request line, and the count line of
	// a multibulk request or of one of its bulks (PROTO_INLINE_MAX_SIZE).
	inlineMaxSize = 64 * 1024
	// unauthMaxArgs and unauthMaxBulk bound what a client that must still
	// authenticate may announce.
	unauthMaxArgs = 10
	unauthMaxBulk = 16 * 1024
	// initialBuf is the read buffer of a new client; it grows while a
	// client sends more at once.
	initialBuf = 512
	// readChunk is Redis's read size (PROTO_IOBUF_LEN); a buffer of a few
	// of them is kept between requests, a larger one is dropped.
	readChunk = 16 * 1024
	// bigArg is the size from which a bulk is read into a buffer of its
	// own size instead of the shared one (PROTO_MBULK_BIG_ARG).
	bigArg = 32 * 1024
	// argOverhead is what each argument of a request counts against the
	// query buffer limit besides its bytes (its bookkeeping), so that a
	// request of millions of empty arguments is bounded too; Redis 7.0
	// counts only the unparsed bytes.
	argOverhead = 32
)

// Defaults of the configurable request limits, as in Redis 7.0.
const (
	// DefaultQueryBufferLimit is client-query-buffer-limit: 1gb.
	DefaultQueryBufferLimit = 1 << 30
	// DefaultMaxBulkLen is proto-max-bulk-len: 512mb.
	DefaultMaxBulkLen = 512 << 20
)

// protocolError is a malformed request. Reply is Redis's error text (the
// client gets it, then the connection closes); Reason is the short reason
// Redis logs.
type protocolError struct {
	Reply  string
	Reason string
}

func (e *protocolError) Error() string { return e.Reply }

// errQueryBufferLimit is returned when a client's pending request grows
// past the query buffer limit; Redis closes such a client without a reply.
var errQueryBufferLimit = errors.New("max query buffer length reached")

// requestReader splits a client's byte stream into commands exactly as
// Redis 7.0's processInlineBuffer and processMultibulkBuffer do, with
// their errors and limits. Its state survives partial reads, so every byte
// is looked at a bounded number of times whatever the read sizes. A
// pending request (the unparsed bytes plus the arguments of the command
// being assembled) never exceeds queryLimit by more than one read and one
// argument's overhead.
type requestReader struct {
	rd io.Reader
	// authRequired reports whether the client must still authenticate;
	// it is asked before each command, as AUTH may come in a pipeline.
	authRequired func() bool
	queryLimit   int
	maxBulk      int

	buf []byte // buf[pos:] is read and not parsed yet
	pos int
	// scanned is how many bytes after pos a delimiter search has already
	// looked at without finding one; noDelim is set when that search met
	// a NUL byte, where C's strchr stops, so the delimiter is never found.
	scanned int
	noDelim bool

	// The multibulk request being assembled: remaining arguments (0 when
	// none is), length of the next bulk (-1 until its count line is read),
	// the arguments so far and their total size.
	multibulk int
	bulklen   int
	args      [][]byte
	argBytes  int    // their size, plus argOverhead each
	big       []byte // a big bulk being read into its own buffer

	// lastSize is how many bytes the command next returned last took
	// (INFO's client_recent_max_input_buffer); taken counts the bytes
	// consumed so far, mark where the current command started.
	lastSize    int
	taken, mark int

	// readNow, if set, reads what the connection already holds without
	// waiting, returning 0 when it holds nothing (tryNext).
	readNow func([]byte) int

	// reuse, while set, makes the commands next returns borrow: their
	// arguments are views of buf and the slice holding them is argv,
	// both reused by the next call, so that a command costs no
	// allocation. A caller sets it only when it is done with each command
	// before it asks for the next (a loop running its commands one by
	// one); cloneArgs makes a borrowed command its own.
	reuse bool
	argv  [][]byte
	// viewArgs is set while the command being assembled holds views of
	// buf (reuse mode), which room makes its own before buf changes.
	viewArgs bool
}

// maxReusedArgs bounds the argument slice a reader keeps between
// commands in reuse mode.
const maxReusedArgs = 16

// cloneArgs returns a copy of args that shares no memory with the
// reader (a command next returned in reuse mode, to keep beyond the
// next call).
func cloneArgs(args [][]byte) [][]byte {
	size := 0
	for _, a := range args {
		size += len(a)
	}
	buf := make([]byte, 0, size)
	out := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}

func newRequestReader(rd io.Reader, queryLimit, maxBulk int, authRequired func() bool) *requestReader {
	if queryLimit <= 0 {
		queryLimit = DefaultQueryBufferLimit
	}
	if maxBulk <= 0 {
		maxBulk = DefaultMaxBulkLen
	}
	if authRequired == nil {
		authRequired = func() bool { return false }
	}
	return &requestReader{rd: rd, queryLimit: queryLimit, maxBulk: maxBulk, authRequired: authRequired, bulklen: -1}
}

// pending returns the size of the unparsed bytes.
func (r *requestReader) pending() int { return len(r.buf) - r.pos }

// idle reports whether the reader is between requests: no unparsed byte
// and no command being assembled. A fresh reader can take its place then.
func (r *requestReader) idle() bool {
	return r.pending() == 0 && r.multibulk == 0 && r.big == nil
}

// queryBytes returns the unparsed bytes and the arguments collected for
// the command being assembled: what the query buffer limit bounds.
func (r *requestReader) queryBytes() int { return r.pending() + r.argBytes + len(r.big) }

// next returns the next command, never empty. Errors are a
// *protocolError (reply, then close), errQueryBufferLimit (close), or the
// reading error.
func (r *requestReader) next() ([][]byte, error) {
	for {
		if r.pending() > 0 || r.big != nil {
			args, done, err := r.parse()
			if err != nil {
				return nil, err
			}
			if done {
				r.release()
				r.lastSize, r.mark = r.taken-r.mark, r.taken
				if len(args) > 0 {
					return args, nil
				}
				continue
			}
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
		if r.queryBytes() > r.queryLimit {
			return nil, errQueryBufferLimit
		}
	}
}

// tryNext returns the next command if the bytes already read hold all of
// it, without reading more; ok is false when they do not (what part of
// a command they hold stays parsed for next).
//
// With readNow, what the connection already holds is read too, without
// waiting, up to the query buffer limit.
func (r *requestReader) tryNext() (args [][]byte, ok bool, err error) {
	for {
		if r.pending() > 0 {
			args, done, err := r.parse()
			if err != nil {
				return nil, false, err
			}
			if done {
				r.release()
				r.lastSize, r.mark = r.taken-r.mark, r.taken
				if len(args) > 0 {
					return args, true, nil
				}
				continue
			}
		}
		if r.readNow == nil || r.big != nil || r.queryBytes() >= r.queryLimit {
			return nil, false, nil
		}
		r.room()
		n := r.readNow(r.buf[len(r.buf):cap(r.buf)])
		if n <= 0 {
			return nil, false, nil
		}
		r.buf = r.buf[:len(r.buf)+n]
	}
}

// release drops a large, now empty buffer, so that an idle client does
// not keep the memory of its largest request.
func (r *requestReader) release() {
	if r.pending() == 0 {
		r.pos = 0
		r.buf = r.buf[:0]
		if cap(r.buf) > 4*readChunk {
			r.buf = nil
		}
	}
}

// fill reads once: into the big bulk's own buffer when one is being read,
// else at the end of buf. buf starts small (an idle client costs little)
// and doubles each time a read finds it full, after moving the unparsed
// bytes to its front when that frees at least half of it.
func (r *requestReader) fill() error {
	if r.big != nil {
		n, err := r.rd.Read(r.big[len(r.big):cap(r.big)])
		r.big = r.big[:len(r.big)+n]
		if n > 0 {
			return nil
		}
		return readErr(err)
	}
	r.room()
	n, err := r.rd.Read(r.buf[len(r.buf):cap(r.buf)])
	r.buf = r.buf[:len(r.buf)+n]
	if n > 0 {
		return nil
	}
	return readErr(err)
}

// room makes room at the end of buf for a read.
func (r *requestReader) room() {
	if r.viewArgs {
		for i, a := range r.args {
			r.args[i] = bytes.Clone(a)
		}
		r.viewArgs = false
	}
	if r.buf == nil {
		r.buf = make([]byte, 0, initialBuf)
	}
	if r.pos > 0 && r.pos == len(r.buf) {
		r.pos, r.buf = 0, r.buf[:0]
	}
	if len(r.buf) == cap(r.buf) {
		if r.pos > 0 && r.pos >= len(r.buf)/2 {
			n := copy(r.buf, r.buf[r.pos:])
			r.buf, r.pos = r.buf[:n], 0
		} else {
			nb := make([]byte, len(r.buf)-r.pos, 2*cap(r.buf))
			copy(nb, r.buf[r.pos:])
			r.buf, r.pos = nb, 0
		}
	}
}

func readErr(err error) error {
	if err == nil {
		return io.ErrNoProgress
	}
	return err
}

// findDelim returns the index in buf of the first c after pos, or -1. As
// C's strchr on Redis's query buffer it stops at a NUL byte.
func (r *requestReader) findDelim(c byte) int {
	if r.noDelim {
		return -1
	}
	tail := r.buf[r.pos+r.scanned:]
	for i, b := range tail {
		if b == c {
			return r.pos + r.scanned + i
		}
		if b == 0 {
			r.noDelim = true
			return -1
		}
	}
	r.scanned += len(tail)
	return -1
}

// consumed moves pos and forgets the delimiter search.
func (r *requestReader) consumed(pos int) {
	r.taken += pos - r.pos
	r.pos = pos
	r.scanned, r.noDelim = 0, false
}

// parse reads what it can of one command from buf: done is false when more
// bytes are needed; a done command may be empty (an empty line, `*0`).
func (r *requestReader) parse() (args [][]byte, done bool, err error) {
	if r.multibulk == 0 {
		if r.buf[r.pos] != '*' {
			return r.parseInline()
		}
		if done, err := r.parseCount(); err != nil || done {
			return nil, done, err
		}
		if r.multibulk == 0 {
			return nil, false, nil
		}
	}
	for r.multibulk > 0 {
		if r.bulklen == -1 {
			ok, err := r.parseBulkLen()
			if err != nil || !ok {
				return nil, false, err
			}
		}
		if !r.takeBulk() {
			return nil, false, nil
		}
		if r.queryBytes() > r.queryLimit {
			return nil, false, errQueryBufferLimit
		}
	}
	args = r.args
	r.args, r.argBytes, r.viewArgs = nil, 0, false
	return args, true, nil
}

func (r *requestReader) parseInline() ([][]byte, bool, error) {
	nl := r.findDelim('\n')
	if nl < 0 {
		if r.pending() > inlineMaxSize {
			return nil, false, &protocolError{"Protocol error: too big inline request", "too big inline request"}
		}
		return nil, false, nil
	}
	end := nl
	if end > r.pos && r.buf[end-1] == '\r' {
		end--
	}
	words, err := splitargs.Split(string(r.buf[r.pos:end]))
	if err != nil {
		return nil, false, &protocolError{"Protocol error: unbalanced quotes in request", "unbalanced quotes in inline request"}
	}
	r.consumed(nl + 1)
	args := make([][]byte, len(words))
	for i, w := range words {
		args[i] = []byte(w)
	}
	return args, true, nil
}

// errTooBigMbulkCount and errTooBigBulkCount are the errors of a count
// line that does not end within inlineMaxSize bytes; shared, since
// countLine is given one for every count line it reads and protocolErrors
// are never changed.
var (
	errTooBigMbulkCount = &protocolError{"Protocol error: too big mbulk count string", "too big mbulk count string"}
	errTooBigBulkCount  = &protocolError{"Protocol error: too big bulk count string", "too big bulk count string"}
)

// countLine finds the line of a multibulk or bulk count: the index of its
// '\r', or -1 when it is not complete (Redis wants one byte after the '\r'
// and does not look at it).
func (r *requestReader) countLine(tooBig *protocolError) (int, error) {
	cr := r.findDelim('\r')
	if cr < 0 {
		if r.pending() > inlineMaxSize {
			return -1, tooBig
		}
		return -1, nil
	}
	if cr > len(r.buf)-2 {
		return -1, nil
	}
	return cr, nil
}

// parseCount reads `*<count>`; done is set for a count <= 0, which Redis
// skips as an empty command.
func (r *requestReader) parseCount() (done bool, err error) {
	cr, err := r.countLine(errTooBigMbulkCount)
	if cr < 0 {
		return false, err
	}
	n, ok := string2ll(r.buf[r.pos+1 : cr])
	if !ok || n > math.MaxInt32 {
		return false, &protocolError{"Protocol error: invalid multibulk length", "invalid mbulk count"}
	}
	if n > unauthMaxArgs && r.authRequired() {
		return false, &protocolError{"Protocol error: unauthenticated multibulk length", "unauth mbulk count"}
	}
	r.consumed(cr + 2)
	if n <= 0 {
		return true, nil
	}
	r.multibulk, r.bulklen = int(n), -1
	if r.reuse && n <= maxReusedArgs {
		if r.argv == nil {
			r.argv = make([][]byte, 0, maxReusedArgs)
		}
		r.args = r.argv[:0]
	} else {
		r.args = make([][]byte, 0, min(n, 1024))
	}
	return false, nil
}

// parseBulkLen reads `$<len>` of the next argument.
func (r *requestReader) parseBulkLen() (bool, error) {
	cr, err := r.countLine(errTooBigBulkCount)
	if cr < 0 {
		return false, err
	}
	if c := r.buf[r.pos]; c != '$' {
		return false, &protocolError{"Protocol error: expected '$', got '" + string([]byte{c}) + "'", "expected $ but got something else"}
	}
	n, ok := string2ll(r.buf[r.pos+1 : cr])
	if !ok || n < 0 || n > int64(r.maxBulk) {
		return false, &protocolError{"Protocol error: invalid bulk length", "invalid bulk length"}
	}
	if n > unauthMaxBulk && r.authRequired() {
		return false, &protocolError{"Protocol error: unauthenticated bulk length", "unauth bulk length"}
	}
	r.consumed(cr + 2)
	r.bulklen = int(n)
	return true, nil
}

// takeBulk completes the current argument if its bytes (and the two that
// follow, which Redis skips unread) are there. A big argument is read into
// a buffer of its own that grows as its bytes arrive, so announcing a
// length reserves nothing.
func (r *requestReader) takeBulk() bool {
	need := r.bulklen + 2
	if r.big == nil && r.pending() < need && r.bulklen >= bigArg {
		r.big = make([]byte, 0, min(need, max(readChunk, 2*r.pending())))
		r.big = append(r.big, r.buf[r.pos:]...)
		r.pos, r.scanned, r.noDelim = len(r.buf), 0, false // counted in taken with the bulk
	}
	if r.big != nil {
		if len(r.big) < need {
			if len(r.big) == cap(r.big) {
				nb := make([]byte, len(r.big), min(need, 2*cap(r.big)))
				copy(nb, r.big)
				r.big = nb
			}
			return false
		}
		r.appendArg(r.big[:r.bulklen:r.bulklen])
		r.taken += need
		r.big = nil
		return true
	}
	if r.pending() < need {
		return false
	}
	if r.reuse {
		// A view, capped so that appending to it copies.
		r.appendArg(r.buf[r.pos : r.pos+r.bulklen : r.pos+r.bulklen])
		r.viewArgs = true
	} else {
		r.appendArg(bytes.Clone(r.buf[r.pos : r.pos+r.bulklen]))
	}
	r.consumed(r.pos + need)
	return true
}

func (r *requestReader) appendArg(a []byte) {
	if a == nil {
		a = []byte{}
	}
	r.args = append(r.args, a)
	r.argBytes += len(a) + argOverhead
	r.multibulk--
	r.bulklen = -1
}

// sample describes the unparsed bytes as Redis's protocol error log line
// does: all of them up to 128 bytes, else the first and last 64, with
// non-printable bytes shown as dots. Like Redis it reads them as a C
// string: a NUL byte ends them.
func (r *requestReader) sample() string {
	q := r.buf[r.pos:]
	var s string
	if len(q) < 128 {
		if i := bytes.IndexByte(q, 0); i >= 0 {
			q = q[:i]
		}
		s = fmt.Sprintf("Query buffer during protocol error: '%s'", q)
	} else {
		s = fmt.Sprintf("Query buffer during protocol error: '%s' (... more %d bytes ...) '%s'", q[:64], len(q)-128, q[len(q)-64:])
	}
	if len(s) > 255 {
		s = s[:255]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '.'
		}
		return r
	}, strings.ToValidUTF8(s, "."))
}

// head returns the first n unparsed bytes quoted as sdscatrepr does, for
// the query buffer limit's log line.
func (r *requestReader) head(n int) string {
	q := r.buf[r.pos:]
	if r.big != nil {
		q = r.big
	}
	if len(q) > n {
		q = q[:n]
	}
	return splitargs.Repr(string(q))
}

// string2ll is Redis's strict string2ll: optional '-', no leading zeros
// (except "0" itself), no spaces or '+', at most 20 bytes, no overflow.
func string2ll(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) >= 21 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	if b[0] == '-' {
		neg = true
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > math.MaxUint64/10 {
			return 0, false
		}
		v *= 10
		if v > math.MaxUint64-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
