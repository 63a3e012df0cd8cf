package lint

import (
	"testing"
	"time"
)

func TestEstimateFailover(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		downAfter, timeout       time.Duration
		expected, noRetry, worst time.Duration
	}{
		// Defaults: 30 s + 0.5 (PING) + 0.5 (ask) + 0.1 (election) +
		// 0.7 (promotion) + 0.5 (clients); at most 30 + 1 + 1 + 1 + 1.2 + 1;
		// worst adds 2 × 180 s + 1 s.
		{"defaults", 30 * time.Second, 180 * time.Second, 32300 * time.Millisecond, 35200 * time.Millisecond, 396200 * time.Millisecond},
		{"tuned", 5 * time.Second, 60 * time.Second, 7300 * time.Millisecond, 10200 * time.Millisecond, 131200 * time.Millisecond},
		// Below 1 s the PING interval is down-after itself.
		{"fast", 400 * time.Millisecond, 3 * time.Second, 2400 * time.Millisecond, 5000 * time.Millisecond, 12000 * time.Millisecond},
	} {
		e := EstimateFailover(tc.downAfter, tc.timeout)
		if e.Expected != tc.expected || e.NoRetry != tc.noRetry || e.Worst != tc.worst {
			t.Errorf("%s: got %v / %v / %v, want %v / %v / %v", tc.name, e.Expected, e.NoRetry, e.Worst, tc.expected, tc.noRetry, tc.worst)
		}
		if e.Expected > e.NoRetry || e.NoRetry > e.Worst {
			t.Errorf("%s: figures out of order: %+v", tc.name, e)
		}
	}
}

// TestMaxDownAfterFor checks that the suggested down-after is the largest
// whose expected failover fits the SLA.
func TestMaxDownAfterFor(t *testing.T) {
	for _, sla := range []time.Duration{2 * time.Second, 3 * time.Second, 3300 * time.Millisecond, 10 * time.Second, time.Minute} {
		d := maxDownAfterFor(sla)
		if d <= 0 {
			t.Fatalf("sla %v: no down-after", sla)
		}
		if e := EstimateFailover(d, time.Minute).Expected; e > sla {
			t.Errorf("sla %v: down-after %v gives %v", sla, d, e)
		}
		if e := EstimateFailover(d+time.Millisecond, time.Minute).Expected; e <= sla {
			t.Errorf("sla %v: down-after %v is not the largest (%v still fits)", sla, d, d+time.Millisecond)
		}
	}
	if d := maxDownAfterFor(time.Second); d != 0 {
		t.Errorf("1 s SLA: got %v, want 0", d)
	}
}

func TestMaxFailoverTimeoutFor(t *testing.T) {
	sla, d := time.Minute, 5*time.Second
	f := maxFailoverTimeoutFor(sla, d)
	if e := EstimateFailover(d, f).Worst; e > sla {
		t.Errorf("failover-timeout %v gives worst %v > %v", f, e, sla)
	}
	if e := EstimateFailover(d, f+time.Millisecond).Worst; e <= sla {
		t.Errorf("failover-timeout %v is not the largest", f)
	}
	if f := maxFailoverTimeoutFor(5*time.Second, d); f != 0 {
		t.Errorf("5 s SLA: got %v", f)
	}
}
