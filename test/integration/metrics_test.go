package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// scrape fetches a Prometheus text exposition and returns every sample
// as its printed series (`name{labels}`) and value.
func scrape(addr string) (map[string]float64, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("bad sample %q", line)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

func mustScrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	m, err := scrape(addr)
	if err != nil {
		t.Fatalf("scrape %s: %v", addr, err)
	}
	return m
}

// metricSentinel is a go-sentinel with metrics-addr and log-format given
// on its command line, as `--directive value` pairs.
type metricSentinel struct {
	p       *proc
	conf    string
	metrics string
}

func (top *topology) addMetricSentinel(quorum int, args ...string) *metricSentinel {
	top.t.Helper()
	port := freePort(top.t)
	ms := &metricSentinel{metrics: fmt.Sprintf("127.0.0.1:%d", freePort(top.t))}
	ms.conf = writeConf(top.t, top.sentinelConf(port, quorum, ""))
	ms.p = startSentinel(top.t, ms.conf, port, nil, append([]string{"--metrics-addr", ms.metrics}, args...)...)
	top.sentinels = append(top.sentinels, ms.p)
	top.confs = append(top.confs, ms.conf)
	return ms
}

func wantSample(t *testing.T, who string, m map[string]float64, series string, v float64) {
	t.Helper()
	got, ok := m[series]
	if !ok {
		var have []string
		for k := range m {
			if strings.HasPrefix(k, "sentinel_") || strings.HasPrefix(k, "redis_sentinel_") {
				have = append(have, k)
			}
		}
		t.Errorf("%s: no %s; have %s", who, series, strings.Join(have, "\n  "))
		return
	}
	if got != v {
		t.Errorf("%s: %s = %v, want %v", who, series, got, v)
	}
}

