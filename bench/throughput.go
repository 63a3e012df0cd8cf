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
)

// benchmarkRPS runs redis-benchmark against port with args as the command
// and returns its requests per second.
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
	for _, name := range []string{"SENTINEL GET-MASTER-ADDR-BY-NAME", "PING"} {
		cells := []string{"`" + name + "` requests/s", "≥ redis-sentinel's"}
		var sums []summary
		for _, im := range impls {
			s := summarize(res[im.name][name])
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
	}
	tb.print(out)
}

func throughputRounds(impls []impl) (map[string]map[string][]float64, error) {
	res := make(map[string]map[string][]float64)
	for _, im := range impls {
		res[im.name] = make(map[string][]float64)
	}
	dir, err := os.MkdirTemp("", "bench-throughput-")
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	ports, err := freePorts(1 + len(impls))
	if err != nil {
		return res, err
	}
	master, err := startRedis(dir, ports[0], 0)
	if err != nil {
		return res, err
	}
	defer master.kill()
	fc := fleetConf{masters: []monitored{{name: "mymaster", port: ports[0]}}, quorum: 1, downAfter: 30 * time.Second, failover: 180 * time.Second}
	for k, im := range impls {
		sd := filepath.Join(dir, "s"+strconv.Itoa(k))
		if err := os.Mkdir(sd, 0o755); err != nil {
			return res, err
		}
		s, err := startSentinel(im, sd, ports[1+k], fc, "")
		if err != nil {
			return res, err
		}
		defer s.stop()
		if err := waitPing(ports[1+k], 10*time.Second); err != nil {
			return res, err
		}
	}
	time.Sleep(2 * time.Second)
	for r := range *rounds {
		for j := range impls {
			k := (j + r) % len(impls)
			im := impls[k]
			for _, cmd := range [][]string{{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"}, {"PING"}} {
				name := strings.Join(cmd[:len(cmd)-min(1, len(cmd)-1)], " ")
				rps, err := benchmarkRPS(ports[1+k], cmd...)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s %s: %v\n", im.name, name, err)
					rps = math.NaN()
				}
				fmt.Fprintf(os.Stderr, "%s %s: %.0f/s\n", im.name, name, rps)
				res[im.name][name] = append(res[im.name][name], rps)
			}
		}
	}
	return res, nil
}
