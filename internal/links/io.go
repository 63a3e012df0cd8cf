package links

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// readChunkSize is the buffer one read of a plain TCP link fills: a reply
// to INFO (about 5 KiB from a real redis-server) comes in one read. The
// buffers are shared (readBufs): a link holds one only from the moment its
// socket is readable until its bytes are parsed.
const readChunkSize = 16 * 1024

// readBufs holds the read buffers of plain TCP links (*[]byte of
// readChunkSize bytes).
var readBufs = sync.Pool{New: func() any {
	b := make([]byte, readChunkSize)
	return &b
}}

// writeBufs holds the buffers Sends are encoded into before they are written
// (*[]byte).
var writeBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

// rawConn is the socket of conn for reads and writes that never hold a
// buffer while waiting; nil when conn is not a plain TCP connection (TLS).
func rawConn(conn net.Conn) syscall.RawConn {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// rawWriter writes to a socket without ever waiting for the network. Its
// callback is made once, so that a write allocates nothing. Only one
// goroutine may use it at a time (the link's mu).
type rawWriter struct {
	rc  syscall.RawConn
	b   []byte // what write writes
	n   int    // how much of b went out
	err error
	fn  func(fd uintptr) bool
}

func newRawWriter(rc syscall.RawConn) *rawWriter {
	w := &rawWriter{rc: rc}
	w.fn = w.writeFD
	return w
}

// write writes as much of b as the socket takes at once: it returns how
// many bytes went out, fewer than len(b) when the socket is full.
func (w *rawWriter) write(b []byte) (int, error) {
	w.b, w.n, w.err = b, 0, nil
	cerr := w.rc.Write(w.fn)
	n, err := w.n, w.err
	w.b, w.err = nil, nil
	if err == nil && cerr != nil {
		err = cerr
	}
	return n, err
}

func (w *rawWriter) writeFD(fd uintptr) bool {
	for w.n < len(w.b) {
		k, e := syscall.Write(int(fd), w.b[w.n:])
		if k > 0 {
			w.n += k
		}
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return true
		case e != nil:
			w.err = os.NewSyscallError("write", e)
			return true
		case k <= 0:
			w.err = io.ErrShortWrite
			return true
		}
	}
	return true
}

// chunkReader reads a link's connection a chunk at a time. Over plain TCP
// it waits in the netpoller for the socket to become readable holding no
// buffer, then reads into a shared one (readBufs) until release; over TLS
// it reads into a buffer of its own.
type chunkReader struct {
	conn net.Conn
	rc   syscall.RawConn // nil over TLS
	buf  []byte          // TLS only
	bp   *[]byte         // the shared buffer of the last chunk
	// The state of readFD, whose callback fn is made once, so that a
	// read allocates nothing.
	n   int
	err error
	fn  func(fd uintptr) bool
}

func newChunkReader(conn net.Conn) *chunkReader {
	r := &chunkReader{conn: conn, rc: rawConn(conn)}
	if r.rc == nil {
		r.buf = make([]byte, linkReadBuffer)
	}
	r.fn = r.readFD
	return r
}

// readFD reads the socket into a shared buffer, or lets it go and asks to
// wait when there is nothing to read.
func (r *chunkReader) readFD(fd uintptr) bool {
	r.bp = readBufs.Get().(*[]byte)
	for {
		r.n, r.err = syscall.Read(int(fd), *r.bp)
		if r.err != syscall.EINTR {
			break
		}
	}
	if r.err == syscall.EAGAIN {
		readBufs.Put(r.bp)
		r.bp = nil
		return false
	}
	return true
}

// read waits for bytes and returns them; they are valid until release. A
// closed connection gives io.EOF.
func (r *chunkReader) read() ([]byte, error) {
	if r.rc == nil {
		n, err := r.conn.Read(r.buf)
		if n > 0 {
			return r.buf[:n], nil
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		return nil, err
	}
	cerr := r.rc.Read(r.fn)
	n, err := r.n, r.err
	r.err = nil
	switch {
	case cerr != nil:
		err = cerr
	case err != nil:
		err = os.NewSyscallError("read", err)
	case n <= 0:
		err = io.EOF
	}
	if err != nil {
		r.release()
		return nil, err
	}
	return (*r.bp)[:n], nil
}

// release gives the last chunk's buffer back.
func (r *chunkReader) release() {
	if r.bp != nil {
		readBufs.Put(r.bp)
		r.bp = nil
	}
}

// errIncomplete is what parseReply returns for bytes that are the start of
// a reply only.
var errIncomplete = errors.New("links: reply incomplete")
