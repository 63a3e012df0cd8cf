package inforeply

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Offsets are the replication offsets a master's INFO reports: its own
// (master_repl_offset) and, for each replica it lists in the new format
// (`slaveN:ip=...,port=...,offset=...`), the offset that replica last
// acknowledged. They are one snapshot, taken when the master answered.
type Offsets struct {
	Master    int64
	HasMaster bool
	Replicas  []ReplicaOffset
}

// ReplicaOffset is one replica's acknowledged offset as its master lists
// it.
type ReplicaOffset struct {
	Addr   settings.Addr
	Offset int64
}

// ParseOffsets reads the offsets of a master's INFO reply (what Parse
// leaves out; the read port's lag needs them). A line it cannot read is
// skipped.
func ParseOffsets(text string) Offsets {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	var o Offsets
	for _, l := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(l, "master_repl_offset:"); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				o.Master, o.HasMaster = n, true
			}
			continue
		}
		if len(l) < 7 || !strings.HasPrefix(l, "slave") || !isASCIIDigit(l[5]) || !strings.Contains(l, "ip=") {
			continue
		}
		a, ok := parseInfoReplicaLine(l)
		if !ok {
			continue
		}
		for _, f := range strings.Split(l[strings.IndexByte(l, ':')+1:], ",") {
			if v, ok := strings.CutPrefix(f, "offset="); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					o.Replicas = append(o.Replicas, ReplicaOffset{Addr: a, Offset: n})
				}
			}
		}
	}
	return o
}
