package metrics

import (
	"errors"
	"io"
	"math/rand"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// newCore is a core monitoring "m" at 10.0.0.1:6379 (quorum 2) with two
// known replicas and two known Sentinels, and a ReadFunc that runs on
// the calling goroutine, as the tests own the core.
func newCore(t testing.TB) (*monitor.Sentinel, ReadFunc) {
	t.Helper()
	spec := settings.NewMasterSpec("m", settings.Addr{Host: "10.0.0.1", Port: 6379}, 2)
	spec.KnownReplicas = []settings.Addr{{Host: "10.0.0.2", Port: 6379}, {Host: "10.0.0.3", Port: 6379}}
	spec.KnownSentinels = []settings.SentinelSpec{
		{Addr: settings.Addr{Host: "10.0.1.1", Port: 26379}, RunID: strings.Repeat("a", 40)},
		{Addr: settings.Addr{Host: "10.0.1.2", Port: 26379}, RunID: strings.Repeat("b", 40)},
	}
	core := monitor.New(settings.Persisted{MyID: strings.Repeat("c", 40), CurrentEpoch: 3, Masters: []settings.MasterSpec{spec}},
		monitor.Options{}, rand.New(rand.NewSource(1)), t0)
	core.Ready()
	read := func(fn func(monitor.Handle, time.Time)) error {
		fn(core, t0.Add(1500*time.Millisecond))
		return nil
	}
	return core, read
}

// gather returns every sample as "name{k=v,...} value", sorted, and the
// histograms' counts as "name_count{...} n".
func gather(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			key := f.GetName() + labelString(mt.GetLabel())
			switch {
			case mt.Gauge != nil:
				out[key] = mt.GetGauge().GetValue()
			case mt.Counter != nil:
				out[key] = mt.GetCounter().GetValue()
			case mt.Histogram != nil:
				out[f.GetName()+"_count"+labelString(mt.GetLabel())] = float64(mt.GetHistogram().GetSampleCount())
				out[f.GetName()+"_sum"+labelString(mt.GetLabel())] = mt.GetHistogram().GetSampleSum()
			}
		}
	}
	return out
}

