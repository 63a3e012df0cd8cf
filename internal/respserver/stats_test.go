package respserver

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// infoField returns one field of an INFO reply.
func infoField(t *testing.T, reply, field string) string {
	t.Helper()
	for _, l := range strings.Split(reply, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return v
		}
	}
	t.Fatalf("no %s in INFO:\n%s", field, reply)
	return ""
}

func infoInt(t *testing.T, reply, field string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(infoField(t, reply, field), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	return v
}

// TestNetBytesAndErrors checks the byte counters against the exact bytes
// of a conversation, as redis-sentinel counts them: a query counts as
// read before it runs, a reply as written after INFO computed it.
func TestNetBytesAndErrors(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	var in, out int
	do := func(raw, want string) {
		t.Helper()
		c.Send(raw)
		if got := c.Reply(); got != want {
			t.Fatalf("%q: reply %q, want %q", raw, got, want)
		}
		in += len(raw)
		out += len(want)
	}
	do("*1\r\n$4\r\nPING\r\n", "+PONG\r\n")
	do("PING\r\n", "+PONG\r\n") // inline: counted as sent, not as redcon rewrites it
	do("*1\r\n$4\r\nNOPE\r\n", "-ERR unknown command 'NOPE', with args beginning with: \r\n")
	do("*2\r\n$8\r\nSENTINEL\r\n$6\r\nMASTER\r\n", "-ERR wrong number of arguments for 'sentinel|master' command\r\n")
	info := "*2\r\n$4\r\nINFO\r\n$5\r\nSTATS\r\n"
	c.Send(info)
	reply := c.Reply()
	if got := infoInt(t, reply, "total_net_input_bytes"); got != int64(in+len(info)) {
		t.Errorf("total_net_input_bytes %d, want %d", got, in+len(info))
	}
	if got := infoInt(t, reply, "total_net_output_bytes"); got != int64(out) {
		t.Errorf("total_net_output_bytes %d, want %d", got, out)
	}
	if got := infoInt(t, reply, "total_error_replies"); got != 2 {
		t.Errorf("total_error_replies %d, want 2", got)
	}
	for _, f := range []string{"total_net_repl_input_bytes", "total_net_repl_output_bytes", "pubsubshard_channels"} {
		if infoField(t, reply, f) != "0" {
			t.Errorf("%s = %s", f, infoField(t, reply, f))
		}
	}
	if infoField(t, reply, "instantaneous_input_repl_kbps") != "0.00" {
		t.Errorf("instantaneous_input_repl_kbps %s", infoField(t, reply, "instantaneous_input_repl_kbps"))
	}
}

// TestInfoStatsOrder pins the field order of INFO stats to 7.0.15's.
func TestInfoStatsOrder(t *testing.T) {
	_, _, addr := startServer(t, nil)
	reply := dial(t, addr).Do("INFO", "stats")
	var keys []string
	for _, l := range strings.Split(reply, "\r\n")[1:] {
		if k, _, ok := strings.Cut(l, ":"); ok {
			keys = append(keys, k)
		}
	}
	want := "total_connections_received total_commands_processed instantaneous_ops_per_sec total_net_input_bytes " +
		"total_net_output_bytes total_net_repl_input_bytes total_net_repl_output_bytes instantaneous_input_kbps " +
		"instantaneous_output_kbps instantaneous_input_repl_kbps instantaneous_output_repl_kbps rejected_connections " +
		"sync_full sync_partial_ok sync_partial_err expired_keys expired_stale_perc expired_time_cap_reached_count " +
		"expire_cycle_cpu_milliseconds evicted_keys evicted_clients total_eviction_exceeded_time current_eviction_exceeded_time " +
		"keyspace_hits keyspace_misses pubsub_channels pubsub_patterns pubsubshard_channels latest_fork_usec total_forks " +
		"migrate_cached_sockets slave_expires_tracked_keys active_defrag_hits active_defrag_misses active_defrag_key_hits " +
		"active_defrag_key_misses total_active_defrag_time current_active_defrag_time tracking_total_keys tracking_total_items " +
		"tracking_total_prefixes unexpected_error_replies total_error_replies dump_payload_sanitizations total_reads_processed " +
		"total_writes_processed io_threaded_reads_processed io_threaded_writes_processed reply_buffer_shrinks reply_buffer_expands"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("INFO stats fields\n got %s\nwant %s", got, want)
	}
}

func TestInstantaneousMetric(t *testing.T) {
	var m instMetric
	m.lastSampleTime = 1000
	// 16 samples 100 ms apart, 7 more commands each time: 70/s.
	reading := int64(0)
	for k := 1; k <= instSamples; k++ {
		reading += 7
		m.track(1000+int64(k)*100, reading)
	}
	if v := m.value(); v != 70 {
		t.Fatalf("value %d, want 70", v)
	}
	// A sample 300 ms later with 10 more: 10*1000/300 = 33 (integer
	// division), replacing the oldest 70: (15*70+33)/16 = 67.
	m.track(1000+int64(instSamples)*100+300, reading+10)
	if v := m.value(); v != 67 {
		t.Fatalf("value %d, want 67", v)
	}
	var z instMetric
	z.track(5, 100) // no time passed since the (zero) last sample... 5 ms: 20000/s
	z.track(5, 200) // t == 0: the sample is 0
	if z.samples[1] != 0 {
		t.Fatalf("sample with no elapsed time %d", z.samples[1])
	}
}

