package fakeredis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxArgs and maxArgLen bound a request; Sentinels send a handful of short
// arguments.
const (
	maxArgs   = 1024
	maxArgLen = 1 << 20
)

// errProtocol is a request that is not a RESP multibulk command.
var errProtocol = errors.New("Protocol error")

// readCommand reads one multibulk request (`*N` then N bulk strings), the
// only form a Sentinel sends. An empty request (`*0`) gives no arguments.
func readCommand(rd *bufio.Reader) ([][]byte, error) {
	n, err := readHeader(rd, '*', maxArgs)
	if err != nil {
		return nil, err
	}
	args := make([][]byte, n)
	for k := range args {
		size, err := readHeader(rd, '$', maxArgLen)
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(rd, b); err != nil {
			return nil, err
		}
		if b[size] != '\r' || b[size+1] != '\n' {
			return nil, fmt.Errorf("%w: bulk not ended by CRLF", errProtocol)
		}
		args[k] = b[:size]
	}
	return args, nil
}

// readHeader reads a "<kind><number>\r\n" line with 0 <= number <= limit.
func readHeader(rd *bufio.Reader, kind byte, limit int) (int, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("%w: line too long", errProtocol)
		}
		return 0, err
	}
	if len(line) < 4 || line[0] != kind || line[len(line)-2] != '\r' {
		return 0, fmt.Errorf("%w: expected '%c', got %q", errProtocol, kind, line)
	}
	n, err := strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil || n < 0 || n > limit {
		return 0, fmt.Errorf("%w: invalid length %q", errProtocol, line)
	}
	return n, nil
}

// reply accumulates replies: RESP2's, and the RESP3 frames a client that
// sent HELLO 3 gets (push, mapLen, verbatim).
type reply []byte

func (r *reply) status(s string) { *r = append(append(append(*r, '+'), s...), '\r', '\n') }
func (r *reply) err(s string)    { *r = append(append(append(*r, '-'), s...), '\r', '\n') }
func (r *reply) null()           { *r = append(*r, "$-1\r\n"...) }

func (r *reply) int(n int64) {
	*r = append(strconv.AppendInt(append(*r, ':'), n, 10), '\r', '\n')
}

func (r *reply) array(n int) {
	*r = append(strconv.AppendInt(append(*r, '*'), int64(n), 10), '\r', '\n')
}

// push starts a RESP3 push of n elements.
func (r *reply) push(n int) {
	*r = append(strconv.AppendInt(append(*r, '>'), int64(n), 10), '\r', '\n')
}

// mapLen starts a RESP3 map of n keys and values.
func (r *reply) mapLen(n int) {
	*r = append(strconv.AppendInt(append(*r, '%'), int64(n), 10), '\r', '\n')
}

// verbatim appends s as a RESP3 verbatim string of format txt.
func (r *reply) verbatim(s string) {
	*r = append(strconv.AppendInt(append(*r, '='), int64(len(s)+4), 10), '\r', '\n')
	*r = append(append(append(*r, "txt:"...), s...), '\r', '\n')
}

func (r *reply) bulk(s string) {
	*r = append(strconv.AppendInt(append(*r, '$'), int64(len(s)), 10), '\r', '\n')
	*r = append(append(*r, s...), '\r', '\n')
}
