package links

import (
	"bytes"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// replyScan follows a kept incomplete reply (the bytes of a link not parsed
// yet because the reply they start is not whole) as it grows, read after
// read, and tells when its first reply is whole: only then is it parsed.
// Each byte is scanned once however many reads bring the reply, where
// parsing it again from its start at every read would be quadratic for a
// huge array (up to maxLen) and would hold the loop that serves the other
// links meanwhile. It judges nothing: on anything unusual (a malformed
// line, nesting too deep) it says whole, and the parser gives the error.
type replyScan struct {
	off   int   // bytes of the kept data scanned
	left  []int // elements still to come in each open array, innermost last
	bulk  int   // bytes of a bulk string's body and CRLF still to come at off
	ready bool  // whole was reported: it stays so until reset
	proto bool  // RESP3's types are followed too (parseKept sets it)
}

// reset forgets the scan: the kept data starts somewhere else now.
func (s *replyScan) reset() {
	s.off, s.left, s.bulk, s.ready = 0, s.left[:0], 0, false
}

// whole reports whether b, the kept data from its start (the same as at
// the last call, maybe grown), holds its first reply whole, or something
// the parser must judge.
func (s *replyScan) whole(b []byte) bool {
	for !s.ready {
		if s.bulk > 0 {
			if len(b)-s.off < s.bulk {
				return false
			}
			s.off += s.bulk
			s.bulk = 0
			s.ready = s.elementDone()
			continue
		}
		k := bytes.IndexByte(b[s.off:], '\n')
		if k < 0 {
			s.ready = len(b)-s.off > maxLineLen
			return s.ready
		}
		line := b[s.off : s.off+k]
		s.off += k + 1
		if len(line) < 2 || line[len(line)-1] != '\r' {
			s.ready = true
			break
		}
		line = line[:len(line)-1]
		if s.proto && s.resp3(line) {
			continue
		}
		switch line[0] {
		case '+', '-', ':':
			s.ready = s.elementDone()
		case '$', '*':
			n, err := replyLen(line[1:])
			switch {
			case err != nil:
				s.ready = true
			case n < 0 || (line[0] == '*' && n == 0):
				s.ready = s.elementDone()
			case line[0] == '$':
				s.bulk = n + 2
			case len(s.left) >= maxReplyDepth:
				s.ready = true
			default:
				s.left = append(s.left, n)
			}
		default:
			s.ready = true
		}
	}
	return true
}

// elementDone counts one element as finished, closing the arrays it
// completes, and reports whether that finished the first reply.
func (s *replyScan) elementDone() bool {
	for len(s.left) > 0 {
		s.left[len(s.left)-1]--
		if s.left[len(s.left)-1] > 0 {
			return false
		}
		s.left = s.left[:len(s.left)-1]
	}
	return true
}

// parseKept is parseReply of the first reply of kept data, which sc
// follows: errIncomplete without parsing while sc says the reply is not
// whole. sc is reset once a reply was parsed (the kept data then starts
// after it). A nil sc parses at once.
func parseKept(data []byte, sc *replyScan, resp3 bool) (msg.Reply, int, error) {
	if sc != nil {
		sc.proto = resp3
		if !sc.whole(data) {
			return msg.Reply{}, 0, errIncomplete
		}
	}
	r, n, err := parseProto(data, resp3)
	if err == nil && sc != nil {
		sc.reset()
	}
	return r, n, err
}

// parseFrom parses the reply at data[used:]: the first one through
// parseKept with sc (which follows data from its start), any later one
// at once; with resp3, RESP3's types are taken (parseReply3).
func parseFrom(data []byte, used int, sc *replyScan, resp3 bool) (msg.Reply, int, error) {
	if used == 0 {
		return parseKept(data, sc, resp3)
	}
	return parseProto(data[used:], resp3)
}

// resp3 follows a line of one of RESP3's own types (line without its
// CRLF) and reports whether it was one; anything it cannot follow is left
// to the parser (ready).
func (s *replyScan) resp3(line []byte) bool {
	switch line[0] {
	case '_', '#', ',', '(':
		s.ready = s.elementDone()
	case '=', '!':
		n, err := replyLen(line[1:])
		if err != nil || n < 0 {
			s.ready = true
		} else {
			s.bulk = n + 2
		}
	case '%', '~', '>', '|':
		n, err := replyLen(line[1:])
		switch {
		case err != nil || n < 0 || n > maxLen/2 || len(s.left) >= maxReplyDepth:
			s.ready = true
		case line[0] == '%':
			n *= 2
		case line[0] == '|':
			n = 2*n + 1 // the attribute's pairs, then the reply it qualifies
		}
		switch {
		case s.ready:
		case n == 0:
			s.ready = s.elementDone()
		default:
			s.left = append(s.left, n)
		}
	default:
		return false
	}
	return true
}
