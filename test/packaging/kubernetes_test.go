package packaging

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// kubeDir is the Kubernetes example, relative to the repository.
const kubeDir = "deploy/kubernetes"

// kubeObject is one YAML document of the example, decoded generically.
type kubeObject struct {
	file string
	doc  map[string]any
}

func (o kubeObject) kind() string { return str(o.doc["kind"]) }
func (o kubeObject) name() string { return str(get(o.doc, "metadata", "name")) }
func (o kubeObject) String() string {
	return fmt.Sprintf("%s %s/%s", o.file, o.kind(), o.name())
}

// get walks nested maps along keys; nil when a key is missing.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// list returns v as a list of maps (nil when it is not a list).
func list(v any) []map[string]any {
	items, _ := v.([]any)
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// str returns v as a string ("" when it is not one).
func str(v any) string {
	s, _ := v.(string)
	return s
}

// byName returns the element of items whose "name" is name.
func byName(items []map[string]any, name string) map[string]any {
	for _, m := range items {
		if str(m["name"]) == name {
			return m
		}
	}
	return nil
}

// readKubeObjects parses every YAML document of every file under the
// example and checks that each has apiVersion, kind and metadata.name.
func readKubeObjects(t *testing.T) []kubeObject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), kubeDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no YAML under %s: %v", kubeDir, err)
	}
	var objs []kubeObject
	for _, f := range files {
		dec := yaml.NewDecoder(bytes.NewReader([]byte(readText(t, f))))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if doc == nil {
				continue // an empty document
			}
			o := kubeObject{file: filepath.Base(f), doc: doc}
			if str(doc["apiVersion"]) == "" || o.kind() == "" || o.name() == "" {
				t.Errorf("%s: a document without apiVersion, kind or metadata.name: %v", f, doc)
			}
			objs = append(objs, o)
		}
	}
	return objs
}

// findKube returns the object of kind and name, failing the test when
// there is none.
func findKube(t *testing.T, objs []kubeObject, kind, name string) kubeObject {
	t.Helper()
	for _, o := range objs {
		if o.kind() == kind && o.name() == name {
			return o
		}
	}
	t.Fatalf("%s: no %s %q", kubeDir, kind, name)
	return kubeObject{}
}

// selects reports whether the labels match every pair of selector.
func selects(selector, labels any) bool {
	sel, _ := selector.(map[string]any)
	lab, _ := labels.(map[string]any)
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if lab[k] != v {
			return false
		}
	}
	return true
}

// confDirective returns the arguments of the last line of conf whose
// first words are prefix (nil when there is none).
func confDirective(conf, prefix string) []string {
	var out []string
	for _, l := range strings.Split(conf, "\n") {
		f := strings.Fields(l)
		p := strings.Fields(prefix)
		if len(f) >= len(p) && slices.Equal(f[:len(p)], p) {
			out = f[len(p):]
		}
	}
	return out
}

// expandPod replaces the $(VAR) references of a container argument with
// what Kubernetes gives the first pod.
func expandPod(arg, pod, namespace string) string {
	return strings.NewReplacer("$(POD_NAME)", pod, "$(POD_NAMESPACE)", namespace).Replace(arg)
}

