package inforeply

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// infoDefaults is the report of an INFO text that carries no known field.
func infoDefaults() Report {
	return Report{
		SlavePriority:         DefaultSlavePriority,
		ReplicaAnnounced:      true,
		ReplicaAnnouncedValue: 1,
	}
}

// infoWith returns infoDefaults changed by edit.
func infoWith(edit func(r *Report)) Report {
	r := infoDefaults()
	edit(&r)
	return r
}

// crlf joins lines the way Redis writes INFO.
func crlf(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n" }

const infoRunID = "0123456789abcdef0123456789abcdef01234567"

func TestParseCaptured(t *testing.T) {
	// Captured from redis-server 7.0.15: a master with two replicas, a
	// replica with its link up (replica-priority 50), a replica whose master
	// went away, one that never reached its master, and one with
	// replica-announced no.
	tests := []struct {
		file string
		want Report
	}{
		{"info-7.0.15-master.txt", infoWith(func(r *Report) {
			r.RunID = "1ec5ab9b98d3f43cf4a8df57ea890bb86ceea2a1"
			r.Role = RoleMaster
			r.MasterFailoverState, r.HasMasterFailoverState = failover.NoServerFailover, true
			r.ReplID, r.ReplID2 = "d717f32f18e72008fa8f7f264e509954ad265bdc", "0000000000000000000000000000000000000000"
			r.Replicas = []settings.Addr{{Host: "127.0.0.1", Port: 17312}, {Host: "127.0.0.1", Port: 17313}}
		})},
		{"info-7.0.15-replica.txt", infoWith(func(r *Report) {
			r.RunID = "cf272e657b605593ceb884c7bc6292b5128743ea"
			r.Role = RoleSlave
			r.MasterFailoverState, r.HasMasterFailoverState = failover.NoServerFailover, true
			r.ReplID, r.ReplID2 = "d717f32f18e72008fa8f7f264e509954ad265bdc", "0000000000000000000000000000000000000000"
			r.MasterHost, r.HasMasterHost = "127.0.0.1", true
			r.MasterPort, r.HasMasterPort = 17311, true
			r.MasterLinkUp, r.HasMasterLinkStatus = true, true
			r.SlavePriority, r.HasSlavePriority = 50, true
			r.SlaveReplOffset, r.HasSlaveReplOffset = 82, true
			r.HasReplicaAnnounced = true
		})},
		{"info-7.0.15-replica-link-down.txt", infoWith(func(r *Report) {
			r.RunID = "cf272e657b605593ceb884c7bc6292b5128743ea"
			r.Role = RoleSlave
			r.MasterFailoverState, r.HasMasterFailoverState = failover.NoServerFailover, true
			r.ReplID, r.ReplID2 = "d717f32f18e72008fa8f7f264e509954ad265bdc", "0000000000000000000000000000000000000000"
			r.MasterLinkDownTime = 2 * time.Second
			r.MasterHost, r.HasMasterHost = "127.0.0.1", true
			r.MasterPort, r.HasMasterPort = 17311, true
			r.HasMasterLinkStatus = true
			r.SlavePriority, r.HasSlavePriority = 50, true
			r.SlaveReplOffset, r.HasSlaveReplOffset = 82, true
			r.HasReplicaAnnounced = true
		})},
		{"info-7.0.15-replica-never-connected.txt", infoWith(func(r *Report) {
			r.RunID = "0ce5252512b8c77eac6a92bf73301ac3fa6916d8"
			r.Role = RoleSlave
			r.MasterFailoverState, r.HasMasterFailoverState = failover.NoServerFailover, true
			r.ReplID, r.ReplID2 = "d717f32f18e72008fa8f7f264e509954ad265bdc", "0000000000000000000000000000000000000000"
			r.MasterLinkDownTime = -1000 * time.Millisecond
			r.MasterHost, r.HasMasterHost = "127.0.0.1", true
			r.MasterPort, r.HasMasterPort = 17319, true
			r.HasMasterLinkStatus = true
			r.HasSlavePriority = true
			r.HasSlaveReplOffset = true
			r.HasReplicaAnnounced = true
		})},
		{"info-7.0.15-replica-unannounced.txt", infoWith(func(r *Report) {
			r.RunID = "e023559e0a1a50fe020972adfa5e2d0d4b07641d"
			r.Role = RoleSlave
			r.MasterFailoverState, r.HasMasterFailoverState = failover.NoServerFailover, true
			r.ReplID, r.ReplID2 = "d717f32f18e72008fa8f7f264e509954ad265bdc", "0000000000000000000000000000000000000000"
			r.MasterHost, r.HasMasterHost = "127.0.0.1", true
			r.MasterPort, r.HasMasterPort = 17311, true
			r.MasterLinkUp, r.HasMasterLinkStatus = true, true
			r.HasSlavePriority = true
			r.SlaveReplOffset, r.HasSlaveReplOffset = 82, true
			r.ReplicaAnnounced, r.ReplicaAnnouncedValue, r.HasReplicaAnnounced = false, 0, true
		})},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "\r\n") {
				t.Fatalf("%s lost its CRLF line ends", tt.file)
			}
			got := Parse(string(b))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse:\n got %+v\nwant %+v", got, tt.want)
			}
			// With "\n" line ends Redis sees one line and learns nothing.
			lf := strings.ReplaceAll(string(b), "\r\n", "\n")
			if got := Parse(lf); !reflect.DeepEqual(got, infoDefaults()) {
				t.Fatalf("Parse(LF text) = %+v, want defaults", got)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Report
	}{
		{"empty", "", infoDefaults()},
		{"garbage lines", crlf("", "#", ":::", "foo", "role", "role:", "run_id:", "slave", "\x01\xff", ","), infoDefaults()},
		{"no trailing CRLF", "role:slave\r\nmaster_port:7", infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterPort, r.HasMasterPort = 7, true
		})},
		{"replication ids, either role", crlf("role:master", "master_replid:aaa", "master_replid2:bbb", "master_replid3:ccc"), infoWith(func(r *Report) {
			r.Role = RoleMaster
			r.ReplID, r.ReplID2 = "aaa", "bbb"
		})},
		{"replication ids of a replica", crlf("master_replid:aaa", "role:slave", "master_replid2:"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.ReplID = "aaa"
		})},

		// Line splitting: only "\r\n" separates lines.
		{"LF only: one line starting with role:slave", "role:slave\nmaster_host:h\nmaster_port:1\n", infoWith(func(r *Report) {
			r.Role = RoleSlave
		})},
		{"lone LF stays in the value", "role:slave\r\nmaster_host:h\nmaster_port:1\r\n", infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterHost, r.HasMasterHost = "h\nmaster_port:1", true
		})},
		{"lone CR stays in the value", "role:slave\r\nmaster_link_status:up\r\r\n", infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.HasMasterLinkStatus = true
		})},
		{"text ends at NUL", "role:slave\r\nmaster_host:a\x00b\r\nmaster_port:5\r\n", infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterHost, r.HasMasterHost = "a", true
		})},

		// run_id.
		{"run_id exact", crlf("run_id:" + infoRunID), infoWith(func(r *Report) { r.RunID = infoRunID })},
		{"run_id too short", crlf("run_id:" + infoRunID[:39]), infoDefaults()},
		{"run_id longer keeps 40 bytes", crlf("run_id:" + infoRunID + "zz"), infoWith(func(r *Report) { r.RunID = infoRunID })},
		{"run_id any bytes", crlf("run_id:" + strings.Repeat("x,", 20)), infoWith(func(r *Report) { r.RunID = strings.Repeat("x,", 20) })},
		{"run_id last wins", crlf("run_id:"+strings.Repeat("a", 40), "run_id:"+infoRunID, "run_id:short"), infoWith(func(r *Report) { r.RunID = infoRunID })},
		{"run_id prefix is case-sensitive", crlf("RUN_ID:" + infoRunID), infoDefaults()},

		// role.
		{"role master", crlf("role:master"), infoWith(func(r *Report) { r.Role = RoleMaster })},
		{"role matched by prefix", crlf("role:slavery"), infoWith(func(r *Report) { r.Role = RoleSlave })},
		{"role unknown", crlf("role:sentinel", "master_port:1"), infoDefaults()},
		{"role case-sensitive", crlf("role:SLAVE", "Role:slave", "master_port:1"), infoDefaults()},
		{"role last wins", crlf("role:slave", "role:master"), infoWith(func(r *Report) { r.Role = RoleMaster })},
		{"unknown role keeps previous", crlf("role:slave", "role:other", "master_port:3"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterPort, r.HasMasterPort = 3, true
		})},

		// Role gating.
		{"fields before role:slave are ignored", crlf(
			"master_host:early", "master_port:1", "master_link_status:up", "slave_priority:1",
			"slave_repl_offset:1", "replica_announced:0",
			"role:slave", "master_port:2",
		), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterPort, r.HasMasterPort = 2, true
		})},
		{"fields after role:master are ignored", crlf("role:slave", "master_port:2", "role:master", "master_port:3", "master_host:h"), infoWith(func(r *Report) {
			r.Role = RoleMaster
			r.MasterPort, r.HasMasterPort = 2, true
		})},
		{"replica fields on a master", crlf("role:master", "master_host:h", "master_link_status:up", "slave_priority:0"), infoWith(func(r *Report) {
			r.Role = RoleMaster
		})},
		{"last value wins", crlf("role:slave", "master_host:a", "master_host:b", "master_link_status:up", "master_link_status:down"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterHost, r.HasMasterHost = "b", true
			r.HasMasterLinkStatus = true
		})},

		// master_host / master_port.
		{"master_host empty and kept as written", crlf("role:slave", "master_host:", "master_host: Host.Example "), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterHost, r.HasMasterHost = " Host.Example ", true
		})},
		{"master_host ipv6", crlf("role:slave", "master_host:::1"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterHost, r.HasMasterHost = "::1", true
		})},
		{"master_port atoi", crlf("role:slave", "master_port: +6379xyz"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterPort, r.HasMasterPort = 6379, true
		})},
		{"master_port not a number", crlf("role:slave", "master_port:abc"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.HasMasterPort = true
		})},
		{"master_port wraps like atoi", crlf("role:slave", "master_port:4294967297"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterPort, r.HasMasterPort = 1, true
		})},

		// master_link_status.
		{"link UP", crlf("role:slave", "master_link_status:UP"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterLinkUp, r.HasMasterLinkStatus = true, true
		})},
		{"link uP", crlf("role:slave", "master_link_status:uP"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterLinkUp, r.HasMasterLinkStatus = true, true
		})},
		{"link up with space is down", crlf("role:slave", "master_link_status:up "), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.HasMasterLinkStatus = true
		})},
		{"link empty is down", crlf("role:slave", "master_link_status:"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.HasMasterLinkStatus = true
		})},

		// master_link_down_since_seconds (not role-gated).
		{"link down seconds", crlf("role:slave", "master_link_down_since_seconds:5"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.MasterLinkDownTime = 5 * time.Second
		})},
		{"link down never connected", crlf("master_link_down_since_seconds:-1"), infoWith(func(r *Report) {
			r.MasterLinkDownTime = -1000 * time.Millisecond
		})},
		{"link down before any role", crlf("master_link_down_since_seconds:7", "role:master"), infoWith(func(r *Report) {
			r.Role = RoleMaster
			r.MasterLinkDownTime = 7 * time.Second
		})},
		{"link down colon not checked", crlf("master_link_down_since_secondsX12"), infoWith(func(r *Report) {
			r.MasterLinkDownTime = 12 * time.Second
		})},
		{"link down too short", crlf("master_link_down_since_seconds:"), infoDefaults()},
		{"link down not a number", crlf("master_link_down_since_seconds:x"), infoDefaults()},
		{"link down last wins", crlf("master_link_down_since_seconds:3", "master_link_down_since_seconds:0"), infoDefaults()},

		// slave_priority, slave_repl_offset, replica_announced.
		{"priority zero", crlf("role:slave", "slave_priority:0"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.SlavePriority, r.HasSlavePriority = 0, true
		})},
		{"priority garbage is 0", crlf("role:slave", "slave_priority:high"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.SlavePriority, r.HasSlavePriority = 0, true
		})},
		{"priority atoi overflow", crlf("role:slave", "slave_priority:99999999999999999999"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.SlavePriority, r.HasSlavePriority = -1, true
		})},
		{"replica_priority is not read", crlf("role:slave", "replica_priority:5"), infoWith(func(r *Report) {
			r.Role = RoleSlave
		})},
		{"offset max", crlf("role:slave", "slave_repl_offset:18446744073709551615"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.SlaveReplOffset, r.HasSlaveReplOffset = math.MaxUint64, true
		})},
		{"offset overflow saturates", crlf("role:slave", "slave_repl_offset:99999999999999999999"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.SlaveReplOffset, r.HasSlaveReplOffset = math.MaxUint64, true
		})},
		{"offset negative wraps", crlf("role:slave", "slave_repl_offset:-2"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.SlaveReplOffset, r.HasSlaveReplOffset = math.MaxUint64-1, true
		})},
		{"offset garbage", crlf("role:slave", "slave_repl_offset:0x10"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.HasSlaveReplOffset = true
		})},
		{"announced 2", crlf("role:slave", "replica_announced:2"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.ReplicaAnnouncedValue, r.HasReplicaAnnounced = 2, true
		})},
		{"announced garbage is 0", crlf("role:slave", "replica_announced:yes"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.ReplicaAnnounced, r.ReplicaAnnouncedValue, r.HasReplicaAnnounced = false, 0, true
		})},

		// slave<digit> lines.
		{"new format", crlf("slave0:ip=10.0.0.1,port=6380,state=online,offset=1,lag=0", "slave12:ip=10.0.0.2,port=6381,state=wait_bgsave,offset=0,lag=0"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "10.0.0.1", Port: 6380}, {Host: "10.0.0.2", Port: 6381}}
		})},
		{"new format ipv6 and hostname", crlf("slave0:ip=::1,port=6380,state=online", "slave1:ip=replica.example,port=6381"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "::1", Port: 6380}, {Host: "replica.example", Port: 6381}}
		})},
		{"new format port first", crlf("slave0:port=6380,ip=10.0.0.1"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "10.0.0.1", Port: 6380}}
		})},
		{"new format without port is skipped", crlf("slave0:ip=10.0.0.1,state=online"), infoDefaults()},
		{"new format first port= wins", crlf("slave0:ip=10.0.0.1,sport=7,port=9"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "10.0.0.1", Port: 7}}
		})},
		{"new format ip= anywhere", crlf("slave0:xip=10.0.0.1,port=9"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "10.0.0.1", Port: 9}}
		})},
		{"new format empty ip and bad port", crlf("slave0:ip=,port=abc"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "", Port: 0}}
		})},
		{"new format port inside ip value", crlf("slave0:ip=port=5"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "port=5", Port: 5}}
		})},
		{"old format", crlf("slave0:10.0.0.1,6380,online", "slave1:::1,6381,online"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "10.0.0.1", Port: 6380}, {Host: "::1", Port: 6381}}
		})},
		{"old format needs a second comma", crlf("slave0:10.0.0.1,6380"), infoDefaults()},
		{"old format needs a colon", crlf("slave0 10.0.0.1,6380,online"), infoDefaults()},
		{"old format empty fields", crlf("slave0:,,"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "", Port: 0}}
		})},
		{"old format port atoi", crlf("slave0:h, 6380x,online"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "h", Port: 6380}}
		})},
		{"duplicates kept in order", crlf("slave1:ip=b,port=2", "slave0:ip=a,port=1", "slave2:ip=b,port=2"), infoWith(func(r *Report) {
			r.Replicas = []settings.Addr{{Host: "b", Port: 2}, {Host: "a", Port: 1}, {Host: "b", Port: 2}}
		})},
		{"not slave<digit>", crlf("slave:ip=a,port=1", "slaves0:ip=a,port=1", "Slave0:ip=a,port=1", "slave0", "slave_read_only:1", " slave0:ip=a,port=1"), infoDefaults()},
		{"slave0: alone is skipped", crlf("slave0:"), infoDefaults()},
		{"slave lines parsed whatever the role", crlf("role:slave", "slave0:ip=a,port=1"), infoWith(func(r *Report) {
			r.Role = RoleSlave
			r.Replicas = []settings.Addr{{Host: "a", Port: 1}}
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse(%q):\n got %+v\nwant %+v", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "info-*.txt"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(crlf("role:slave", "master_host:h", "master_link_down_since_seconds:-1", "slave0:a,1,online"))
	f.Add("slave0:ip=port=5\r\nslave1:,,\r\nrun_id:" + infoRunID)
	f.Fuzz(func(t *testing.T, text string) {
		r := Parse(text)
		if len(r.RunID) != 0 && len(r.RunID) != 40 {
			t.Fatalf("RunID %q is not 0 or 40 bytes", r.RunID)
		}
		switch r.Role {
		case "", RoleMaster, RoleSlave:
		default:
			t.Fatalf("Role = %q", r.Role)
		}
		if r.Role == "" && (r.HasMasterHost || r.HasMasterPort || r.HasMasterLinkStatus ||
			r.HasSlavePriority || r.HasSlaveReplOffset || r.HasReplicaAnnounced) {
			t.Fatalf("replica fields without a role line: %+v", r)
		}
		if !r.HasMasterHost && r.MasterHost != "" {
			t.Fatalf("MasterHost %q without HasMasterHost", r.MasterHost)
		}
		if r.ReplicaAnnounced != (r.ReplicaAnnouncedValue != 0) {
			t.Fatalf("ReplicaAnnounced %v vs value %d", r.ReplicaAnnounced, r.ReplicaAnnouncedValue)
		}
		if int(int32(r.MasterPort)) != r.MasterPort || int(int32(r.SlavePriority)) != r.SlavePriority {
			t.Fatalf("atoi result outside int32: %+v", r)
		}
		for _, a := range r.Replicas {
			if strings.ContainsAny(a.Host, ",\x00") || int(int32(a.Port)) != a.Port {
				t.Fatalf("bad replica %+v", a)
			}
		}
	})
}
