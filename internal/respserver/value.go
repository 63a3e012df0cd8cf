package respserver

import (
	"math"
	"strconv"
)

// Value is one reply, encoded for the protocol version (2 or 3) the client
// negotiated. Handlers return Values; only this file knows the wire format,
// including the RESP3 types.
type Value interface {
	appendTo(b []byte, proto int) []byte
}

// Status is a simple string reply (`+OK`).
type Status string

// Err is an error reply; its text includes the code (`ERR ...`, `NOAUTH ...`).
type Err string

// Int is an integer reply.
type Int int64

// Bulk is a bulk string reply.
type Bulk string

// Null is the null bulk string: `$-1` in RESP2, `_` in RESP3.
type Null struct{}

// NullArray is the null array: `*-1` in RESP2, `_` in RESP3.
type NullArray struct{}

// Array is an array reply.
type Array []Value

// Map is a RESP3 map written as alternating keys and values; RESP2 clients
// get a flat array of 2N elements.
type Map []Value

// Push is an out-of-band message (pub/sub): `>` in RESP3, an array in RESP2.
type Push []Value

// Verbatim is a verbatim string (`=` in RESP3 with a 3-letter format such as
// "txt"); RESP2 clients get a bulk string.
type Verbatim string

// noReply is returned by handlers that already wrote or must write nothing.
type noReply struct{}

func (v Status) appendTo(b []byte, _ int) []byte {
	b = append(b, '+')
	b = appendClean(b, string(v))
	return append(b, '\r', '\n')
}

func (v Err) appendTo(b []byte, _ int) []byte {
	b = append(b, '-')
	b = appendClean(b, string(v))
	return append(b, '\r', '\n')
}

// appendClean writes s replacing CR and LF with spaces, as Redis does for
// status and error replies so they cannot break the framing.
func appendClean(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

func (v Int) appendTo(b []byte, _ int) []byte {
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(v), 10)
	return append(b, '\r', '\n')
}

func (v Bulk) appendTo(b []byte, _ int) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

func (Null) appendTo(b []byte, proto int) []byte {
	if proto >= 3 {
		return append(b, '_', '\r', '\n')
	}
	return append(b, "$-1\r\n"...)
}

func (NullArray) appendTo(b []byte, proto int) []byte {
	if proto >= 3 {
		return append(b, '_', '\r', '\n')
	}
	return append(b, "*-1\r\n"...)
}

func appendAggregate(b []byte, kind byte, n int, items []Value, proto int) []byte {
	b = append(b, kind)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '\r', '\n')
	for _, it := range items {
		b = it.appendTo(b, proto)
	}
	return b
}

func (v Array) appendTo(b []byte, proto int) []byte {
	return appendAggregate(b, '*', len(v), v, proto)
}

func (v Map) appendTo(b []byte, proto int) []byte {
	if proto >= 3 {
		return appendAggregate(b, '%', len(v)/2, v, proto)
	}
	return appendAggregate(b, '*', len(v), v, proto)
}

func (v Push) appendTo(b []byte, proto int) []byte {
	if proto >= 3 {
		return appendAggregate(b, '>', len(v), v, proto)
	}
	return appendAggregate(b, '*', len(v), v, proto)
}

func (v Verbatim) appendTo(b []byte, proto int) []byte {
	if proto < 3 {
		return Bulk(v).appendTo(b, proto)
	}
	b = append(b, '=')
	b = strconv.AppendInt(b, int64(len(v)+4), 10)
	b = append(b, "\r\ntxt:"...)
	b = append(b, v...)
	return append(b, '\r', '\n')
}

// setReply is a RESP3 set (`~`); RESP2 clients get an array.
type setReply []Value

func (v setReply) appendTo(b []byte, proto int) []byte {
	if proto >= 3 {
		return appendAggregate(b, '~', len(v), v, proto)
	}
	return appendAggregate(b, '*', len(v), v, proto)
}

// doubleReply is a RESP3 double (`,`); RESP2 clients get a bulk string.
// Both use C's %.17g, as Redis does.
type doubleReply float64

func (v doubleReply) appendTo(b []byte, proto int) []byte {
	var s string
	switch {
	case math.IsInf(float64(v), 1):
		s = "inf"
	case math.IsInf(float64(v), -1):
		s = "-inf"
	default:
		s = strconv.FormatFloat(float64(v), 'g', 17, 64)
	}
	if proto < 3 {
		return Bulk(s).appendTo(b, proto)
	}
	b = append(b, ',')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func (noReply) appendTo(b []byte, _ int) []byte { return b }

// Encode appends v to b in the given protocol version.
func Encode(b []byte, v Value, proto int) []byte { return v.appendTo(b, proto) }

// OK is the `+OK` reply.
const OK = Status("OK")
