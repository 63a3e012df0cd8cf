package failover

import "testing"

// TestRetryAt: two failover-timeouts after the previous start.
func TestRetryAt(t *testing.T) {
	if got := RetryAt(1000, 180000); got != 361000 {
		t.Errorf("got %d", got)
	}
	if got := RetryAt(0, 10); got != 20 {
		t.Errorf("never started: got %d", got)
	}
}
