package respserver

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// ServerInfo is the static part of INFO server, fixed at start-up.
type ServerInfo struct {
	Version    string // the Redis version we answer as, "7.0.15"
	GitSHA1    string
	BuildID    string
	OS         string
	ArchBits   int
	PID        int
	Supervised string
	// RunID is a random per-process id, not the Sentinel myid.
	RunID      string
	Port       int
	Started    time.Time
	Executable string
	ConfigFile string
	GoVersion  string
}

// infoSections are the sections INFO knows in Sentinel mode, in output
// order.
var infoSections = []string{"server", "clients", "stats", "cpu", "sentinel"}

func cmdInfo(x *ctx) Value {
	want := map[string]bool{}
	if len(x.args) == 1 {
		for _, s := range infoSections {
			want[s] = true
		}
	}
	for _, a := range x.args[1:] {
		s := strings.ToLower(string(a))
		switch s {
		case "all", "default", "everything":
			for _, s := range infoSections {
				want[s] = true
			}
		default:
			want[s] = true
		}
	}
	var parts []string
	for _, s := range infoSections {
		if !want[s] {
			continue
		}
		var text string
		switch s {
		case "server":
			text = x.srv.infoServer()
		case "clients":
			text = x.srv.infoClients()
		case "stats":
			text = x.srv.infoStats()
		case "cpu":
			text = infoCPU()
		case "sentinel":
			var err error
			text, err = x.srv.infoSentinel()
			if err != nil {
				return Err("ERR " + err.Error())
			}
		}
		parts = append(parts, text)
	}
	return Bulk(strings.Join(parts, "\r\n"))
}

// section renders "# Title" and key:value lines, each ending in CRLF.
func section(title string, kv ...any) string {
	var sb strings.Builder
	sb.WriteString("# " + title + "\r\n")
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&sb, "%v:%v\r\n", kv[i], kv[i+1])
	}
	return sb.String()
}

func (s *Server) infoServer() string {
	in := s.opts.Info
	now := s.now()
	up := now.Sub(in.Started)
	return section("Server",
		"redis_version", in.Version,
		"redis_git_sha1", in.GitSHA1,
		"redis_git_dirty", 0,
		"redis_build_id", in.BuildID,
		"redis_mode", "sentinel",
		"os", in.OS,
		"arch_bits", in.ArchBits,
		"monotonic_clock", "POSIX clock_gettime",
		"multiplexing_api", "epoll",
		"atomicvar_api", "c11-builtin",
		"gcc_version", "0.0.0",
		"go_version", in.GoVersion,
		"process_id", in.PID,
		"process_supervised", in.Supervised,
		"run_id", in.RunID,
		"tcp_port", in.Port,
		"server_time_usec", now.UnixMicro(),
		"uptime_in_seconds", int64(up.Seconds()),
		"uptime_in_days", int64(up.Hours()/24),
		"hz", 10,
		"configured_hz", 10,
		"lru_clock", (now.Unix())&((1<<24)-1),
		"executable", in.Executable,
		"config_file", in.ConfigFile,
		"io_threads_active", 0,
	)
}

func (s *Server) infoClients() string {
	s.mu.Lock()
	n := len(s.clients)
	s.mu.Unlock()
	maxIn, maxOut := s.stats.recentMaxBuffers(s.now())
	return section("Clients",
		"connected_clients", n,
		"cluster_connections", 0,
		"maxclients", s.Maxclients(),
		"client_recent_max_input_buffer", maxIn,
		"client_recent_max_output_buffer", maxOut,
		"blocked_clients", 0,
		"tracking_clients", 0,
		"clients_in_timeout_table", 0,
	)
}

