package failover

import (
	"testing"
)

func TestServerFailing(t *testing.T) {
	for state, want := range map[string]bool{
		"":                     false, // never reported: Redis before 6.2
		"no-failover":          false,
		"waiting-for-sync":     true,
		"failover-in-progress": true,
		"unknown":              true, // Redis's name for a state it does not know
	} {
		if got := ServerFailing(state); got != want {
			t.Errorf("ServerFailing(%q) = %v, want %v", state, got, want)
		}
		if got := AbortBeforeSlaveOf(state); got != want {
			t.Errorf("AbortBeforeSlaveOf(%q) = %v, want %v", state, got, want)
		}
	}
}

func TestStuckInServerFailover(t *testing.T) {
	const timeout = 10000
	stuck := StuckReplica{State: "failover-in-progress", For: timeout + 1, MasterSane: true}
	for _, tt := range []struct {
		name string
		edit func(*StuckReplica)
		want bool
	}{
		{"stuck past the failover-timeout", func(*StuckReplica) {}, true},
		{"waiting-for-sync counts too", func(r *StuckReplica) { r.State = "waiting-for-sync" }, true},
		{"exactly the failover-timeout is not past it", func(r *StuckReplica) { r.For = timeout }, false},
		{"a FAILOVER that may still work", func(r *StuckReplica) { r.For = 1000 }, false},
		{"no FAILOVER", func(r *StuckReplica) { r.State = "no-failover" }, false},
		{"never reported", func(r *StuckReplica) { r.State = "" }, false},
		{"master not sane", func(r *StuckReplica) { r.MasterSane = false }, false},
		{"replica down within the failover-timeout", func(r *StuckReplica) { r.DownRecently = true }, false},
	} {
		r := stuck
		tt.edit(&r)
		if got := StuckInServerFailover(r, timeout); got != tt.want {
			t.Errorf("%s: StuckInServerFailover(%+v) = %v, want %v", tt.name, r, got, tt.want)
		}
	}
}