// TestKubernetesExample checks deploy/kubernetes without a cluster (none
// can run here): every document parses and names itself; the StatefulSet
// runs 3 replicas as uid 65532, its Services, PodDisruptionBudget and
// probes point at ports, volumes, ConfigMap keys and labels that exist,
// each pod announces its stable DNS name, the ports match the config's,
// and the state file is on the claimed volume. Then the ConfigMap's
// sentinel.conf passes `go-sentinel check` and starts, from a read-only
// directory as uid 65532, with the StatefulSet's arguments: its state goes
// to the state file, the config file is not written and /metrics (the
// liveness probe) answers.
func TestKubernetesExample(t *testing.T) {
	objs := readKubeObjects(t)
	ns := findKube(t, objs, "Namespace", "redis").name()
	for _, o := range objs {
		if o.kind() != "Namespace" && str(get(o.doc, "metadata", "namespace")) != ns {
			t.Errorf("%v: namespace %q, want %q", o, get(o.doc, "metadata", "namespace"), ns)
		}
	}
	sts := findKube(t, objs, "StatefulSet", "go-sentinel").doc
	spec, pod := get(sts, "spec"), get(sts, "spec", "template")
	if r, _ := get(spec, "replicas").(int); r != 3 {
		t.Errorf("StatefulSet replicas %v, want 3", get(spec, "replicas"))
	}
	labels := get(pod, "metadata", "labels")
	if !selects(get(spec, "selector", "matchLabels"), labels) {
		t.Errorf("the StatefulSet's selector does not select its pods")
	}
	if sec := get(pod, "spec", "securityContext"); get(sec, "runAsUser") != 65532 || get(sec, "runAsGroup") != 65532 ||
		get(sec, "fsGroup") != 65532 || get(sec, "runAsNonRoot") != true {
		t.Errorf("pod securityContext %v, want uid, gid and fsGroup 65532, runAsNonRoot", sec)
	}

	// The headless Service named by serviceName, the client Service and
	// the PodDisruptionBudget select the pods.
	svcName := str(get(spec, "serviceName"))
	headless := findKube(t, objs, "Service", svcName).doc
	if get(headless, "spec", "clusterIP") != "None" || get(headless, "spec", "publishNotReadyAddresses") != true {
		t.Errorf("Service %s: clusterIP %v, publishNotReadyAddresses %v; want None and true", svcName,
			get(headless, "spec", "clusterIP"), get(headless, "spec", "publishNotReadyAddresses"))
	}
	client := findKube(t, objs, "Service", "go-sentinel-client").doc
	pdb := findKube(t, objs, "PodDisruptionBudget", "go-sentinel").doc
	if get(pdb, "spec", "maxUnavailable") != 1 || !selects(get(pdb, "spec", "selector", "matchLabels"), labels) {
		t.Errorf("PodDisruptionBudget %v: want maxUnavailable 1 over the StatefulSet's pods", get(pdb, "spec"))
	}

	containers := list(get(pod, "spec", "containers"))
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	c := containers[0]
	if img := str(c["image"]); !strings.HasPrefix(img, "go-sentinel:") {
		t.Errorf("image %q, want go-sentinel:<tag> (make image)", img)
	}
	ports := map[string]int{}
	for _, p := range list(c["ports"]) {
		n, _ := p["containerPort"].(int)
		ports[str(p["name"])] = n
	}
	for _, svc := range []map[string]any{headless, client} {
		if !selects(get(svc, "spec", "selector"), labels) {
			t.Errorf("Service %v does not select the StatefulSet's pods", get(svc, "metadata", "name"))
		}
		for _, p := range list(get(svc, "spec", "ports")) {
			if target := str(p["targetPort"]); ports[target] == 0 || p["port"] != ports[target] {
				t.Errorf("Service %v: port %v to %v, want a named container port of the same number", get(svc, "metadata", "name"), p["port"], p["targetPort"])
			}
		}
	}
	for _, probe := range []string{"readinessProbe", "livenessProbe"} {
		pr := get(c, probe)
		port := str(get(pr, "tcpSocket", "port")) + str(get(pr, "httpGet", "port"))
		if port == "" || ports[port] == 0 {
			t.Errorf("%s %v: its port is not a named container port", probe, pr)
		}
	}
	if get(c, "livenessProbe", "httpGet", "path") != "/metrics" || get(c, "livenessProbe", "httpGet", "port") != "metrics" {
		t.Errorf("livenessProbe %v, want GET /metrics on the metrics port", get(c, "livenessProbe"))
	}
	if a := get(pod, "metadata", "annotations"); get(a, "prometheus.io/scrape") != "true" ||
		get(a, "prometheus.io/port") != strconv.Itoa(ports["metrics"]) || get(a, "prometheus.io/path") != "/metrics" {
		t.Errorf("pod annotations %v, want the Prometheus scrape of /metrics on port %d", a, ports["metrics"])
	}

	// Every mount is a volume of the pod or of a claim template; the
	// config volume's ConfigMap holds the key it mounts.
	volumes := list(get(pod, "spec", "volumes"))
	claims := map[string]bool{}
	for _, vc := range list(get(spec, "volumeClaimTemplates")) {
		claims[str(get(vc, "metadata", "name"))] = true
	}
	mounts := map[string]map[string]any{}
	for _, m := range list(c["volumeMounts"]) {
		name := str(m["name"])
		mounts[name] = m
		if byName(volumes, name) == nil && !claims[name] {
			t.Errorf("volumeMount %q: no such volume or volumeClaimTemplate", name)
		}
	}
	cfgVol := byName(volumes, "config")
	cm := findKube(t, objs, "ConfigMap", str(get(cfgVol, "configMap", "name"))).doc
	items := list(get(cfgVol, "configMap", "items"))
	if len(items) != 1 || mounts["config"] == nil || get(mounts["config"], "readOnly") != true {
		t.Fatalf("config volume %v mounted as %v: want one ConfigMap item, mounted read-only", cfgVol, mounts["config"])
	}
	conf := str(get(cm, "data", str(items[0]["key"])))
	if conf == "" {
		t.Fatalf("ConfigMap %v has no key %q", get(cm, "metadata", "name"), items[0]["key"])
	}
	args := []string{}
	for _, a := range c["args"].([]any) {
		args = append(args, str(a))
	}
	if want := str(get(mounts["config"], "mountPath")) + "/" + str(items[0]["path"]); len(args) == 0 || args[0] != want {
		t.Fatalf("args %q: the config file should be %s, the ConfigMap's file", args, want)
	}

	// The config: the ports, the state file on the claimed volume (the
	// working directory), and each pod announcing its DNS name.
	if p := confDirective(conf, "port"); len(p) != 1 || p[0] != strconv.Itoa(ports["sentinel"]) {
		t.Errorf("config port %v, container port sentinel %d", p, ports["sentinel"])
	}
	if m := confDirective(conf, "metrics-addr"); len(m) != 1 || !strings.HasSuffix(m[0], ":"+strconv.Itoa(ports["metrics"])) {
		t.Errorf("config metrics-addr %v, container port metrics %d", m, ports["metrics"])
	}
	state := confDirective(conf, "sentinel state-config-file")
	data := ""
	for name := range claims {
		data = str(get(mounts[name], "mountPath"))
	}
	if len(state) != 1 || data == "" || filepath.Dir(state[0]) != data || get(c, "workingDir") != data {
		t.Errorf("state-config-file %v, workingDir %v: want both on the claimed volume %q", state, get(c, "workingDir"), data)
	}
	for _, d := range []string{"sentinel resolve-hostnames", "sentinel announce-hostnames"} {
		if v := confDirective(conf, d); len(v) != 1 || v[0] != "yes" {
			t.Errorf("%s %v, want yes", d, v)
		}
	}
	env := list(c["env"])
	for name, field := range map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"} {
		if get(byName(env, name), "valueFrom", "fieldRef", "fieldPath") != field {
			t.Errorf("env %s should come from %s: %v", name, field, byName(env, name))
		}
	}
	podArgs := make([]string, len(args))
	for i, a := range args {
		podArgs[i] = expandPod(a, "go-sentinel-0", ns)
	}
	if i := slices.Index(podArgs, "announce-ip"); i < 1 || podArgs[i-1] != "--sentinel" || i+1 >= len(podArgs) ||
		podArgs[i+1] != fmt.Sprintf("go-sentinel-0.%s.%s.svc.cluster.local", svcName, ns) {
		t.Errorf("args %q for go-sentinel-0: want --sentinel announce-ip go-sentinel-0.%s.%s.svc.cluster.local", podArgs, svcName, ns)
	}

	bin := buildSentinel(t)
	checkKubeConf(t, bin, conf, podArgs[1:])
	runKubeConf(t, bin, conf, podArgs[1:], state[0], data)
}

// buildSentinel builds go-sentinel into a temporary directory.
func buildSentinel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "go-sentinel")
	cmd := exec.Command(goTool(t), "build", "-o", bin, "./cmd/go-sentinel")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	openToAll(t, dir)
	return bin
}

// checkKubeConf runs `go-sentinel check --json` on the ConfigMap's
// sentinel.conf with the pod's directives and requires exit status 0
// (see expected for the one exception).
func checkKubeConf(t *testing.T, bin, conf string, directives []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append([]string{"check", "--json", path}, directives...)...).Output()
	var report struct {
		Findings []struct{ Severity, Rule, Reason string }
		ExitCode int `json:"exit_code"`
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("go-sentinel check: %v, %v\n%s", err, jerr, out)
	}
	// One ConfigMap serves every pod, so it cannot list the other
	// Sentinels (known-sentinel lines need their myids, generated at
	// their first start): without `sentinel voters`, which declares how
	// many there are, the static check counts 1 Sentinel and reports
	// that, and only that.
	expected := map[string]bool{}
	if len(confDirective(conf, "sentinel voters")) == 0 {
		expected = map[string]bool{"sentinel-count": true, "quorum-unreachable": true}
	}
	for _, f := range report.Findings {
		t.Logf("check: %s %s: %s", f.Severity, f.Rule, f.Reason)
		if f.Severity != "info" && !expected[f.Rule] {
			t.Errorf("go-sentinel check on the ConfigMap's sentinel.conf: %s %s", f.Severity, f.Rule)
		}
	}
	if report.ExitCode == 1 || (len(expected) == 0 && (err != nil || report.ExitCode != 0)) {
		t.Errorf("go-sentinel check on the ConfigMap's sentinel.conf: exit %d (%v)", report.ExitCode, err)
	}
}