func (s *Server) infoStats() string {
	s.hub.mu.RLock()
	chans, pats := len(s.hub.channels), len(s.hub.patterns)
	s.hub.mu.RUnlock()
	ops, in, out := s.stats.instantaneous()
	return section("Stats",
		"total_connections_received", s.stats.connections.Load(),
		"total_commands_processed", s.stats.commands.Load(),
		"instantaneous_ops_per_sec", ops,
		"total_net_input_bytes", s.stats.netInput.Load(),
		"total_net_output_bytes", s.stats.netOutput.Load(),
		"total_net_repl_input_bytes", 0,
		"total_net_repl_output_bytes", 0,
		"instantaneous_input_kbps", kbps(in),
		"instantaneous_output_kbps", kbps(out),
		"instantaneous_input_repl_kbps", "0.00",
		"instantaneous_output_repl_kbps", "0.00",
		"rejected_connections", s.stats.rejected.Load(),
		"sync_full", 0,
		"sync_partial_ok", 0,
		"sync_partial_err", 0,
		"expired_keys", 0,
		"expired_stale_perc", "0.00",
		"expired_time_cap_reached_count", 0,
		"expire_cycle_cpu_milliseconds", 0,
		"evicted_keys", 0,
		"evicted_clients", 0,
		"total_eviction_exceeded_time", 0,
		"current_eviction_exceeded_time", 0,
		"keyspace_hits", 0,
		"keyspace_misses", 0,
		"pubsub_channels", chans,
		"pubsub_patterns", pats,
		"pubsubshard_channels", 0,
		"latest_fork_usec", 0,
		"total_forks", 0,
		"migrate_cached_sockets", 0,
		"slave_expires_tracked_keys", 0,
		"active_defrag_hits", 0,
		"active_defrag_misses", 0,
		"active_defrag_key_hits", 0,
		"active_defrag_key_misses", 0,
		"total_active_defrag_time", 0,
		"current_active_defrag_time", 0,
		"tracking_total_keys", 0,
		"tracking_total_items", 0,
		"tracking_total_prefixes", 0,
		"unexpected_error_replies", 0,
		"total_error_replies", s.stats.errorReplies.Load(),
		"dump_payload_sanitizations", 0,
		"total_reads_processed", 0,
		"total_writes_processed", 0,
		"io_threaded_reads_processed", 0,
		"io_threaded_writes_processed", 0,
		"reply_buffer_shrinks", 0,
		"reply_buffer_expands", 0,
	)
}

// kbps renders a bytes-per-second rate as INFO's kilobytes per second
// ("%.2f" of a C float, as Redis prints it).
func kbps(bytesPerSec int64) string {
	return fmt.Sprintf("%.2f", float32(bytesPerSec)/1024)
}

func tvSeconds(tv syscall.Timeval) string {
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
}

func infoCPU() string {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return section("CPU",
		"used_cpu_sys", tvSeconds(self.Stime),
		"used_cpu_user", tvSeconds(self.Utime),
		"used_cpu_sys_children", tvSeconds(children.Stime),
		"used_cpu_user_children", tvSeconds(children.Utime),
		"used_cpu_sys_main_thread", tvSeconds(self.Stime),
		"used_cpu_user_main_thread", tvSeconds(self.Utime),
	)
}

// infoSentinel renders INFO sentinel from the core's published View,
// without waiting for the core's loop; the TILT age is computed now.
func (s *Server) infoSentinel() (string, error) {
	if s.opts.Backend == nil {
		return "", monitor.ErrStopped
	}
	v := s.opts.Backend.View()
	if v == nil {
		return "", monitor.ErrStopped
	}
	now := s.now() // after the View: never before the state it shows
	tilt, since := v.Tilt()
	running, queued := v.ScriptCounts()
	tiltSecs := int64(-1)
	tiltFlag := 0
	if tilt {
		tiltFlag = 1
		tiltSecs = int64(now.Sub(since).Seconds())
	}
	summaries := v.MasterSummaries()
	kv := []any{
		"sentinel_masters", len(summaries),
		"sentinel_tilt", tiltFlag,
		"sentinel_tilt_since_seconds", tiltSecs,
		"sentinel_total_tilt", v.TotalTilt(),
		"sentinel_running_scripts", running,
		"sentinel_scripts_queue_length", queued,
		"sentinel_simulate_failure_flags", int(v.SimFailureFlags()),
	}
	for i, m := range summaries {
		kv = append(kv, fmt.Sprintf("master%d", i),
			fmt.Sprintf("name=%s,status=%s,address=%s,slaves=%d,sentinels=%d",
				m.Name, m.Status, m.Addr.InfoText(), m.NumReplicas, m.NumSentinels+1))
	}
	return section("Sentinel", kv...), nil
}
