package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// dashboardPath is the Grafana dashboard TestGrafanaDashboard checks,
// relative to this directory.
const dashboardPath = "../../deploy/grafana/go-sentinel.json"

// notOnDashboard lists the redis_sentinel_* and sentinel_* families the
// exporter serves that no panel shows, each with the reason. Every other
// family it serves must appear in at least one panel.
var notOnDashboard = map[string]string{
	// Settings, not state: they change only with SENTINEL SET or an
	// edited config, and SENTINEL MASTER shows them.
	"redis_sentinel_master_setting_ckquorum":                "the master's configured quorum (a setting)",
	"redis_sentinel_master_setting_failover_timeout":        "the master's failover-timeout (a setting)",
	"redis_sentinel_master_setting_parallel_syncs":          "the master's parallel-syncs (a setting)",
	"redis_sentinel_master_setting_down_after_milliseconds": "the master's down-after-milliseconds (a setting)",
	// A testing knob: SENTINEL SIMULATE-FAILURE's flags, 0 in production.
	"redis_sentinel_simulate_failure_flags": "SENTINEL SIMULATE-FAILURE's flags, a testing knob",
	// Served only once a failover ended on failover-timeout with replicas
	// left to reconfigure, which the fleet of this test cannot produce
	// cheaply: a panel using it could not be checked against a live
	// exporter. (The exporter does not serve it here, so the entry only
	// documents the choice.)
	"sentinel_failovers_ended_for_timeout_total": "only served after a +failover-end-for-timeout; no live check possible here",
}

