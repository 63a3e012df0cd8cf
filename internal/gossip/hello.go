package gossip

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/cnum"
)

// This file holds the hello message, the wire format Sentinels use to
// learn about each other; the core's gossip.go processes it.

// Channel is the Pub/Sub channel hello messages are published on.
const Channel = "__sentinel__:hello"

// helloFields is the number of comma-separated fields in a hello payload.
const helloFields = 8

// ErrHelloFields is returned by DecodeHello when the payload does not split
// into exactly 8 comma-separated fields; Redis ignores such a message.
var ErrHelloFields = errors.New("hello payload does not have exactly 8 fields")

// Hello is one decoded hello message: the sending Sentinel's address, run id
// and current epoch, and the configuration it holds for one master.
type Hello struct {
	SentinelIP   string
	SentinelPort int
	RunID        string
	CurrentEpoch uint64

	MasterName        string
	MasterIP          string
	MasterPort        int
	MasterConfigEpoch uint64
}

// Encode returns the hello payload
// `<ip>,<port>,<runid>,<current-epoch>,<master-name>,<master-ip>,<master-port>,<master-config-epoch>`,
// with addresses written as given (IPv6 without brackets) and numbers in
// decimal. It does not check the fields: a string field containing a comma
// or a NUL byte, or a port outside the int32 range, does not survive
// DecodeHello unchanged.
func (h Hello) Encode() string {
	var b strings.Builder
	b.Grow(len(h.SentinelIP) + len(h.RunID) + len(h.MasterName) + len(h.MasterIP) + 64)
	b.WriteString(h.SentinelIP)
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(h.SentinelPort))
	b.WriteByte(',')
	b.WriteString(h.RunID)
	b.WriteByte(',')
	b.WriteString(strconv.FormatUint(h.CurrentEpoch, 10))
	b.WriteByte(',')
	b.WriteString(h.MasterName)
	b.WriteByte(',')
	b.WriteString(h.MasterIP)
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(h.MasterPort))
	b.WriteByte(',')
	b.WriteString(strconv.FormatUint(h.MasterConfigEpoch, 10))
	return b.String()
}

// DecodeHello splits payload on commas and reads the 8 fields the way Redis
// Sentinel 7.0.15 does. The only error is ErrHelloFields (wrapped), for a
// payload that does not have exactly 8 fields, which Redis ignores.
//
// Everything else is accepted, because Redis accepts it: fields may be empty,
// each string field ends at its first NUL byte (Redis uses them as C
// strings), ports are read with C atoi (leading white space and sign, digits
// up to the first other byte, 0 when there are none, the low 32 bits of the
// saturated value on overflow) and epochs with C strtoull (the same prefix
// rules, saturating at MaxUint64, a minus sign negating modulo 2^64). So
// "x" as a port decodes to 0 and "-1" as an epoch to MaxUint64. Whether the
// master name is known and the address usable is for the caller to check,
// as Redis does later.
func DecodeHello(payload string) (Hello, error) {
	// The fields are cut in place (no allocation: a Sentinel decodes a
	// hello per instance every 2 s).
	n := 0 // Redis splits an empty payload into no fields
	if payload != "" {
		n = strings.Count(payload, ",") + 1
	}
	if n != helloFields {
		return Hello{}, fmt.Errorf("%w: got %d", ErrHelloFields, n)
	}
	var tok [helloFields]string
	rest := payload
	for i := range tok {
		tok[i], rest, _ = strings.Cut(rest, ",")
		tok[i] = cString(tok[i])
	}
	return Hello{
		SentinelIP:        tok[0],
		SentinelPort:      cnum.Atoi(tok[1]),
		RunID:             tok[2],
		CurrentEpoch:      cnum.Strtoull(tok[3]),
		MasterName:        tok[4],
		MasterIP:          tok[5],
		MasterPort:        cnum.Atoi(tok[6]),
		MasterConfigEpoch: cnum.Strtoull(tok[7]),
	}, nil
}

// ContainsRunID reports whether myid occurs anywhere in payload, both read
// as C strings (up to their first NUL byte). Redis drops any hello received
// on a master's or replica's Pub/Sub link for which this is true, so that a
// Sentinel does not meet itself; hellos received through the PUBLISH command
// are not filtered.
func ContainsRunID(payload, myid string) bool {
	return strings.Contains(cString(payload), cString(myid))
}

// cString returns s up to its first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