func TestSampleAndKbps(t *testing.T) {
	var st stats
	t0 := time.UnixMilli(1_000_000)
	st.sample(t0)
	for k := 1; k <= instSamples; k++ {
		st.commands.Add(5)
		st.netInput.Add(512)
		st.netOutput.Add(1000)
		st.sample(t0.Add(time.Duration(k) * instSamplePeriod))
	}
	ops, in, out := st.instantaneous()
	if ops != 50 || in != 5120 || out != 10000 {
		t.Fatalf("ops %d in %d out %d", ops, in, out)
	}
	if kbps(in) != "5.00" || kbps(out) != "9.77" || kbps(0) != "0.00" {
		t.Fatalf("kbps %s %s", kbps(in), kbps(out))
	}
}

func TestRecentMaxBuffers(t *testing.T) {
	var st stats
	t0 := time.Unix(1_000_000, 0)
	st.noteQuery(100, t0)
	st.noteQuery(40, t0.Add(500*time.Millisecond))
	st.noteQuery(60, t0.Add(3*time.Second))
	st.noteOutput(replyChunkBytes, t0) // fits the static buffer: 0
	st.noteOutput(replyChunkBytes+900, t0.Add(time.Second))
	tests := []struct {
		at      time.Duration
		in, out int64
	}{
		{0, 100, 0},
		{time.Second, 100, 900},
		{7 * time.Second, 100, 900},
		{8 * time.Second, 60, 900}, // the slot of t0 is 8 s old
		{9 * time.Second, 60, 0},
		{11 * time.Second, 0, 0},
	}
	for _, tt := range tests {
		in, out := st.recentMaxBuffers(t0.Add(tt.at))
		if in != tt.in || out != tt.out {
			t.Errorf("at +%v: in %d out %d, want %d %d", tt.at, in, out, tt.in, tt.out)
		}
	}
	// A second 8 s later reuses the slot without the old value.
	st.noteQuery(5, t0.Add(16*time.Second))
	if in, _ := st.recentMaxBuffers(t0.Add(16 * time.Second)); in != 5 {
		t.Errorf("reused slot: %d", in)
	}
}

func TestErrorsIn(t *testing.T) {
	tests := []struct {
		v    Value
		want int
	}{
		{Status("OK"), 0},
		{Err("ERR x"), 1},
		{Array{Err("ERR a"), Int(1), Array{Err("ERR b"), Bulk("c")}}, 2},
		{Map{Bulk("k"), Err("ERR v")}, 1},
		{Push{Bulk("message"), Bulk("c"), Bulk("m")}, 0},
	}
	for _, tt := range tests {
		if got := errorsIn(tt.v); got != tt.want {
			t.Errorf("errorsIn(%v) = %d, want %d", fmt.Sprint(tt.v), got, tt.want)
		}
	}
}

func TestRecentMaxInputBufferFromQueries(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	big := strings.Repeat("x", 3000)
	c.Do("PING", big)
	reply := c.Do("INFO", "clients")
	raw := fmt.Sprintf("*2\r\n$4\r\nPING\r\n$%d\r\n%s\r\n", len(big), big)
	if got := infoInt(t, reply, "client_recent_max_input_buffer"); got != int64(len(raw)) {
		t.Errorf("client_recent_max_input_buffer %d, want %d", got, len(raw))
	}
	if got := infoInt(t, reply, "client_recent_max_output_buffer"); got != 0 {
		t.Errorf("client_recent_max_output_buffer %d, want 0", got)
	}
}

// TestRecentMaxOutputBufferOfASlowReader fills the output of a client
// that does not read: its backlog beyond the 16 KiB static buffer shows
// once sampled, as in Redis's clientsCron.
func TestRecentMaxOutputBufferOfASlowReader(t *testing.T) {
	srv, _, addr := startServer(t, nil)
	c := dial(t, addr)
	big := strings.Repeat("x", 64*1024)
	cmd := fmt.Sprintf("*2\r\n$4\r\nPING\r\n$%d\r\n%s\r\n", len(big), big)
	// 32 MiB of replies nobody reads: more than the kernel's socket
	// buffers take in, so a backlog stays in the server. The server stops
	// reading the client once 1 MiB waits, so the writes may block: they
	// run beside the sampling.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := 0; k < 512; k++ {
			if _, err := c.NC.Write([]byte(cmd)); err != nil {
				return // closed at the end of the test
			}
		}
	}()
	t.Cleanup(func() { c.NC.Close(); <-done })
	deadline := time.Now().Add(5 * time.Second)
	for {
		srv.sampleClients(time.Now(), nil)
		if _, out := srv.stats.recentMaxBuffers(time.Now()); out > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no output backlog sampled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	reply := dial(t, addr).Do("INFO", "clients")
	if got := infoInt(t, reply, "client_recent_max_output_buffer"); got <= 0 {
		t.Errorf("client_recent_max_output_buffer %d", got)
	}
}

// BenchmarkStatsPerCommand is what INFO's figures add to each command:
// the recent-query record and the error count of its reply.
func BenchmarkStatsPerCommand(b *testing.B) {
	var st stats
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		st.noteQuery(14, now)
		st.countErrors(Status("PONG"))
	}
}
