package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/tlstest"
)

// throughputSettle is how long the Sentinels run before the first round:
// past the 5 s after which an idle go-sentinel runs Go code on one P
// (internal/node/procs.go), the state it serves clients in while quiet,
// so that every round measures the same process.
const throughputSettle = 6 * time.Second

// benchmarkRPS runs redis-benchmark against port with args as the command
// (TLS options, if any, first) and returns its requests per second.
func benchmarkRPS(port int, args ...string) (float64, error) {
	cmdArgs := append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-c", strconv.Itoa(*conns),
		"-n", strconv.Itoa(*requests), "--csv"}, args...)
	outb, err := exec.Command("redis-benchmark", cmdArgs...).Output()
	if err != nil {
		return 0, fmt.Errorf("redis-benchmark: %w", err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(outb))).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[1]) < 2 {
		return 0, fmt.Errorf("redis-benchmark output %q", outb)
	}
	return strconv.ParseFloat(recs[1][1], 64)
}

// throughputCase is one redis-benchmark run of a round: its name in the
// table, the command, and whether it goes to the TLS port.
type throughputCase struct {
	name string
	cmd  []string
	tls  bool
}

// throughputCases are the runs of a round: GET-MASTER-ADDR-BY-NAME and
// PING on the plain port, then (with -tls) PING on the TLS port.
func throughputCases() []throughputCase {
	cs := []throughputCase{
		{"SENTINEL GET-MASTER-ADDR-BY-NAME", []string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"}, false},
		{"PING", []string{"PING"}, false},
	}
	if *tlsBench {
		cs = append(cs, throughputCase{"PING over TLS", []string{"PING"}, true})
	}
	return cs
}

// throughputResult is what the rounds measured, by implementation then
// case: requests per second, and the Sentinel's CPU time per request in
// microseconds (user and system, from /proc, over the redis-benchmark
// run: the server's own cost of a request).
type throughputResult struct {
	rps, cpu map[string]map[string][]float64
}

// runThroughput runs redis-benchmark against one Sentinel of each
// implementation (monitoring one redis-server master), alternating.
func runThroughput(out io.Writer, impls []impl) {
	fmt.Fprintf(out, "## Throughput: `redis-benchmark -c %d -n %d` against one Sentinel monitoring one master, %d rounds each, A/B alternating\n\n",
		*conns, *requests, *rounds)
	res, err := throughputRounds(impls)
	if err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
	}
	tb := &table{head: tableHead(impls)}
	for _, tc := range throughputCases() {
		cells := []string{"`" + tc.name + "` requests/s", "≥ redis-sentinel's"}
		var sums []summary
		for _, im := range impls {
			s := summarize(res.rps[im.name][tc.name])
			sums = append(sums, s)
			cells = append(cells, fmtNum(s, 0, ""))
		}
		met := "no data"
		if hasRedis && sums[0].n > 0 && sums[1].n > 0 {
			met = pick(sums[0].med >= sums[1].med, "yes")
			if met == "" {
				met = "no"
			}
		}
		tb.add(append(cells, ratioCell(sums), met)...)
		cells = []string{"same: Sentinel CPU per request", ""}
		sums = sums[:0]
		for _, im := range impls {
			s := summarize(res.cpu[im.name][tc.name])
			sums = append(sums, s)
			cells = append(cells, fmtNum(s, 2, " µs"))
		}
		tb.add(append(cells, ratioCell(sums), "")...)
	}
	tb.print(out)
}

func throughputRounds(impls []impl) (throughputResult, error) {
	res := throughputResult{rps: map[string]map[string][]float64{}, cpu: map[string]map[string][]float64{}}
	for _, im := range impls {
		res.rps[im.name] = make(map[string][]float64)
		res.cpu[im.name] = make(map[string][]float64)
	}
	dir, ports, master, err := soloMaster("bench-throughput-", 2*len(impls))
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	defer master.kill()
	fc := fleetConf{masters: []monitored{{name: "mymaster", port: ports[0]}}, quorum: 1, downAfter: 30 * time.Second, failover: 180 * time.Second}
	var tlsArgs []string
	tlsPort := func(k int) int { return ports[1+len(impls)+k] }
	if *tlsBench {
		f, err := tlstest.Generate(dir)
		if err != nil {
			return res, err
		}
		tlsArgs = []string{"--tls", "--cacert", f.CA, "--cert", f.Cert, "--key", f.Key}
		fc.extra = func(k int) string {
			return fmt.Sprintf("tls-port %d\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\n", tlsPort(k), f.Cert, f.Key, f.CA)
		}
	}
	var procs []*sentinelProc
	for k, im := range impls {
		sd := filepath.Join(dir, "s"+strconv.Itoa(k))
		if err := os.Mkdir(sd, 0o755); err != nil {
			return res, err
		}
		s, err := startSentinelK(im, sd, ports[1+k], fc, "", k)
		if err != nil {
			return res, err
		}
		defer s.stop()
		procs = append(procs, s)
		if err := waitPing(ports[1+k], 10*time.Second); err != nil {
			return res, err
		}
	}
	time.Sleep(throughputSettle)
	for r := range *rounds {
		for j := range impls {
			k := (j + r) % len(impls)
			im := impls[k]
			for _, tc := range throughputCases() {
				port, args := ports[1+k], tc.cmd
				if tc.tls {
					port, args = tlsPort(k), append(append([]string(nil), tlsArgs...), tc.cmd...)
				}
				c0, err0 := sampleCPU(procs[k].pid())
				rps, err := benchmarkRPS(port, args...)
				c1, err1 := sampleCPU(procs[k].pid())
				cpu := math.NaN()
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s %s: %v\n", im.name, tc.name, err)
					rps = math.NaN()
				} else if err0 == nil && err1 == nil {
					cpu = float64((c1.cpu - c0.cpu).Microseconds()) / float64(*requests)
				}
				fmt.Fprintf(os.Stderr, "%s %s: %.0f/s, %.2f µs of CPU per request\n", im.name, tc.name, rps, cpu)
				res.rps[im.name][tc.name] = append(res.rps[im.name][tc.name], rps)
				res.cpu[im.name][tc.name] = append(res.cpu[im.name][tc.name], cpu)
			}
		}
	}
	return res, nil
}
