package sim

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestChaosCampaign is `make sim SEEDS=N`: N chaos seeds per fleet shape
// (SIM_SEEDS, from SIM_FIRST_SEED, 1 by default; the one-way shapes alone
// with SIM_ONEWAY=1, `make sim-oneway SEEDS=N`; the shapes SIM_FLEETS
// lists, in its order, `make sim FLEETS=4,5`), spread over GOMAXPROCS
// workers. It prints each fleet's rate in seeds per second and the
// coordinated failovers its seeds completed with the acknowledged writes
// lost in them, and fails with the list of seeds that broke an invariant
// or did not converge; each replays with TestChaos (see there). Skipped
// unless SIM_SEEDS is set: the regular tests run TestChaos's few seeds
// instead.
func TestChaosCampaign(t *testing.T) {
	n := envInt("SIM_SEEDS", 0)
	if n == 0 {
		t.Skip("SIM_SEEDS not set: make sim SEEDS=N runs the campaign")
	}
	first := envInt("SIM_FIRST_SEED", 1)
	workers := runtime.GOMAXPROCS(0)
	for _, i := range campaignFleets(t) {
		f := chaosFleets[i]
		if onewayOnly() && !f.oneway {
			continue
		}
		start := time.Now()
		failed, h := campaign(f, first, n, workers, func(done, failed int64, msg string) {
			if msg != "" {
				t.Logf("fleet %d (%s): %s", i, f.name, msg)
				return
			}
			t.Logf("fleet %d (%s): %d of %d seeds done in %v, %d failed", i, f.name, done, n, time.Since(start).Round(time.Second), failed)
		})
		d := time.Since(start)
		t.Logf("fleet %d (%s): %d seeds in %v: %.1f seeds/s, %d failed; %d coordinated failovers completed, %d acknowledged writes lost in them",
			i, f.name, n, d.Round(time.Second), float64(n)/d.Seconds(), len(failed), h.Completed, h.WritesLost)
		for _, msg := range failed {
			t.Errorf("fleet %d, %s (replay: SIM_CHAOS_FIRST=<seed> SIM_CHAOS_SEEDS=1 go test -run 'TestChaos/%d/' ./internal/sim)", i, msg, i)
		}
	}
}

// campaignFleets is the indexes of chaosFleets the campaign runs, in
// order: SIM_FLEETS, a comma-separated list ("4,5,0"), or every shape.
func campaignFleets(t *testing.T) []int {
	v := os.Getenv("SIM_FLEETS")
	if v == "" {
		all := make([]int, len(chaosFleets))
		for i := range all {
			all[i] = i
		}
		return all
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 || i >= len(chaosFleets) {
			t.Fatalf("SIM_FLEETS=%q: %q is not a fleet index (0 to %d)", v, f, len(chaosFleets)-1)
		}
		out = append(out, i)
	}
	return out
}

// campaign runs seeds [first, first+n) of f on workers goroutines and
// returns "seed S: <first line of the failure>" for each failing seed,
// in seed order, and the coordinated handovers of every seed, the
// failing ones up to their failure. It calls progress with each failure
// as it comes, and with the seeds done and failed so far (msg "") after
// every 1,000th seed.
func campaign(f chaosFleet, first, n int64, workers int, progress func(done, failed int64, msg string)) ([]string, HandoverStats) {
	seeds := make(chan int64)
	results := make([]string, n)
	stats := make([]HandoverStats, n)
	var mu sync.Mutex
	var done, nfailed int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				msg, h := runSeed(f, seed)
				if msg != "" {
					results[seed-first] = fmt.Sprintf("seed %d: %s", seed, msg)
				}
				stats[seed-first] = h
				mu.Lock()
				done++
				if msg != "" {
					nfailed++
					progress(done, nfailed, results[seed-first])
				}
				if done%1000 == 0 && done < n {
					progress(done, nfailed, "")
				}
				mu.Unlock()
			}
		}()
	}
	for seed := first; seed < first+n; seed++ {
		seeds <- seed
	}
	close(seeds)
	wg.Wait()
	var failed []string
	var total HandoverStats
	for i, r := range results {
		if r != "" {
			failed = append(failed, r)
		}
		total.Completed += stats[i].Completed
		total.WritesChecked += stats[i].WritesChecked
		total.WritesLost += stats[i].WritesLost
	}
	return failed, total
}

// seedStop is what seedTB panics with to end one seed's run.
type seedStop struct{}

// seedTB is the TB of one campaign seed: the first failure ends the run
// (like Fatalf ends a test) and is kept, with the seed's cluster (set by
// chaos) for its figures.
type seedTB struct {
	msg string
	c   *Cluster
}

func (s *seedTB) Helper() {}
func (s *seedTB) Fatalf(format string, args ...any) {
	s.msg, _, _ = strings.Cut(fmt.Sprintf(format, args...), "\n")
	panic(seedStop{})
}

// runSeed runs one seed and returns its failure, or "", and its
// coordinated handovers (up to the failure).
func runSeed(f chaosFleet, seed int64) (msg string, h HandoverStats) {
	tb := &seedTB{}
	defer func() {
		if tb.c != nil {
			h = tb.c.Handovers()
		}
		if r := recover(); r != nil {
			if _, ok := r.(seedStop); !ok {
				msg = fmt.Sprintf("panic: %v", r)
				return
			}
			msg = tb.msg
		}
	}()
	chaosRun(tb, seed, f)
	return "", h
}
