package lint

import (
	"testing"
	"time"
)

const ms = time.Millisecond

// The fleets the tests use: 3 Sentinels, quorum 2.
var (
	allGo    = Fleet{Go: 3, Quorum: 2}
	allRedis = Fleet{Redis: 3, Quorum: 2}
	twoGo    = Fleet{Go: 2, Redis: 1, Quorum: 2} // the go-sentinels make the quorum
	oneGo    = Fleet{Go: 1, Redis: 2, Quorum: 2} // they do not
)

// TestCourses pins each phase of the model, expected and longest, for a
// failover led by each implementation.
func TestCourses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		downAfter time.Duration
		fleet     Fleet
		failure   Failure
		redisLed  bool
		// detect, odown, elect, promote, switch, reconnect: expected, then
		// longest.
		want, wantMax [6]time.Duration
	}{
		// 30 s + half a PING interval (the 2nd of 3 first unanswered
		// PINGs), a busy tick (20 ms) to count the ODOWN replies, half
		// the jitter + 2 ticks to be elected, 2 ticks to promote, 1 for
		// the hellos, 50 ms for the clients.
		{"go-sentinel, host failure", 30 * time.Second, allGo, HostFailure, false,
			[6]time.Duration{30500 * ms, 20 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{31 * time.Second, 140 * ms, 300 * ms, 105 * ms, 40 * ms, time.Second}},
		// The closed link starts the clock: SDOWN at the deadline.
		{"go-sentinel, crash", time.Second, allGo, ProcessCrash, false,
			[6]time.Duration{time.Second, 20 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{1020 * ms, 140 * ms, 300 * ms, 105 * ms, 40 * ms, time.Second}},
		// Every decision waits for a 52-100 ms timer run (72 ms mean);
		// the promotion for the INFO one second after the ODOWN run.
		{"redis-sentinel, host failure", 30 * time.Second, allRedis, HostFailure, true,
			[6]time.Duration{30536 * ms, 72 * ms, 72 * ms, 964 * ms, 72 * ms, 50 * ms},
			[6]time.Duration{31100 * ms, 1100 * ms, 1100 * ms, 1300 * ms, 200 * ms, time.Second}},
		{"redis-sentinel, crash", time.Second, allRedis, ProcessCrash, true,
			[6]time.Duration{1072 * ms, 72 * ms, 72 * ms, 964 * ms, 72 * ms, 50 * ms},
			[6]time.Duration{1200 * ms, 1100 * ms, 1100 * ms, 1300 * ms, 200 * ms, time.Second}},
		// Below 1 s the PING interval is down-after itself.
		{"go-sentinel, 400 ms", 400 * ms, allGo, HostFailure, false,
			[6]time.Duration{600 * ms, 20 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{800 * ms, 140 * ms, 300 * ms, 105 * ms, 40 * ms, time.Second}},
		// Quorum 3 of 3: the last first unanswered PING, 3/4 of an
		// interval on average.
		{"go-sentinel, quorum 3", 30 * time.Second, Fleet{Go: 3, Quorum: 3}, HostFailure, false,
			[6]time.Duration{30750 * ms, 20 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{31 * time.Second, 140 * ms, 300 * ms, 105 * ms, 40 * ms, time.Second}},
		// Mixed, the go-sentinels make the quorum: as all go-sentinels,
		// but the hold may wait for a redis-sentinel (2 × 1 s at most).
		{"mixed 2+1, led by go-sentinel", time.Second, twoGo, ProcessCrash, false,
			[6]time.Duration{time.Second, 20 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{1020 * ms, 140 * ms, 2300 * ms, 105 * ms, 40 * ms, time.Second}},
		// They do not: the quorum-th SDOWN is a redis-sentinel's, which the
		// go-sentinel learns at its next ask, 100 ms after the first.
		{"mixed 1+2, led by go-sentinel, crash", time.Second, oneGo, ProcessCrash, false,
			[6]time.Duration{1072 * ms, 48 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{1200 * ms, 140 * ms, 2300 * ms, 105 * ms, 40 * ms, time.Second}},
		{"mixed 1+2, led by go-sentinel, host failure", 30 * time.Second, oneGo, HostFailure, false,
			[6]time.Duration{30536 * ms, 70 * ms, 50 * ms, 40 * ms, 20 * ms, 50 * ms},
			[6]time.Duration{31100 * ms, 140 * ms, 2300 * ms, 105 * ms, 40 * ms, time.Second}},
		{"mixed 1+2, led by redis-sentinel", time.Second, oneGo, ProcessCrash, true,
			[6]time.Duration{1072 * ms, 72 * ms, 72 * ms, 964 * ms, 72 * ms, 50 * ms},
			[6]time.Duration{1200 * ms, 1100 * ms, 1100 * ms, 1300 * ms, 200 * ms, time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := EstimateFailover(tc.downAfter, 10*time.Second, tc.fleet, tc.failure)
			c := e.ByGo
			if tc.redisLed {
				c = e.ByRedis
			}
			if c == nil {
				t.Fatalf("no course: %+v", e)
			}
			got := [6]time.Duration{c.Detect, c.ODown, c.Elect, c.Promote, c.Switch, c.Reconnect}
			gotMax := [6]time.Duration{c.DetectMax, c.ODownMax, c.ElectMax, c.PromoteMax, c.SwitchMax, c.ReconnectMax}
			if got != tc.want || gotMax != tc.wantMax {
				t.Errorf("got %v\n max %v\nwant %v\n max %v", got, gotMax, tc.want, tc.wantMax)
			}
			var sum, sumMax time.Duration
			for k := range got {
				sum += got[k]
				sumMax += gotMax[k]
				if got[k] > gotMax[k] {
					t.Errorf("phase %d: expected %v above its longest %v", k, got[k], gotMax[k])
				}
			}
			if c.Expected != sum || c.NoRetry != sumMax {
				t.Errorf("totals %v / %v, phases sum to %v / %v", c.Expected, c.NoRetry, sum, sumMax)
			}
		})
	}
}

// TestEstimateFailover pins the totals: the expected figure weighted by
// who leads, the longest first attempt, the worst case with one retry.
func TestEstimateFailover(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		downAfter, timeout       time.Duration
		fleet                    Fleet
		failure                  Failure
		redisLeads               float64
		expected, noRetry, worst time.Duration
	}{
		// Defaults: 30.5 + 0.02 + 0.05 + 0.04 + 0.02 + 0.05; at most
		// 31 + 0.14 + 0.3 + 0.105 + 0.04 + 1; worst adds 2 × 180 s + 1 s.
		{"defaults, go-sentinel", 30 * time.Second, 180 * time.Second, allGo, HostFailure, 0, 30680 * ms, 32585 * ms, 393585 * ms},
		{"defaults, redis-sentinel", 30 * time.Second, 180 * time.Second, allRedis, HostFailure, 1, 31766 * ms, 35800 * ms, 396800 * ms},
		// A third of the failovers led by the redis-sentinel.
		{"defaults, mixed 2+1", 30 * time.Second, 180 * time.Second, twoGo, HostFailure, 1. / 3, 31042 * ms, 35800 * ms, 396800 * ms},
		{"defaults, mixed 1+2", 30 * time.Second, 180 * time.Second, oneGo, HostFailure, 2. / 3, 31433 * ms, 35800 * ms, 396800 * ms},
		{"tuned, go-sentinel", 5 * time.Second, 60 * time.Second, allGo, HostFailure, 0, 5680 * ms, 7585 * ms, 128585 * ms},
		// `make bench-failover`: down-after 1 s, failover-timeout 10 s,
		// SIGKILL. After a crash the go-sentinels agree before any
		// redis-sentinel: 1 in 6 failovers of a 2+1 fleet is led by the
		// redis-sentinel, 5 in 6 of a 1+2 fleet by one of them.
		{"bench, go-sentinel", time.Second, 10 * time.Second, allGo, ProcessCrash, 0, 1180 * ms, 2605 * ms, 23605 * ms},
		{"bench, redis-sentinel", time.Second, 10 * time.Second, allRedis, ProcessCrash, 1, 2302 * ms, 5900 * ms, 26900 * ms},
		{"bench, mixed 2+1", time.Second, 10 * time.Second, twoGo, ProcessCrash, 1. / 6, 1367 * ms, 5900 * ms, 26900 * ms},
		{"bench, mixed 1+2", time.Second, 10 * time.Second, oneGo, ProcessCrash, 5. / 6, 2132 * ms, 5900 * ms, 26900 * ms},
		// No fleet known: one go-sentinel, quorum 1.
		{"empty fleet", 5 * time.Second, 60 * time.Second, Fleet{}, HostFailure, 0, 5680 * ms, 7385 * ms, 128385 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := EstimateFailover(tc.downAfter, tc.timeout, tc.fleet, tc.failure)
			if e.Expected != tc.expected || e.NoRetry != tc.noRetry || e.Worst != tc.worst {
				t.Errorf("got %v / %v / %v, want %v / %v / %v", e.Expected, e.NoRetry, e.Worst, tc.expected, tc.noRetry, tc.worst)
			}
			if d := e.RedisLeads - tc.redisLeads; d > 1e-9 || d < -1e-9 {
				t.Errorf("redis-sentinel leads %v, want %v", e.RedisLeads, tc.redisLeads)
			}
			if e.Expected > e.NoRetry || e.NoRetry > e.Worst {
				t.Errorf("figures out of order: %+v", e)
			}
			if (e.ByGo == nil) != (tc.fleet.Go == 0 && tc.fleet.Redis > 0) || (e.ByRedis == nil) != (tc.fleet.Redis == 0) {
				t.Errorf("courses: by go %v, by redis %v", e.ByGo, e.ByRedis)
			}
			if e.ByGo != nil && e.ByRedis != nil && (e.Expected < e.ByGo.Expected || e.Expected > e.ByRedis.Expected) {
				t.Errorf("expected %v not between %v and %v", e.Expected, e.ByGo.Expected, e.ByRedis.Expected)
			}
		})
	}
}

// TestEstimateGrowsWithDownAfter checks that every fleet's expected
// figure grows with down-after-milliseconds, which maxDownAfterFor's
// search relies on.
func TestEstimateGrowsWithDownAfter(t *testing.T) {
	for _, fl := range []Fleet{allGo, allRedis, twoGo, oneGo} {
		prev := time.Duration(0)
		for d := 100 * ms; d <= 3*time.Second; d += 50 * ms {
			e := EstimateFailover(d, time.Minute, fl, HostFailure).Expected
			if e <= prev {
				t.Fatalf("%+v: %v at down-after %v, %v before", fl, e, d, prev)
			}
			prev = e
		}
	}
}

// TestMaxDownAfterFor checks that the suggested down-after is the largest
// whose expected failover fits the SLA.
func TestMaxDownAfterFor(t *testing.T) {
	for _, fl := range []Fleet{allGo, allRedis, twoGo} {
		for _, sla := range []time.Duration{2 * time.Second, 3300 * ms, 10 * time.Second, time.Minute} {
			d := maxDownAfterFor(sla, fl)
			if d <= 0 {
				t.Fatalf("%+v, sla %v: no down-after", fl, sla)
			}
			if e := EstimateFailover(d, time.Minute, fl, HostFailure).Expected; e > sla {
				t.Errorf("%+v, sla %v: down-after %v gives %v", fl, sla, d, e)
			}
			if e := EstimateFailover(d+ms, time.Minute, fl, HostFailure).Expected; e <= sla {
				t.Errorf("%+v, sla %v: down-after %v is not the largest (%v still fits)", fl, sla, d, d+ms)
			}
		}
	}
	// go-sentinel needs 0.18 s beyond detection, redis-sentinel 1.3 s.
	if d := maxDownAfterFor(time.Second, allGo); d != 546*ms {
		t.Errorf("1 s SLA: got %v, want 546ms", d)
	}
	if d := maxDownAfterFor(150*ms, allGo); d != 0 {
		t.Errorf("150 ms SLA: got %v, want 0", d)
	}
	if d := maxDownAfterFor(time.Second, allRedis); d != 0 {
		t.Errorf("redis-sentinel, 1 s SLA: got %v, want 0", d)
	}
}

func TestMaxFailoverTimeoutFor(t *testing.T) {
	sla, d := time.Minute, 5*time.Second
	for _, fl := range []Fleet{allGo, allRedis, oneGo} {
		f := maxFailoverTimeoutFor(sla, d, fl)
		if e := EstimateFailover(d, f, fl, HostFailure).Worst; e > sla {
			t.Errorf("%+v: failover-timeout %v gives worst %v > %v", fl, f, e, sla)
		}
		if e := EstimateFailover(d, f+ms, fl, HostFailure).Worst; e <= sla {
			t.Errorf("%+v: failover-timeout %v is not the largest", fl, f)
		}
		if f := maxFailoverTimeoutFor(5*time.Second, d, fl); f != 0 {
			t.Errorf("%+v, 5 s SLA: got %v", fl, f)
		}
	}
}
