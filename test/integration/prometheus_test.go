package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rulesDir holds the shipped Prometheus rules and their promtool tests.
const rulesDir = "../../deploy/prometheus"

// mustBinary returns the path of a binary the deps step installs, and
// fails the test (rather than skipping it) when it is missing.
func mustBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not installed: `make deps` (scripts/install-deps.sh) installs Debian's %s package", name, pkg)
	}
	return p
}

// TestAlertRules runs `promtool check rules` on the shipped rules and
// `promtool test rules` on their unit tests: every alert fires on its
// unhealthy series and not on the healthy ones beside it.
func TestAlertRules(t *testing.T) {
	promtool := mustBinary(t, "promtool", "prometheus")
	for _, args := range [][]string{
		{"check", "rules", "go-sentinel-rules.yml"},
		{"test", "rules", "go-sentinel-rules.test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = rulesDir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// promAlert is one alert as Prometheus's /api/v1/alerts lists it.
type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
}

// prometheus is a Prometheus server a test started.
type prometheus struct {
	p    *proc
	addr string
}

// startPrometheus starts Debian's Prometheus on a free loopback port with a
// temporary data directory, scraping targets every second and evaluating
// the shipped rules every second.
func startPrometheus(t *testing.T, targets []string) *prometheus {
	t.Helper()
	bin := mustBinary(t, "prometheus", "prometheus")
	rules, err := filepath.Abs(filepath.Join(rulesDir, "go-sentinel-rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = fmt.Sprintf("%q", tg)
	}
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: go-sentinel
    static_configs:
      - targets: [%s]
`, rules, strings.Join(quoted, ", "))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	pr := &prometheus{addr: fmt.Sprintf("127.0.0.1:%d", freePort(t))}
	pr.p = start(t, dir, nil, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+pr.addr, "--log.level=warn")
	waitFor(t, 30*time.Second, "Prometheus to be ready", func() bool {
		if done, _ := pr.p.exited(); done {
			t.Fatalf("prometheus exited:\n%s", pr.p.out.String())
		}
		resp, err := http.Get("http://" + pr.addr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return pr
}

// get decodes the data of one Prometheus API reply into v.
func (pr *prometheus) get(path string, v any) error {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + pr.addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s: %s", path, body.Error)
	}
	return json.Unmarshal(body.Data, v)
}

// alerts returns the pending and firing alerts.
func (pr *prometheus) alerts(t *testing.T) []promAlert {
	t.Helper()
	var data struct {
		Alerts []promAlert `json:"alerts"`
	}
	if err := pr.get("/api/v1/alerts", &data); err != nil {
		t.Logf("alerts: %v", err)
		return nil
	}
	return data.Alerts
}

// firing returns the firing alert named name whose labels include want,
// or nil.
func (pr *prometheus) firing(t *testing.T, name string, want map[string]string) *promAlert {
	t.Helper()
	for _, a := range pr.alerts(t) {
		if a.State != "firing" || a.Labels["alertname"] != name {
			continue
		}
		match := true
		for k, v := range want {
			if a.Labels[k] != v {
				match = false
			}
		}
		if match {
			return &a
		}
	}
	return nil
}

// TestPrometheusAlertsEndToEnd loads the shipped rules into a real
// Prometheus scraping a live fleet of three go-sentinels. The master dies
// while its only replica has replica-priority 0: SentinelFailoverAborted
// (no-good-slave) and SentinelMasterDown fire. The replica is then made
// promotable: the fleet fails over, SentinelMasterDown resolves and
// SentinelMasterSwitched fires. Meanwhile a second master name, "other",
// is given two different addresses (two Sentinels watch one server, the
// third another): SentinelsDisagreeOnMaster fires for it and not for
// mymaster.
func TestPrometheusAlertsEndToEnd(t *testing.T) {
	top := startDataUnpromotable(t, 1)
	otherA, otherB := startRedis(t), startRedis(t)
	var metrics []string
	for i := 0; i < 3; i++ {
		other := otherA
		if i == 2 {
			other = otherB
		}
		port := freePort(t)
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		conf := writeConf(t, fmt.Sprintf("port %d\n"+
			"sentinel monitor mymaster 127.0.0.1 %d 2\nsentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 3000\n"+
			"sentinel monitor other 127.0.0.1 %d 2\nsentinel down-after-milliseconds other 1000\n",
			port, top.master.Port, other.Port))
		top.sentinels = append(top.sentinels, startSentinel(t, conf, port, nil, "--metrics-addr", addr))
		metrics = append(metrics, addr)
	}
	for _, s := range top.sentinels {
		waitFor(t, 20*time.Second, "each Sentinel to know the replica and the two others", func() bool {
			return listLen(t, s.Port, "REPLICAS") == 1 && listLen(t, s.Port, "SENTINELS") == 2
		})
	}
	pr := startPrometheus(t, metrics)
	waitFor(t, 30*time.Second, "Prometheus to scrape the three Sentinels", func() bool {
		var data struct {
			ActiveTargets []struct {
				Health string `json:"health"`
			} `json:"activeTargets"`
		}
		if err := pr.get("/api/v1/targets", &data); err != nil || len(data.ActiveTargets) != 3 {
			return false
		}
		for _, tg := range data.ActiveTargets {
			if tg.Health != "up" {
				return false
			}
		}
		return true
	})
	var rules struct {
		Groups []struct {
			Rules []struct {
				Name   string `json:"name"`
				Health string `json:"health"`
				Error  string `json:"lastError"`
			} `json:"rules"`
		} `json:"groups"`
	}
	waitFor(t, 10*time.Second, "every rule evaluated without error", func() bool {
		if err := pr.get("/api/v1/rules", &rules); err != nil || len(rules.Groups) != 2 {
			return false
		}
		for _, g := range rules.Groups {
			for _, r := range g.Rules {
				if r.Health != "ok" {
					if r.Error != "" {
						t.Logf("rule %s: %s", r.Name, r.Error)
					}
					return false
				}
			}
		}
		return true
	})
	mymaster := map[string]string{"master_name": "mymaster"}
	if a := pr.firing(t, "SentinelMasterDown", mymaster); a != nil {
		t.Fatalf("SentinelMasterDown fires before the master died: %+v", a)
	}

	killProc(top.master)
	killed := time.Now()
	waitFor(t, 40*time.Second, "SentinelFailoverAborted (no-good-slave) to fire", func() bool {
		return pr.firing(t, "SentinelFailoverAborted", map[string]string{"master_name": "mymaster", "reason": "no-good-slave"}) != nil
	})
	var down *promAlert
	waitFor(t, 60*time.Second, "SentinelMasterDown to fire", func() bool {
		down = pr.firing(t, "SentinelMasterDown", mymaster)
		return down != nil
	})
	t.Logf("SentinelMasterDown fired %.1fs after the kill", time.Since(killed).Seconds())
	if !strings.Contains(down.Annotations["description"], "go-sentinel explain mymaster") {
		t.Errorf("SentinelMasterDown's description does not say what to run: %q", down.Annotations["description"])
	}

	replica := client(t, top.replicas[0].Port)
	if err := replica.ConfigSet(context.Background(), "replica-priority", "100").Err(); err != nil {
		t.Fatal(err)
	}
	fixed := time.Now()
	waitFor(t, 60*time.Second, "SentinelMasterDown to resolve and SentinelMasterSwitched to fire", func() bool {
		return pr.firing(t, "SentinelMasterDown", mymaster) == nil && pr.firing(t, "SentinelMasterSwitched", mymaster) != nil
	})
	t.Logf("resolved %.1fs after the replica was made promotable", time.Since(fixed).Seconds())
	want := fmt.Sprint(top.replicas[0].Port)
	for _, s := range top.sentinels {
		addr, err := client(t, s.Port).Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
		if err != nil || len(addr) != 2 || addr[1] != want {
			t.Fatalf("sentinel %d: mymaster at %v (%v), want port %s", s.Port, addr, err, want)
		}
	}

	waitFor(t, 60*time.Second, "SentinelsDisagreeOnMaster to fire for other", func() bool {
		return pr.firing(t, "SentinelsDisagreeOnMaster", map[string]string{"master_name": "other"}) != nil
	})
	for _, a := range pr.alerts(t) {
		if a.Labels["alertname"] == "SentinelsDisagreeOnMaster" && a.Labels["master_name"] == "mymaster" {
			t.Errorf("the Sentinels agree on mymaster, yet: %+v", a)
		}
	}
}
