package settings

import (
	"errors"
	"math"
	"testing"
)

// TestNumberRules: each numeric option takes [Min, MaxInt32], the range
// the config file reads back, and stores it in its field; a refused value
// leaves the settings as they were.
func TestNumberRules(t *testing.T) {
	for _, tc := range []struct {
		option string
		v      int64
		ok     bool
		get    func(Master) any
		want   any
	}{
		{OptionDownAfter, 5000, true, func(m Master) any { return m.DownAfterMs }, int64(5000)},
		{OptionDownAfter, 0, false, nil, nil},
		{OptionDownAfter, math.MaxInt32, true, func(m Master) any { return m.DownAfterMs }, int64(math.MaxInt32)},
		{OptionDownAfter, math.MaxInt32 + 1, false, nil, nil},
		{OptionFailoverTimeout, math.MaxInt64, false, nil, nil},
		{OptionQuorum, 1, true, func(m Master) any { return m.Quorum }, 1},
		{OptionQuorum, 0, false, nil, nil},
		{OptionParallelSyncs, 0, false, nil, nil},
		{OptionRebootDownAfterAlias, 0, true, func(m Master) any { return m.RebootDownAfterMs }, int64(0)},
		{OptionProxyHold, -1, false, nil, nil},
		{OptionProxyFenceAfter, 1500, true, func(m Master) any { return m.ProxyFenceAfterMs }, int64(1500)},
		{OptionVoters, 5, true, func(m Master) any { return m.Voters }, 5},
		{OptionForgetReplicaAfter, 0, true, func(m Master) any { return m.ForgetReplicaAfterMs }, int64(0)},
		{OptionForgetSentinelAfter, -5, false, nil, nil},
	} {
		r, ok := Number(tc.option)
		if !ok {
			t.Fatalf("%s: no rule", tc.option)
		}
		m := NewMasterSpec("m", Addr{Host: "127.0.0.1", Port: 6379}, 2).Master
		before := m
		err := r.Set(&m, tc.v)
		if !tc.ok {
			if !errors.Is(err, ErrOutOfRange) {
				t.Errorf("%s %d: got %v, want ErrOutOfRange", tc.option, tc.v, err)
			}
			if m.DownAfterMs != before.DownAfterMs || m.Quorum != before.Quorum || m.ParallelSyncs != before.ParallelSyncs {
				t.Errorf("%s %d: a refused value changed the settings", tc.option, tc.v)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %d: %v", tc.option, tc.v, err)
			continue
		}
		if got := tc.get(m); got != tc.want {
			t.Errorf("%s %d: stored %v, want %v", tc.option, tc.v, got, tc.want)
		}
	}
	if _, ok := Number(OptionAuthPass); ok {
		t.Error("auth-pass has a number rule")
	}
}

// TestFileAnyInt: the config file takes any integer for parallel-syncs, as
// Redis's does, and bounds the others as SENTINEL SET does.
func TestFileAnyInt(t *testing.T) {
	var m Master
	r, _ := Number(OptionParallelSyncs)
	if err := r.SetFromFile(&m, -3); err != nil || m.ParallelSyncs != -3 {
		t.Errorf("parallel-syncs -3 from the file: %v, stored %d", err, m.ParallelSyncs)
	}
	r, _ = Number(OptionDownAfter)
	if err := r.SetFromFile(&m, 0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("down-after 0 from the file: %v", err)
	}
}

// TestYesNoRules: "no" sets the flag, "yes" clears it, in any case;
// anything else is ErrNotYesNo.
func TestYesNoRules(t *testing.T) {
	var m Master
	r, ok := YesNo(OptionProxyFencing)
	if !ok {
		t.Fatal("no rule for proxy-fencing")
	}
	if err := r.Set(&m, "No"); err != nil || !m.ProxyNoFencing {
		t.Errorf("No: %v %v", err, m.ProxyNoFencing)
	}
	if err := r.Set(&m, "YES"); err != nil || m.ProxyNoFencing {
		t.Errorf("YES: %v %v", err, m.ProxyNoFencing)
	}
	if err := r.Set(&m, "1"); !errors.Is(err, ErrNotYesNo) {
		t.Errorf("1: %v", err)
	}
	r, _ = YesNo(OptionProxyProtectedMode)
	if err := r.Set(&m, "no"); err != nil || !m.ProxyNoProtectedMode {
		t.Errorf("protected mode no: %v %v", err, m.ProxyNoProtectedMode)
	}
}