// grafanaPanel is the part of a Grafana panel the test reads; a row
// holds its panels in Panels when it is collapsed.
type grafanaPanel struct {
	Title   string `json:"title"`
	Type    string `json:"type"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
	Panels []grafanaPanel `json:"panels"`
}

// grafanaDashboard is the part of a Grafana dashboard the test reads.
type grafanaDashboard struct {
	Panels     []grafanaPanel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []struct {
			Name string `json:"name"`
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
}

// dashboardExpr is one PromQL expression of the dashboard and where it
// is.
type dashboardExpr struct {
	where string
	expr  string
}

// variableQuery is a templating variable's Prometheus query: Grafana
// writes it as a string, or as an object with the query in "query".
func variableQuery(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var o struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return "", fmt.Errorf("query %s: %w", raw, err)
	}
	return o.Query, nil
}

// labelValuesQuery matches label_values(selector, label); the selector
// is group 1.
var labelValuesQuery = regexp.MustCompile(`^\s*label_values\(\s*(.+?)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$`)

// readDashboard reads the dashboard at path and returns every panel
// target's and annotation's expression, and the selectors of the
// templating variables' label_values queries. It fails the test on a
// panel without an expression and on a variable query it cannot read.
func readDashboard(t *testing.T, path string) (exprs, selectors []dashboardExpr) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the dashboard: %v", err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	var walk func(ps []grafanaPanel)
	walk = func(ps []grafanaPanel) {
		for _, p := range ps {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			n := 0
			for _, tg := range p.Targets {
				if strings.TrimSpace(tg.Expr) == "" {
					continue
				}
				exprs = append(exprs, dashboardExpr{fmt.Sprintf("panel %q target %s", p.Title, tg.RefID), tg.Expr})
				n++
			}
			if n == 0 {
				t.Errorf("panel %q (%s) has no expression", p.Title, p.Type)
			}
		}
	}
	walk(d.Panels)
	for _, a := range d.Annotations.List {
		if a.Expr != "" {
			exprs = append(exprs, dashboardExpr{fmt.Sprintf("annotation %q", a.Name), a.Expr})
		}
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v.Type
		if v.Type != "query" {
			continue
		}
		q, err := variableQuery(v.Query)
		if err != nil {
			t.Errorf("variable %s: %v", v.Name, err)
			continue
		}
		m := labelValuesQuery.FindStringSubmatch(q)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, q)
			continue
		}
		selectors = append(selectors, dashboardExpr{fmt.Sprintf("variable %s", v.Name), m[1]})
	}
	for name, typ := range map[string]string{"datasource": "datasource", "master": "query", "instance": "query"} {
		if vars[name] != typ {
			t.Errorf("no templating variable %s of type %s (have %v)", name, typ, vars)
		}
	}
	if len(exprs) == 0 {
		t.Fatal("the dashboard has no expression")
	}
	return exprs, selectors
}

// grafanaVar matches a Grafana variable in a query: $name, ${name},
// ${name:format} or [[name]].
var grafanaVar = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$([a-zA-Z_]\w*)|\[\[(\w+)(?::\w+)?\]\]`)

// substituteGrafanaVars replaces the Grafana variables of expr with
// values PromQL accepts where they stand: Grafana's intervals and
// ranges with 1m (60 and 60000 for their _s and _ms forms), the
// dashboard's own variables (which the dashboard uses in regex matchers)
// with .*.
func substituteGrafanaVars(expr string) string {
	return grafanaVar.ReplaceAllStringFunc(expr, func(v string) string {
		m := grafanaVar.FindStringSubmatch(v)
		name := m[1] + m[2] + m[3]
		switch {
		case !strings.HasPrefix(name, "__"):
			return ".*"
		case strings.HasSuffix(name, "_ms"):
			return "60000"
		case strings.HasSuffix(name, "_s"):
			return "60"
		default:
			return "1m"
		}
	})
}

// checkWithPromtool has promtool check rules parse every expression,
// one recording rule each; on failure it checks them one by one to name
// each expression promtool rejects.
func checkWithPromtool(t *testing.T, exprs []dashboardExpr) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not on PATH: `make deps` (scripts/install-deps.sh) installs Debian's prometheus package, which has it")
	}
	dir := t.TempDir()
	run := func(name string, es []dashboardExpr) (string, error) {
		var b strings.Builder
		b.WriteString("groups:\n  - name: grafana-dashboard\n    rules:\n")
		for k, e := range es {
			q, err := json.Marshal(substituteGrafanaVars(e.expr)) // a JSON string is a YAML double-quoted scalar
			if err != nil {
				return "", fmt.Errorf("quoting %q: %w", e.expr, err)
			}
			fmt.Fprintf(&b, "      - record: dashboard:expr_%d\n        expr: %s\n", k, q)
		}
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			return "", fmt.Errorf("writing %s: %w", file, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "check", "rules", file).CombinedOutput()
		return string(out), err
	}
	out, err := run("all.rules.yml", exprs)
	if err == nil {
		return
	}
	named := false
	for k, e := range exprs {
		if one, err := run(fmt.Sprintf("expr-%d.rules.yml", k), []dashboardExpr{e}); err != nil {
			t.Errorf("%s: promtool check rules rejects %q (as %q): %v\n%s", e.where, e.expr, substituteGrafanaVars(e.expr), err, one)
			named = true
		}
	}
	if !named {
		t.Errorf("promtool check rules fails on the dashboard's expressions, though on none alone: %v\n%s", err, out)
	}
}

// scrapeFamilies fetches a Prometheus text exposition and returns the
// series names it serves, each mapped to its family: from the # TYPE
// lines, a histogram serves name_bucket, name_sum and name_count, a
// summary name, name_sum and name_count, any other type its name.
func scrapeFamilies(addr string) (map[string]string, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s: status %d", addr, resp.StatusCode)
	}
	served := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "#" || f[1] != "TYPE" {
			continue
		}
		name := f[2]
		switch f[3] {
		case "histogram":
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				served[name+s] = name
			}
		case "summary":
			for _, s := range []string{"", "_sum", "_count"} {
				served[name+s] = name
			}
		default:
			served[name] = name
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", addr, err)
	}
	return served, nil
}

// eventFamilies are the families the exporter serves only once an event
// created one of their series (the other counters exist for every
// master from the first scrape): liveFamilies makes its fleet produce
// them before the dashboard is compared with what the exporter serves.
var eventFamilies = []string{
	"sentinel_failovers_aborted_total",         // an aborted failover
	"sentinel_coordinated_failovers_total",     // a coordinated failover
	"sentinel_failover_writes_paused_seconds",  // the writes it paused
	"sentinel_failover_phase_duration_seconds", // its timeline
	"sentinel_failover_duration_seconds",       // its timeline
}

