// Package inforeply reads a data node's INFO reply as Redis Sentinel
// 7.0.15 does (Parse): the role, the replicas a master lists, the link to
// its master a replica reports, priorities, offsets and the server-side
// failover state. It is a leaf: it imports nothing of go-sentinel's but
// internal/cnum and internal/settings.
package inforeply

import (
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/cnum"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// The reported roles Parse recognises in the `role:` line.
const (
	RoleMaster = "master"
	RoleSlave  = "slave"
)

// DefaultSlavePriority is the replica priority a replica has until an INFO
// reply reports `slave_priority`.
const DefaultSlavePriority = 100

// Report is what Sentinel learns from one INFO reply. It holds only what
// the reply said; Redis keeps the value from an earlier reply for every field
// whose Has flag is false (except MasterLinkDownTime, which is 0 when
// absent), so merging with stored state is the caller's job.
type Report struct {
	// RunID is the 40 bytes after `run_id:` in the last line long enough to
	// hold them, or "" if there is none.
	RunID string
	// Role is RoleMaster, RoleSlave or "" if no role line was seen;
	// the last role line wins.
	Role string
	// Replicas are the addresses of the `slave<digit>` lines, in order,
	// duplicates included. Redis reads them only when the instance is a
	// master object; Parse parses them whenever present and the caller
	// decides.
	Replicas []settings.Addr
	// MasterLinkDownTime is master_link_down_since_seconds × 1000 ms
	// (-1 becomes -1000 ms); 0 if absent. It is read whatever the role.
	MasterLinkDownTime time.Duration

	// The fields below are only read from lines that follow a `role:slave`
	// line with no `role:master` line in between; the last such line wins.

	// MasterHost is the text after `master_host:`, as written.
	MasterHost    string
	HasMasterHost bool
	// MasterPort is atoi of the text after `master_port:`.
	MasterPort    int
	HasMasterPort bool
	// MasterLinkUp is true when master_link_status is `up` in any case.
	MasterLinkUp        bool
	HasMasterLinkStatus bool
	// SlavePriority is atoi of slave_priority; DefaultSlavePriority if absent.
	SlavePriority    int
	HasSlavePriority bool
	// SlaveReplOffset is strtoull of slave_repl_offset; 0 if absent.
	SlaveReplOffset    uint64
	HasSlaveReplOffset bool
	// ReplicaAnnounced is ReplicaAnnouncedValue != 0; true if absent.
	ReplicaAnnounced bool
	// ReplicaAnnouncedValue is atoi of replica_announced, the number Redis
	// reports as `replica-announced`; 1 if absent.
	ReplicaAnnouncedValue int
	HasReplicaAnnounced   bool
	// MasterFailoverState is the master_failover_state field of Redis
	// 6.2 and later (failover.NoServerFailover, "waiting-for-sync",
	// "failover-in-progress"); HasMasterFailoverState is false on older
	// servers, which cannot run FAILOVER or CLIENT PAUSE WRITE.
	MasterFailoverState    string
	HasMasterFailoverState bool
	// ReplID and ReplID2 are master_replid and master_replid2 (Redis 4.0
	// and later, either role): the replication history the server is on,
	// and the one it was on before its last promotion (all zeros: none).
	// Redis Sentinel reads neither; go-sentinel tells a promotion out of
	// the master's current history from a returning old master by them
	// (failover.Convert). "" when absent.
	ReplID, ReplID2 string
}

// Parse reads an INFO reply the way Redis Sentinel 7.0.15 does: the text
// ends at its first NUL byte, lines are split on "\r\n" only (a lone "\n" is
// part of a line), fields are matched by case-sensitive line prefix with the
// same minimum line lengths, and numbers are read with C atoi / strtoll /
// strtoull leniency (leading spaces, sign, digits up to the first other byte,
// 0 when there are none). Unknown and malformed lines are ignored; Parse
// never fails.
func Parse(text string) Report {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	r := Report{
		SlavePriority:         DefaultSlavePriority,
		ReplicaAnnounced:      true,
		ReplicaAnnouncedValue: 1,
	}
	for _, l := range strings.Split(text, "\r\n") {
		if len(l) >= 47 && strings.HasPrefix(l, "run_id:") {
			r.RunID = l[7:47]
		}
		if len(l) >= 7 && strings.HasPrefix(l, "slave") && isASCIIDigit(l[5]) {
			if a, ok := parseInfoReplicaLine(l); ok {
				r.Replicas = append(r.Replicas, a)
			}
		}
		// Redis compares 30 bytes and reads the number from byte 31 without
		// checking that byte 30 is the colon.
		if len(l) >= 32 && strings.HasPrefix(l, "master_link_down_since_seconds") {
			ms := cnum.Strtoll(l[31:]) * 1000 // wraps like the C multiplication
			r.MasterLinkDownTime = time.Duration(ms) * time.Millisecond
		}
		if strings.HasPrefix(l, "master_failover_state:") {
			r.MasterFailoverState, r.HasMasterFailoverState = l[len("master_failover_state:"):], true
		}
		if v, ok := strings.CutPrefix(l, "master_replid:"); ok {
			r.ReplID = v
		} else if v, ok := strings.CutPrefix(l, "master_replid2:"); ok {
			r.ReplID2 = v
		}
		if strings.HasPrefix(l, "role:master") {
			r.Role = RoleMaster
		} else if strings.HasPrefix(l, "role:slave") {
			r.Role = RoleSlave
		}
		if r.Role != RoleSlave {
			continue
		}
		switch {
		case strings.HasPrefix(l, "master_host:"):
			r.MasterHost, r.HasMasterHost = l[12:], true
		case strings.HasPrefix(l, "master_port:"):
			r.MasterPort, r.HasMasterPort = cnum.Atoi(l[12:]), true
		case strings.HasPrefix(l, "master_link_status:"):
			r.MasterLinkUp, r.HasMasterLinkStatus = isUpASCIIFold(l[19:]), true
		case strings.HasPrefix(l, "slave_priority:"):
			r.SlavePriority, r.HasSlavePriority = cnum.Atoi(l[15:]), true
		case strings.HasPrefix(l, "slave_repl_offset:"):
			r.SlaveReplOffset, r.HasSlaveReplOffset = cnum.Strtoull(l[18:]), true
		case strings.HasPrefix(l, "replica_announced:"):
			v := cnum.Atoi(l[18:])
			r.ReplicaAnnouncedValue, r.ReplicaAnnounced, r.HasReplicaAnnounced = v, v != 0, true
		}
	}
	return r
}

// parseInfoReplicaLine reads the address of a `slave<digit>` line in either
// format Redis accepts. The new format (the line contains "ip=") takes the
// text after the first "ip=" up to the next comma and the number after the
// first "port=" anywhere in the line. The old format `slaveN:<ip>,<port>,...`
// takes the text between the first colon and the next comma as ip and the
// number after that comma as port, and needs a second comma. ok is false for
// lines Redis skips.
func parseInfoReplicaLine(l string) (a settings.Addr, ok bool) {
	if at := strings.Index(l, "ip="); at >= 0 {
		p := strings.Index(l, "port=")
		if p < 0 {
			return settings.Addr{}, false
		}
		ip := l[at+3:]
		if end := strings.IndexByte(ip, ','); end >= 0 {
			ip = ip[:end]
		}
		// atoi stops at the comma or at the NUL Redis writes there, so
		// reading the rest of the line gives the same number.
		return settings.Addr{Host: ip, Port: cnum.Atoi(l[p+5:])}, true
	}
	colon := strings.IndexByte(l, ':')
	if colon < 0 {
		return settings.Addr{}, false
	}
	rest := l[colon+1:]
	comma := strings.IndexByte(rest, ',')
	if comma < 0 {
		return settings.Addr{}, false
	}
	port := rest[comma+1:]
	if strings.IndexByte(port, ',') < 0 {
		return settings.Addr{}, false
	}
	return settings.Addr{Host: rest[:comma], Port: cnum.Atoi(port)}, true
}

// isUpASCIIFold reports whether s is "up" compared ASCII case-insensitively,
// like strcasecmp in the C locale.
func isUpASCIIFold(s string) bool {
	return len(s) == 2 && s[0]|0x20 == 'u' && s[1]|0x20 == 'p'
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }
