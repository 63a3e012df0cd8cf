package failover

import (
	"testing"
	"time"
)

func TestStateNames(t *testing.T) {
	want := []string{"none", "wait_start", "select_slave", "send_slaveof_noone", "wait_promotion", "reconf_slaves", "update_config"}
	for s := None; s <= UpdateConfig; s++ {
		if s.String() != want[s] {
			t.Errorf("%d: %q, want %q", s, s.String(), want[s])
		}
	}
	if State(99).String() != "unknown" {
		t.Errorf("out of range: %q", State(99).String())
	}
	for s := None; s <= UpdateConfig; s++ {
		if s.Promoted() != (s >= ReconfSlaves) {
			t.Errorf("%s: Promoted %v", s, s.Promoted())
		}
	}
}

func TestDeadline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	started, entered := t0, t0+3000
	long := Timeouts{Failover: 180000, Election: 10000}
	short := Timeouts{Failover: 4000, Election: 10000}
	for _, tt := range []struct {
		s    State
		t    Timeouts
		want int64 // ms from t0
		ok   bool
	}{
		{None, long, 0, false},
		{WaitStart, long, 10000, true}, // the election timeout
		{WaitStart, short, 4000, true}, // failover-timeout when shorter
		{SelectSlave, long, 0, false},  // decided in one step
		{SendSlaveofNoone, long, 183000, true},
		{WaitPromotion, short, 7000, true},
		{ReconfSlaves, long, 183000, true},
		{UpdateConfig, long, 0, false},
		{SendSlaveofNoone, Timeouts{Failover: 10000, Coordinated: true}, 12000, true}, // a second earlier
		{WaitPromotion, Timeouts{Failover: 10000, Coordinated: true}, 13000, true},
	} {
		d, ok := Deadline(tt.s, started, entered, tt.t)
		if ok != tt.ok || (ok && d != t0+tt.want) {
			t.Errorf("%s: %v %v, want %v %v", tt.s, d-t0, ok, tt.want, tt.ok)
		}
		if !ok {
			if Expired(tt.s, started, entered, t0+3600000, tt.t) {
				t.Errorf("%s expired without a deadline", tt.s)
			}
			continue
		}
		if Expired(tt.s, started, entered, t0+tt.want, tt.t) {
			t.Errorf("%s expired at its deadline", tt.s)
		}
		if !Expired(tt.s, started, entered, t0+tt.want+1, tt.t) {
			t.Errorf("%s not expired past its deadline", tt.s)
		}
	}
}