// liveFamilies starts a master with a replica and three go-sentinels
// with metrics, waits until each sees the replica and the two others,
// then has the first one lead a coordinated failover (once the replica
// is in sync, as FAILOVER TO needs) and abort the failover of a second
// master that has no replica; it returns the series names that Sentinel
// serves then, mapped to their families.
func liveFamilies(t *testing.T) map[string]string {
	t.Helper()
	top := startData(t, 1)
	var ss []*metricSentinel
	for i := 0; i < 3; i++ {
		ss = append(ss, top.addMetricSentinel(2))
	}
	waitDiscovery(t, top)
	s := ss[0]
	c := client(t, s.p.Port)
	ctx := context.Background()

	// A second master, watched by the first Sentinel alone with quorum
	// 1 and no replica: killed, it is failed over and the failover
	// aborted (-failover-abort-no-good-slave).
	lone := startRedis(t)
	if err := c.Do(ctx, "SENTINEL", "MONITOR", "lone", "127.0.0.1", lone.Port, 1).Err(); err != nil {
		t.Fatalf("SENTINEL MONITOR lone: %v", err)
	}
	if err := c.Do(ctx, "SENTINEL", "SET", "lone", "down-after-milliseconds", 500).Err(); err != nil {
		t.Fatalf("SENTINEL SET lone: %v", err)
	}
	killProc(lone)

	// FAILOVER TO completes only once the replica is in sync.
	waitInSync(t, top)
	failoverTo(t, s.p.Port, true)
	const timeout = 60 * time.Second
	deadline := time.Now().Add(timeout)
	for {
		served, err := scrapeFamilies(s.metrics)
		var missing []string
		if err == nil {
			families := familySet(served)
			for _, f := range eventFamilies {
				if !families[f] {
					missing = append(missing, f)
				}
			}
			if len(missing) == 0 {
				return served
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the first Sentinel serves no %s (last scrape: %v)", timeout, strings.Join(missing, ", "), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// familySet returns the families of served.
func familySet(served map[string]string) map[string]bool {
	fs := map[string]bool{}
	for _, f := range served {
		fs[f] = true
	}
	return fs
}

// TestGrafanaDashboard checks deploy/grafana/go-sentinel.json: every
// expression of its panels, annotations and variables parses (promtool
// check rules) and uses only metrics a live go-sentinel serves, and
// every redis_sentinel_* and sentinel_* family it serves is on a panel
// or in notOnDashboard.
func TestGrafanaDashboard(t *testing.T) {
	exprs, selectors := readDashboard(t, dashboardPath)
	checkWithPromtool(t, exprs)

	served := liveFamilies(t)
	used := map[string]bool{}
	check := func(e dashboardExpr, oneMetric bool) {
		names, err := promqlMetricNames(substituteGrafanaVars(e.expr))
		switch {
		case err != nil:
			t.Errorf("%s: reading the metric names of %q: %v", e.where, e.expr, err)
			return
		case len(names) == 0:
			t.Errorf("%s: %q uses no metric by name", e.where, e.expr)
		case oneMetric && len(names) != 1:
			t.Errorf("%s: %q selects %d metrics, want one", e.where, e.expr, len(names))
		}
		var unknown []string
		for _, n := range names {
			f, ok := served[n]
			if !ok {
				unknown = append(unknown, n)
				continue
			}
			used[f] = true
		}
		if len(unknown) > 0 {
			t.Errorf("%s: %q uses %s, which the live exporter does not serve", e.where, e.expr, strings.Join(unknown, ", "))
		}
	}
	for _, e := range exprs {
		check(e, false)
	}
	for _, e := range selectors {
		check(e, true)
	}

	families := familySet(served)
	var sorted []string
	for f := range families {
		sorted = append(sorted, f)
	}
	sort.Strings(sorted)
	for _, f := range sorted {
		if !strings.HasPrefix(f, "redis_sentinel_") && !strings.HasPrefix(f, "sentinel_") {
			continue
		}
		if _, ok := notOnDashboard[f]; !ok && !used[f] {
			t.Errorf("%s is served but on no panel, nor in notOnDashboard", f)
		}
	}
	for f := range notOnDashboard {
		if used[f] {
			t.Errorf("%s is in notOnDashboard, but a panel uses it", f)
		}
	}
	t.Logf("%d expressions, %d variable selectors; %d families served, %d of them on the dashboard",
		len(exprs), len(selectors), len(families), len(used))
}

// promqlKeywords are PromQL's keywords, which never name a metric (the
// lexer matches them whatever their case).
var promqlKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "atan2": true, "bool": true, "offset": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true,
}

// promqlLabelLists are the keywords followed by a parenthesised list of
// label names (optional after group_left and group_right).
var promqlLabelLists = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// promqlAggregations are PromQL's aggregation operators (keywords too,
// whatever their case).
var promqlAggregations = map[string]bool{
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true,
	"count": true, "count_values": true, "bottomk": true, "topk": true, "quantile": true,
	"limitk": true, "limit_ratio": true,
}

// promqlFunctions are PromQL's functions (Prometheus 3's), with start
// and end of the @ modifier.
var promqlFunctions = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`abs absent absent_over_time acos acosh asin asinh atan atanh avg_over_time
		ceil changes clamp clamp_max clamp_min cos cosh count_over_time day_of_month day_of_week day_of_year
		days_in_month deg delta deriv double_exponential_smoothing exp floor histogram_avg histogram_count
		histogram_fraction histogram_quantile histogram_stddev histogram_stdvar histogram_sum holt_winters hour
		idelta increase info irate label_join label_replace last_over_time ln log10 log2 mad_over_time
		max_over_time min_over_time minute month pi predict_linear present_over_time quantile_over_time rad
		rate resets round scalar sgn sin sinh sort sort_by_label sort_by_label_desc sort_desc sqrt
		stddev_over_time stdvar_over_time sum_over_time tan tanh time timestamp vector year start end`) {
		promqlFunctions[f] = true
	}
}

// isIdentStart reports whether c may start a PromQL identifier.
func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// isIdentChar reports whether c may follow in a PromQL identifier.
func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipQuoted returns the index after the string literal that starts at
// i (its quote at expr[i]).
func skipQuoted(expr string, i int) (int, error) {
	q := expr[i]
	for j := i + 1; j < len(expr); j++ {
		switch {
		case expr[j] == '\\' && q != '`':
			j++
		case expr[j] == q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string at offset %d", i)
}

// skipGroup returns the index after the close that ends the group open
// starts at i, skipping the string literals inside.
func skipGroup(expr string, i int, close byte) (int, error) {
	for j := i + 1; j < len(expr); j++ {
		switch c := expr[j]; {
		case c == '"' || c == '\'' || c == '`':
			k, err := skipQuoted(expr, j)
			if err != nil {
				return 0, err
			}
			j = k - 1
		case c == close:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unclosed %q at offset %d", expr[i], i)
}

// skipSpace returns the index of the first byte at or after i that is
// not white space.
func skipSpace(expr string, i int) int {
	for i < len(expr) && strings.IndexByte(" \t\r\n", expr[i]) >= 0 {
		i++
	}
	return i
}

// errUnexpected reports a byte the reader does not expect in PromQL
// (an unsubstituted Grafana variable, for one).
var errUnexpected = errors.New("unexpected character")

// promqlMetricNames returns the metric names expr selects by name, each
// once, in order of first use. It skips string literals, label matchers
// ({...}), ranges and subqueries ([...]), numbers and durations,
// comments, keywords, the label lists after by, without, on, ignoring,
// group_left and group_right, aggregation operators, and functions (an
// identifier followed by "(" must be one). A selector by
// {__name__="..."} alone names no metric here.
func promqlMetricNames(expr string) ([]string, error) {
	var names []string
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case strings.IndexByte(" \t\r\n", c) >= 0:
			i++
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			j, err := skipQuoted(expr, i)
			if err != nil {
				return nil, err
			}
			i = j
		case c == '{' || c == '[':
			j, err := skipGroup(expr, i, map[byte]byte{'{': '}', '[': ']'}[c])
			if err != nil {
				return nil, err
			}
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(expr) && isDigit(expr[i+1])):
			for i < len(expr) && (isIdentChar(expr[i]) || expr[i] == '.') {
				i++
			}
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdentChar(expr[j]) {
				j++
			}
			ident, lower := expr[i:j], strings.ToLower(expr[i:j])
			next := skipSpace(expr, j)
			paren := next < len(expr) && expr[next] == '('
			i = j
			switch {
			case promqlLabelLists[lower]:
				if paren {
					k, err := skipGroup(expr, next, ')')
					if err != nil {
						return nil, err
					}
					i = k
				}
			case promqlKeywords[lower], promqlAggregations[lower]:
			case paren:
				if !promqlFunctions[ident] {
					return nil, fmt.Errorf("%q at offset %d is no PromQL function", ident, i-len(ident))
				}
			default:
				if !slices.Contains(names, ident) {
					names = append(names, ident)
				}
			}
		case strings.IndexByte("()+-*/%^=!<>,~@:", c) >= 0:
			i++
		default:
			return nil, fmt.Errorf("%w %q at offset %d", errUnexpected, c, i)
		}
	}
	return names, nil
}

// TestPromQLMetricNames checks promqlMetricNames, and on the cases
// marked grafana substituteGrafanaVars before it.
func TestPromQLMetricNames(t *testing.T) {
	for _, tc := range []struct {
		expr    string
		grafana bool
		want    []string
		wantErr bool
	}{
		{expr: `up`, want: []string{"up"}},
		{expr: `job:rate5m:sum`, want: []string{"job:rate5m:sum"}},
		{expr: `redis_sentinel_master_status{master_name=~"a|b.*", master_status!="ok"}`, want: []string{"redis_sentinel_master_status"}},
		{expr: `m{a=~"x{1,2}[0-9]+(y|z)", b="}"}`, want: []string{"m"}},
		{expr: `sum by (a, b) (m1) / ignoring(c) m2`, want: []string{"m1", "m2"}},
		{expr: `sum(rate(m[5m])) by (type)`, want: []string{"m"}},
		{expr: `SUM BY (a) (m)`, want: []string{"m"}},
		{expr: `histogram_quantile(0.9, sum by (le, phase) (rate(x_bucket[5m])))`, want: []string{"x_bucket"}},
		{expr: `count by (master_name) (count by (master_name, master_address) (m))`, want: []string{"m"}},
		{expr: `a / on(master_name) group_left b`, want: []string{"a", "b"}},
		{expr: `a / on (master_name) group_left (master_address) b * ignoring (x) group_right c`, want: []string{"a", "b", "c"}},
		{expr: `a > bool 0 and on() b unless c or d`, want: []string{"a", "b", "c", "d"}},
		{expr: `label_replace(up{job="x"}, "dst", "$1 (x) {y} by", "src", "(.*)")`, want: []string{"up"}},
		{expr: `m offset 5m + max_over_time(n[1h:5m] offset -1d) + o @ start() + p @ 1609746000`, want: []string{"m", "n", "o", "p"}},
		{expr: `m * 1e-3 + 0x1f - Inf + .5 + NaN`, want: []string{"m"}},
		{expr: `m / m + topk(3, n) + quantile(0.5, m) + count_values("v", o)`, want: []string{"m", "n", "o"}},
		{expr: "m # a comment with n\n+ o", want: []string{"m", "o"}},
		{expr: `{__name__=~"sentinel_.*"}`, want: nil},
		{expr: `rate(m{master_name=~"$master"}[$__rate_interval])`, want: []string{"m"}},
		{expr: `increase(m{master_name=~"${master}", instance=~"${instance:regex}"}[$__range]) / $__range_s`, grafana: true, want: []string{"m"}},
		{expr: `rat(m[5m])`, wantErr: true},
		{expr: `m{a="b"`, wantErr: true},
		{expr: `m{a="b}`, wantErr: true},
		{expr: `m[5m`, wantErr: true},
		{expr: `m + $x`, wantErr: true},
	} {
		expr := tc.expr
		if tc.grafana {
			expr = substituteGrafanaVars(expr)
		}
		got, err := promqlMetricNames(expr)
		if (err != nil) != tc.wantErr {
			t.Errorf("promqlMetricNames(%q): error %v, want error %v", expr, err, tc.wantErr)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("promqlMetricNames(%q) = %q, want %q", expr, got, tc.want)
		}
	}
	if got, want := substituteGrafanaVars(`rate(m{a=~"$master",b=~"${instance:pipe}"}[$__rate_interval]) / $__range_s / $__interval_ms`),
		`rate(m{a=~".*",b=~".*"}[1m]) / 60 / 60000`; got != want {
		t.Errorf("substituteGrafanaVars = %q, want %q", got, want)
	}
}