// jsonLog decodes the JSON lines of a go-sentinel's output, failing on
// any line that is not a JSON object.
func jsonLog(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestMetricsAndJSONLogsThroughFailover scrapes three go-sentinels with
// metrics-addr and log-format json (given on the command line) before,
// during and after a failover of a killed master: status, ok replicas and
// Sentinels, failovers started/completed, the leader's phase histograms
// from the failover timeline, and its +failover-timeline JSON line.
func TestMetricsAndJSONLogsThroughFailover(t *testing.T) {
	top := startData(t, 2)
	var ss []*metricSentinel
	for i := 0; i < 3; i++ {
		ss = append(ss, top.addMetricSentinel(2, "--log-format", "json"))
	}
	waitDiscovery(t, top)
	oldAddr := fmt.Sprintf("127.0.0.1:%d", top.master.Port)
	okStatus := fmt.Sprintf(`redis_sentinel_master_status{master_address=%q,master_name="mymaster",master_status="ok"}`, oldAddr)
	okSlaves := fmt.Sprintf(`redis_sentinel_master_ok_slaves{master_address=%q,master_name="mymaster"}`, oldAddr)
	okSentinels := fmt.Sprintf(`redis_sentinel_master_ok_sentinels{master_address=%q,master_name="mymaster"}`, oldAddr)
	for i, s := range ss {
		who := fmt.Sprintf("sentinel %d", i)
		waitFor(t, 10*time.Second, who+" to see every replica and Sentinel ok", func() bool {
			m, err := scrape(s.metrics)
			return err == nil && m[okSlaves] == 2 && m[okSentinels] == 3
		})
		m := mustScrape(t, s.metrics)
		wantSample(t, who, m, okStatus, 1)
		wantSample(t, who, m, "redis_sentinel_masters", 1)
		wantSample(t, who, m, "redis_sentinel_tilt", 0)
		wantSample(t, who, m, `redis_sentinel_master_ckquorum_status{master_name="mymaster",message="OK 3 usable Sentinels. Quorum and failover authorization can be reached"}`, 1)
		wantSample(t, who, m, `sentinel_failovers_completed_total{master_name="mymaster"}`, 0)
		if _, ok := m[fmt.Sprintf(`sentinel_link_rtt_seconds{address=%q,master_name="mymaster",role="master"}`, oldAddr)]; !ok {
			t.Errorf("%s: no link RTT for the master", who)
		}
	}

	// Scrape all three every 100 ms while the failover runs.
	var mu sync.Mutex
	statuses := map[string]bool{}
	inProgress := false
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func(addr string) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				m, err := scrape(addr)
				if err != nil {
					continue
				}
				mu.Lock()
				for k, v := range m {
					if strings.HasPrefix(k, "redis_sentinel_master_status{") {
						statuses[k[strings.Index(k, "master_status="):]+" "+strconv.FormatFloat(v, 'g', -1, 64)] = true
					}
					if strings.HasPrefix(k, "sentinel_master_failover_in_progress{") && v == 1 {
						inProgress = true
					}
				}
				mu.Unlock()
			}
		}(s.metrics)
	}
	logs := watchAll(t, top)
	newMaster := waitFailover(t, top, logs)
	close(stop)
	wg.Wait()
	if !statuses[`master_status="odown"} 0`] || !statuses[`master_status="ok"} 1`] {
		t.Errorf("statuses seen while failing over: %v", statuses)
	}
	if !inProgress {
		t.Error("no scrape saw sentinel_master_failover_in_progress 1")
	}

	// The leader is the one that logged +failover-timeline.
	newAddr := fmt.Sprintf("127.0.0.1:%d", newMaster.Port)
	var leader *metricSentinel
	var timeline map[string]any
	for _, s := range ss {
		for _, l := range jsonLog(t, s.p.out.String()) {
			if l["type"] == "+failover-timeline" {
				if leader != nil {
					t.Fatal("two Sentinels logged +failover-timeline")
				}
				leader, timeline = s, l
			}
		}
	}
	if leader == nil {
		t.Fatal("no Sentinel logged +failover-timeline")
	}
	phases := []string{"sdown", "odown", "try-failover", "elected", "selected", "promoted", "failover-end"}
	pm, _ := timeline["phases_ms"].(map[string]any)
	for _, p := range phases {
		if _, ok := pm[p]; !ok {
			t.Errorf("timeline line lacks phase %s: %v", p, timeline)
		}
	}
	for k, v := range map[string]any{"level": "notice", "role": "master", "name": "mymaster", "ip": "127.0.0.1",
		"port": float64(top.master.Port), "master": "mymaster", "led": true} {
		if timeline[k] != v {
			t.Errorf("timeline line: %s = %#v, want %#v", k, timeline[k], v)
		}
	}
	if msg, _ := timeline["msg"].(string); !regexp.MustCompile(`^\+failover-timeline master mymaster 127\.0\.0\.1 \d+ sdown\+\d+\.\d{3}s .* switched total \d+\.\d{3}s$`).MatchString(msg) {
		t.Errorf("timeline msg %q", msg)
	}

	// go-sentinel explain on the leader shows the same timeline.
	out, err := exec.Command(sentinelBin, "explain", "mymaster", "-p", strconv.Itoa(leader.p.Port)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "last failover (led by this Sentinel), total ") ||
		!regexp.MustCompile(`(?m)^  \S+ promoted +\S+ \(127\.0\.0\.1:\d+\)$`).Match(out) {
		t.Errorf("go-sentinel explain on the leader: %v\n%s", err, out)
	}
	out, err = exec.Command(sentinelBin, "explain", "mymaster", "-p", strconv.Itoa(leader.p.Port), "--json").Output()
	var ex struct {
		Stage        string `json:"stage"`
		LastFailover struct {
			Led    bool             `json:"led"`
			Phases []map[string]any `json:"phases"`
		} `json:"last_failover"`
	}
	if err != nil || json.Unmarshal(out, &ex) != nil || !ex.LastFailover.Led || len(ex.LastFailover.Phases) != len(phases)+1 {
		t.Errorf("go-sentinel explain --json on the leader: %v\n%s", err, out)
	}

	lm := mustScrape(t, leader.metrics)
	wantSample(t, "leader", lm, `sentinel_failovers_completed_total{master_name="mymaster"}`, 1)
	wantSample(t, "leader", lm, `sentinel_events_total{type="+failover-timeline"}`, 1)
	wantSample(t, "leader", lm, `sentinel_failover_duration_seconds_count{master_name="mymaster"}`, 1)
	for _, p := range phases {
		wantSample(t, "leader", lm, fmt.Sprintf(`sentinel_failover_phase_duration_seconds_count{master_name="mymaster",phase=%q}`, p), 1)
	}
	if lm[`sentinel_failovers_started_total{master_name="mymaster"}`] < 1 {
		t.Errorf("leader: no failover started")
	}
	for i, s := range ss {
		who := fmt.Sprintf("sentinel %d", i)
		waitFor(t, 10*time.Second, who+" to report the new master ok", func() bool {
			m, err := scrape(s.metrics)
			return err == nil && m[fmt.Sprintf(`redis_sentinel_master_status{master_address=%q,master_name="mymaster",master_status="ok"}`, newAddr)] == 1
		})
		m := mustScrape(t, s.metrics)
		wantSample(t, who, m, `sentinel_master_switches_total{master_name="mymaster"}`, 1)
		wantSample(t, who, m, `sentinel_master_failover_in_progress{master_name="mymaster"}`, 0)
		if m[fmt.Sprintf(`redis_sentinel_master_config_epoch{master_address=%q,master_name="mymaster"}`, newAddr)] < 1 || m["sentinel_current_epoch"] < 1 {
			t.Errorf("%s: epochs not moved", who)
		}
		if s != leader {
			wantSample(t, who, m, `sentinel_failovers_completed_total{master_name="mymaster"}`, 0)
		}
		// The command-line directives were applied as config lines and
		// the rewrite (after the switch) keeps them.
		conf := readFile(t, s.conf)
		if !strings.Contains(conf, "\nmetrics-addr "+strconv.Quote(s.metrics)+"\n") || !strings.Contains(conf, "\nlog-format json\n") {
			t.Errorf("%s: rewritten config lacks metrics-addr or log-format:\n%s", who, conf)
		}
	}
}

// TestFailoverTimelineRedisFormat runs a SENTINEL FAILOVER on one
// go-sentinel in the default log format: the timeline is one Redis log
// line, and the failover is counted.
func TestFailoverTimelineRedisFormat(t *testing.T) {
	top := startData(t, 1)
	s := top.addMetricSentinel(1)
	waitFor(t, 10*time.Second, "replica discovery", func() bool { return listLen(t, s.p.Port, "REPLICAS") == 1 })
	waitFor(t, 15*time.Second, "SENTINEL FAILOVER accepted", func() bool {
		return client(t, s.p.Port).Do(context.Background(), "SENTINEL", "FAILOVER", "mymaster").Err() == nil
	})
	line := regexp.MustCompile(`(?m)^\d+:X \d\d \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3} \* \+failover-timeline master mymaster 127\.0\.0\.1 ` +
		strconv.Itoa(top.master.Port) + ` try-failover\+\d+\.\d{3}s .*selected\+\d+\.\d{3}s (paused\+\d+\.\d{3}s )?promoted\+\d+\.\d{3}s failover-end\+\d+\.\d{3}s switched total \d+\.\d{3}s$`)
	waitFor(t, 30*time.Second, "the +failover-timeline line", func() bool { return line.MatchString(s.p.out.String()) })
	m := mustScrape(t, s.metrics)
	wantSample(t, "sentinel", m, `sentinel_failovers_started_total{master_name="mymaster"}`, 1)
	wantSample(t, "sentinel", m, `sentinel_failovers_completed_total{master_name="mymaster"}`, 1)
	wantSample(t, "sentinel", m, `sentinel_failover_phase_duration_seconds_count{master_name="mymaster",phase="promoted"}`, 1)
	if _, ok := m[`sentinel_failover_phase_duration_seconds_count{master_name="mymaster",phase="sdown"}`]; ok {
		t.Error("a forced failover has an sdown phase")
	}
	// Redis's format: no JSON anywhere in the output.
	if strings.Contains(s.p.out.String(), `{"level"`) {
		t.Errorf("JSON in the default format:\n%s", s.p.out.String())
	}
}