func labelString(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

func want(t *testing.T, got map[string]float64, key string, v float64) {
	t.Helper()
	g, ok := got[key]
	if !ok {
		var keys []string
		for k := range got {
			if !strings.HasPrefix(k, "go_") && !strings.HasPrefix(k, "process_") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		t.Fatalf("no sample %s; have:\n  %s", key, strings.Join(keys, "\n  "))
	}
	if g != v {
		t.Errorf("%s = %v, want %v", key, g, v)
	}
}

func TestGaugesFromTheCore(t *testing.T) {
	_, read := newCore(t)
	got := gather(t, New(read))
	const ma = "master_address=10.0.0.1:6379,master_name=m"
	want(t, got, "redis_sentinel_masters", 1)
	want(t, got, "redis_sentinel_tilt", 0)
	want(t, got, "redis_sentinel_running_scripts", 0)
	want(t, got, "redis_sentinel_scripts_queue_length", 0)
	want(t, got, "redis_sentinel_simulate_failure_flags", 0)
	want(t, got, "redis_sentinel_master_status{"+ma+",master_status=ok}", 1)
	want(t, got, "redis_sentinel_master_slaves{"+ma+"}", 2)
	want(t, got, "redis_sentinel_master_ok_slaves{"+ma+"}", 2)
	want(t, got, "redis_sentinel_master_sentinels{"+ma+"}", 3)
	want(t, got, "redis_sentinel_master_ok_sentinels{"+ma+"}", 3)
	want(t, got, "redis_sentinel_master_ckquorum_status{master_name=m,message=OK 3 usable Sentinels. Quorum and failover authorization can be reached}", 1)
	want(t, got, "redis_sentinel_master_setting_ckquorum{"+ma+"}", 2)
	want(t, got, "redis_sentinel_master_setting_failover_timeout{"+ma+"}", 180000)
	want(t, got, "redis_sentinel_master_setting_parallel_syncs{"+ma+"}", 1)
	want(t, got, "redis_sentinel_master_setting_down_after_milliseconds{"+ma+"}", 30000)
	want(t, got, "redis_sentinel_master_config_epoch{"+ma+"}", 0)
	want(t, got, "redis_sentinel_master_last_ok_ping_reply_seconds{"+ma+"}", 1.5)
	want(t, got, "sentinel_current_epoch", 3)
	want(t, got, "sentinel_tilt_since_seconds", -1)
	want(t, got, "sentinel_tilts_total", 0)
	// Counters the alert rules take increase() of exist from the first
	// scrape, so that their first increment is seen.
	want(t, got, "sentinel_failovers_aborted_total{master_name=m,reason=no-good-slave}", 0)
	want(t, got, "sentinel_failovers_aborted_total{master_name=m,reason=not-elected}", 0)
	want(t, got, "sentinel_events_total{type=-script-error}", 0)
	want(t, got, "sentinel_events_total{type=-script-timeout}", 0)
	want(t, got, "sentinel_master_promotable_replicas{master_name=m}", 0) // no live link to either replica
	want(t, got, "sentinel_master_sdown{master_name=m}", 0)
	want(t, got, "sentinel_master_odown{master_name=m}", 0)
	want(t, got, "sentinel_master_failover_in_progress{master_name=m}", 0)
	want(t, got, "sentinel_master_failover_state{master_name=m,state=none}", 1)
	want(t, got, "sentinel_link_connected{address=10.0.0.2:6379,master_name=m,role=slave}", 0)
	want(t, got, "sentinel_instance_sdown{address=10.0.1.1:26379,master_name=m,role=sentinel}", 0)
	want(t, got, "sentinel_failovers_started_total{master_name=m}", 0)
	want(t, got, "sentinel_failovers_completed_total{master_name=m}", 0)
	want(t, got, "sentinel_master_switches_total{master_name=m}", 0)
	if _, ok := got["sentinel_link_rtt_seconds{address=10.0.0.1:6379,master_name=m,role=master}"]; ok {
		t.Error("an RTT before any PING")
	}
}

func TestEventsCounted(t *testing.T) {
	_, read := newCore(t)
	m := New(read)
	ev := func(typ event.Type) event.Event {
		return event.Event{Type: typ, Master: "m", Level: event.LevelWarning}
	}
	m.Observe(ev("+sdown"))
	m.Observe(ev("+try-failover"))
	m.Observe(ev("-failover-abort-not-elected"))
	m.Observe(ev("+try-failover"))
	m.Observe(ev("+failover-end-for-timeout"))
	m.Observe(ev("+failover-end"))
	m.Observe(ev("+switch-master"))
	m.Observe(event.Event{Type: event.Tilt, Level: event.LevelWarning})
	got := gather(t, m)
	want(t, got, "sentinel_events_total{type=+sdown}", 1)
	want(t, got, "sentinel_events_total{type=+try-failover}", 2)
	want(t, got, "sentinel_events_total{type=+tilt}", 1)
	want(t, got, "sentinel_failovers_started_total{master_name=m}", 2)
	want(t, got, "sentinel_failovers_aborted_total{master_name=m,reason=not-elected}", 1)
	want(t, got, "sentinel_failovers_ended_for_timeout_total{master_name=m}", 1)
	want(t, got, "sentinel_failovers_completed_total{master_name=m}", 1)
	want(t, got, "sentinel_master_switches_total{master_name=m}", 1)
}

func TestTimelineHistograms(t *testing.T) {
	_, read := newCore(t)
	m := New(read)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tl := event.Timeline{Led: true, Marks: []event.Mark{
		{Phase: event.PhaseSDown, At: at(0)},
		{Phase: event.PhaseODown, At: at(20)},
		{Phase: event.PhaseStart, At: at(120)},
		{Phase: event.PhaseElected, At: at(130)},
		{Phase: event.PhaseSelected, At: at(230)},
		{Phase: event.PhasePromoted, At: at(1230)},
		{Phase: event.PhaseEnd, At: at(2230)},
		{Phase: event.PhaseSwitched, At: at(2330)},
	}}
	m.Observe(event.Event{Type: event.FailoverTimeline, Master: "m", Timeline: &tl})
	m.Observe(event.Event{Type: event.FailoverTimeline, Master: "m"}) // no timeline: counted as an event only
	got := gather(t, m)
	want(t, got, "sentinel_events_total{type=+failover-timeline}", 2)
	for phase, secs := range map[string]float64{"sdown": 0.02, "odown": 0.1, "try-failover": 0.01, "elected": 0.1, "selected": 1, "promoted": 1, "failover-end": 0.1} {
		want(t, got, "sentinel_failover_phase_duration_seconds_count{master_name=m,phase="+phase+"}", 1)
		key := "sentinel_failover_phase_duration_seconds_sum{master_name=m,phase=" + phase + "}"
		if d := got[key] - secs; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", key, got[key], secs)
		}
	}
	if _, ok := got["sentinel_failover_phase_duration_seconds_count{master_name=m,phase=switched}"]; ok {
		t.Error("the final phase has a duration")
	}
	want(t, got, "sentinel_failover_duration_seconds_count{master_name=m}", 1)
	want(t, got, "sentinel_failover_duration_seconds_sum{master_name=m}", 2.33)
}

func TestStoppedLoop(t *testing.T) {
	m := New(func(func(monitor.Handle, time.Time)) error { return errors.New("sentinel loop stopped") })
	m.Observe(event.Event{Type: event.SDown, Master: "m"})
	got := gather(t, m)
	if _, ok := got["redis_sentinel_masters"]; ok {
		t.Error("gauges from a stopped loop")
	}
	want(t, got, "sentinel_events_total{type=+sdown}", 1)
}

func TestServer(t *testing.T) {
	_, read := newCore(t)
	srv, err := Listen("127.0.0.1:0", New(read))
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve()
	t.Cleanup(srv.Close)
	resp, err := http.Get("http://" + srv.Addr().String() + Path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `redis_sentinel_master_status{master_address="10.0.0.1:6379",master_name="m",master_status="ok"} 1`) {
		t.Fatalf("status %d, body:\n%s", resp.StatusCode, body)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "sentinel_build_info"} {
		if !strings.Contains(string(body), "\n"+name) {
			t.Errorf("no %s in the scrape", name)
		}
	}
	resp, err = http.Get("http://" + srv.Addr().String() + "/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("/other: status %d", resp.StatusCode)
	}
	srv.Close()
	srv.Close()
	if _, err := http.Get("http://" + srv.Addr().String() + Path); err == nil {
		t.Error("still serving after Close")
	}
}

func TestListenBusy(t *testing.T) {
	_, read := newCore(t)
	srv, err := Listen("127.0.0.1:0", New(read))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if _, err := Listen(srv.Addr().String(), New(read)); err == nil || !strings.Contains(err.Error(), "metrics-addr") {
		t.Fatalf("second Listen on %s: %v", srv.Addr(), err)
	}
}

// BenchmarkObserve is the cost an event adds on the core's loop.
func BenchmarkObserve(b *testing.B) {
	m := New(func(func(monitor.Handle, time.Time)) error { return nil })
	ev := event.Event{Type: "+sdown", Master: "m", Level: event.LevelWarning}
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(ev)
	}
}

