package fakeredis

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Version is the redis_version fake instances report.
const Version = "7.0.15"

// info renders INFO's Server and Replication sections the way Redis 7.0
// does (the lines a Sentinel reads, and a few around them).
func (i *Instance) info() string {
	f := i.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	off := f.offset()
	var b strings.Builder
	b.Grow(1024)
	fmt.Fprintf(&b, "# Server\r\nredis_version:%s\r\nredis_mode:standalone\r\nprocess_id:%d\r\n", Version, os.Getpid())
	fmt.Fprintf(&b, "run_id:%s\r\ntcp_port:%d\r\nuptime_in_seconds:%d\r\n\r\n", i.runID, i.port, int(time.Since(f.started).Seconds()))
	b.WriteString("# Replication\r\n")
	if i.master == "" {
		reps := f.replicasOf(i)
		fmt.Fprintf(&b, "role:master\r\nconnected_slaves:%d\r\n", len(reps))
		for k, r := range reps {
			fmt.Fprintf(&b, "slave%d:ip=%s,port=%d,state=online,offset=%d,lag=0\r\n", k, r.host, r.port, off)
		}
	} else {
		host, port := splitHostPort(i.master)
		m := f.liveMaster(i.master)
		fmt.Fprintf(&b, "role:slave\r\nmaster_host:%s\r\nmaster_port:%d\r\n", host, port)
		if m != nil {
			b.WriteString("master_link_status:up\r\nmaster_last_io_seconds_ago:0\r\n")
		} else {
			down := int64(-1)
			if old := f.insts[i.master]; old != nil && !old.alive {
				down = int64(time.Since(old.diedAt).Seconds())
			}
			fmt.Fprintf(&b, "master_link_status:down\r\nmaster_last_io_seconds_ago:-1\r\nmaster_link_down_since_seconds:%d\r\n", down)
		}
		fmt.Fprintf(&b, "master_sync_in_progress:0\r\nslave_read_repl_offset:%d\r\nslave_repl_offset:%d\r\n", off, off)
		b.WriteString("slave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1\r\nconnected_slaves:0\r\n")
	}
	fmt.Fprintf(&b, "master_failover_state:no-failover\r\nmaster_replid:%s\r\n", i.replID)
	fmt.Fprintf(&b, "master_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:%d\r\n", off)
	b.WriteString("second_repl_offset:-1\r\nrepl_backlog_active:1\r\nrepl_backlog_size:1048576\r\n")
	fmt.Fprintf(&b, "repl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:%d\r\n", off)
	return b.String()
}