// runKubeConf starts go-sentinel on the ConfigMap's sentinel.conf as the
// pod would, on loopback: the master's name and the ports replaced by
// local ones and the volume by a temporary directory; the config file is
// in a directory nobody may write, the process runs as uid 65532 when the
// test is root. It checks that the state file is written on the "volume"
// with the myid and the announced name, that the config file is unchanged
// and that /metrics answers.
func runKubeConf(t *testing.T, bin, conf string, directives []string, statePath, dataDir string) {
	t.Helper()
	port, metrics := freePort(t), freePort(t)
	master := confDirective(conf, "sentinel monitor mymaster")
	if len(master) != 3 {
		t.Fatalf("sentinel monitor mymaster %v", master)
	}
	data := t.TempDir()
	local := strings.NewReplacer(
		dataDir+"/", data+"/",
		master[0]+" ", "localhost ",
		"port 26379\n", fmt.Sprintf("port %d\n", port),
		"metrics-addr 0.0.0.0:9355\n", fmt.Sprintf("metrics-addr 127.0.0.1:%d\n", metrics),
	).Replace(conf)
	if local == conf || !strings.Contains(local, data+"/") || strings.Contains(local, "9355") {
		t.Fatalf("the config was not made local:\n%s", local)
	}
	cfgDir := t.TempDir()
	cfgPath := filepath.Join(cfgDir, "sentinel.conf")
	if err := os.WriteFile(cfgPath, []byte(local), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(cfgDir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(cfgDir, 0o755) })
	openToAll(t, cfgDir)
	cmd := exec.Command(bin, append([]string{cfgPath}, directives...)...)
	cmd.Dir = data
	if os.Geteuid() == 0 {
		if err := os.Chown(data, 65532, 65532); err != nil {
			t.Fatal(err)
		}
		openToAll(t, data)
		asUser(cmd, 65532, 65532)
	}
	d := startDaemon(t, cmd, port)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics))
	if err != nil {
		t.Fatalf("GET /metrics (the liveness probe): %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /metrics: %s", resp.Status)
	}
	if code := d.stop(t, 0); code != 0 {
		t.Errorf("exit code %d after SIGTERM:\n%s", code, d.out.String())
	}
	stateFile := filepath.Join(data, filepath.Base(statePath))
	st := readText(t, stateFile)
	// The state file is a delta over the config file and the command
	// line: it holds the myid made at this first start, and not the
	// announce-ip the pod's arguments give at every start.
	announce := directives[slices.Index(directives, "announce-ip")+1]
	if len(confDirective(st, "sentinel myid")) != 1 || strings.Contains(st, announce) {
		t.Errorf("state file %s: want the myid and not the announce-ip %s of the command line:\n%s", stateFile, announce, st)
	}
	if got := readText(t, cfgPath); got != local {
		t.Errorf("the config file changed:\n%s", got)
	}
	if nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		nc.Close()
		t.Errorf("port %d still open after the stop", port)
	}
}