// BenchmarkScrape is one scrape of a core with one master, two replicas
// and two other Sentinels (the read runs inline here).
func BenchmarkScrape(b *testing.B) {
	_, read := newCore(b)
	reg := New(read).Registry()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCoordinatedAndPauseMetrics: a coordinated failover's timeline is
// counted, and its paused phase observed as the time writes were paused.
func TestCoordinatedAndPauseMetrics(t *testing.T) {
	_, read := newCore(t)
	m := New(read)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tl := event.Timeline{Led: true, Coordinated: true, Marks: []event.Mark{
		{Phase: event.PhaseStart, At: at(0)},
		{Phase: event.PhaseElected, At: at(10)},
		{Phase: event.PhaseSelected, At: at(20)},
		{Phase: event.PhasePaused, At: at(30)},
		{Phase: event.PhasePromoted, At: at(280)},
		{Phase: event.PhaseSwitched, At: at(300)},
	}}
	plain := tl
	plain.Coordinated = false
	m.Observe(event.Event{Type: event.FailoverTimeline, Master: "m", Timeline: &tl})
	m.Observe(event.Event{Type: event.FailoverTimeline, Master: "m", Timeline: &plain})
	got := gather(t, m)
	want(t, got, "sentinel_coordinated_failovers_total{master_name=m}", 1)
	want(t, got, "sentinel_failover_writes_paused_seconds_count{kind=coordinated,master_name=m}", 1)
	want(t, got, "sentinel_failover_writes_paused_seconds_sum{kind=coordinated,master_name=m}", 0.25)
	want(t, got, "sentinel_failover_writes_paused_seconds_count{kind=plain,master_name=m}", 1)
}
