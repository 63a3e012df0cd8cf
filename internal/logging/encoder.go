package logging

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// timeLayout is Redis's strftime("%d %b %Y %H:%M:%S.") plus three digits of
// milliseconds; Go truncates the fraction as Redis does (usec/1000).
const timeLayout = "02 Jan 2006 15:04:05.000"

// bufPool holds the buffers lines are assembled in.
var bufPool = buffer.NewPool()

// lineEncoder is a zapcore.Encoder producing one Redis log line per entry:
// prefix, timestamp, level character, message, then every structured field
// as ` key=value`, then '\n'. The timestamp is printed in the location of
// the entry's time (time.Now gives local time, as Redis uses).
type lineEncoder struct {
	prefix string         // "<pid>:X "
	ns     string         // key prefix from OpenNamespace/AddObject: "" or "a.b."
	buf    *buffer.Buffer // encoded context fields, each " key=value"
}

var _ zapcore.Encoder = (*lineEncoder)(nil)

// newLineEncoder returns an encoder whose lines start with "<pid>:X ".
func newLineEncoder(pid int) *lineEncoder {
	return &lineEncoder{prefix: strconv.Itoa(pid) + ":X ", buf: bufPool.Get()}
}

// Clone implements zapcore.Encoder.
func (e *lineEncoder) Clone() zapcore.Encoder {
	c := &lineEncoder{prefix: e.prefix, ns: e.ns, buf: bufPool.Get()}
	c.buf.AppendBytes(e.buf.Bytes())
	return c
}

// EncodeEntry implements zapcore.Encoder. Caller, stack and logger name are
// not part of Redis's format and are dropped.
func (e *lineEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	out := bufPool.Get()
	out.AppendString(e.prefix)
	out.AppendTime(ent.Time, timeLayout)
	out.AppendByte(' ')
	out.AppendByte(levelChar(ent.Level))
	out.AppendByte(' ')
	out.AppendString(ent.Message)
	out.AppendBytes(e.buf.Bytes())
	if len(fields) > 0 {
		fe := &lineEncoder{ns: e.ns, buf: out}
		for i := range fields {
			fields[i].AddTo(fe)
		}
	}
	out.AppendByte('\n')
	return out, nil
}

// key starts a field: " <namespace><key>=".
func (e *lineEncoder) key(k string) {
	e.buf.AppendByte(' ')
	e.buf.AppendString(e.ns)
	e.buf.AppendString(k)
	e.buf.AppendByte('=')
}

// appendString writes s bare, or Go-quoted when it is empty or contains
// spaces, control characters, '"', '=' or invalid UTF-8, so a line stays
// splittable into key=value pairs.
func (e *lineEncoder) appendString(s string) {
	if needsQuote(s) {
		e.buf.AppendString(strconv.Quote(s))
		return
	}
	e.buf.AppendString(s)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, r := range s {
		if r == utf8.RuneError || r == '"' || r == '=' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}

// appendAny writes a value collected by a zapcore.MapObjectEncoder.
func (e *lineEncoder) appendAny(v any) {
	if s, ok := v.(string); ok {
		e.appendString(s)
		return
	}
	e.appendString(fmt.Sprint(v))
}

// AddArray implements zapcore.ObjectEncoder; the array is printed with fmt.
func (e *lineEncoder) AddArray(k string, arr zapcore.ArrayMarshaler) error {
	m := zapcore.NewMapObjectEncoder()
	err := m.AddArray(k, arr)
	e.key(k)
	e.appendAny(m.Fields[k])
	return err
}

// AddObject implements zapcore.ObjectEncoder; the object's fields are
// written as ` <k>.<field>=value`.
func (e *lineEncoder) AddObject(k string, obj zapcore.ObjectMarshaler) error {
	return obj.MarshalLogObject(&lineEncoder{ns: e.ns + k + ".", buf: e.buf})
}

// AddReflected implements zapcore.ObjectEncoder; the value is printed with fmt.
func (e *lineEncoder) AddReflected(k string, v any) error {
	e.key(k)
	e.appendAny(v)
	return nil
}

// OpenNamespace implements zapcore.ObjectEncoder: later keys get "k." in front.
func (e *lineEncoder) OpenNamespace(k string) { e.ns += k + "." }

// AddBinary implements zapcore.ObjectEncoder (standard base64).
func (e *lineEncoder) AddBinary(k string, v []byte) {
	e.key(k)
	e.buf.AppendString(base64.StdEncoding.EncodeToString(v))
}

// AddByteString implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddByteString(k string, v []byte) { e.AddString(k, string(v)) }

// AddBool implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddBool(k string, v bool) { e.key(k); e.buf.AppendBool(v) }

// AddComplex128 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddComplex128(k string, v complex128) {
	e.key(k)
	e.buf.AppendString(strconv.FormatComplex(v, 'g', -1, 128))
}

// AddComplex64 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddComplex64(k string, v complex64) {
	e.key(k)
	e.buf.AppendString(strconv.FormatComplex(complex128(v), 'g', -1, 64))
}

// AddDuration implements zapcore.ObjectEncoder (time.Duration.String form).
func (e *lineEncoder) AddDuration(k string, v time.Duration) {
	e.key(k)
	e.buf.AppendString(v.String())
}

// AddFloat64 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddFloat64(k string, v float64) { e.key(k); e.appendFloat(v, 64) }

// AddFloat32 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddFloat32(k string, v float32) { e.key(k); e.appendFloat(float64(v), 32) }

func (e *lineEncoder) appendFloat(v float64, bits int) {
	switch {
	case math.IsNaN(v):
		e.buf.AppendString("NaN")
	case math.IsInf(v, 1):
		e.buf.AppendString("+Inf")
	case math.IsInf(v, -1):
		e.buf.AppendString("-Inf")
	default:
		e.buf.AppendFloat(v, bits)
	}
}

// AddInt implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddInt(k string, v int) { e.AddInt64(k, int64(v)) }

// AddInt64 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddInt64(k string, v int64) { e.key(k); e.buf.AppendInt(v) }

// AddInt32 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddInt32(k string, v int32) { e.AddInt64(k, int64(v)) }

// AddInt16 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddInt16(k string, v int16) { e.AddInt64(k, int64(v)) }

// AddInt8 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddInt8(k string, v int8) { e.AddInt64(k, int64(v)) }

// AddString implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddString(k, v string) { e.key(k); e.appendString(v) }

// AddTime implements zapcore.ObjectEncoder (RFC 3339 with nanoseconds).
func (e *lineEncoder) AddTime(k string, v time.Time) { e.key(k); e.buf.AppendTime(v, time.RFC3339Nano) }

// AddUint implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddUint(k string, v uint) { e.AddUint64(k, uint64(v)) }

// AddUint64 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddUint64(k string, v uint64) { e.key(k); e.buf.AppendUint(v) }

// AddUint32 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddUint32(k string, v uint32) { e.AddUint64(k, uint64(v)) }

// AddUint16 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddUint16(k string, v uint16) { e.AddUint64(k, uint64(v)) }

// AddUint8 implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddUint8(k string, v uint8) { e.AddUint64(k, uint64(v)) }

// AddUintptr implements zapcore.ObjectEncoder.
func (e *lineEncoder) AddUintptr(k string, v uintptr) { e.AddUint64(k, uint64(v)) }
