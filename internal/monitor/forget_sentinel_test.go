package monitor

import (
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// TestVotersFieldsInMaster: SENTINEL MASTER shows voters and
// forget-sentinel-after only when they are set, so that a 7.0 client sees
// Redis's reply otherwise; SET sets them and the snapshot carries them.
func TestVotersFieldsInMaster(t *testing.T) {
	s := masterCore(t, 2)
	kv, err := s.View().Master(t0, "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range kv {
		if f.Key == settings.OptionVoters || f.Key == settings.OptionForgetSentinelAfter {
			t.Fatalf("SENTINEL MASTER shows %s=%s while it is not set", f.Key, f.Value)
		}
	}
	if err := command(s, msg.Set{Name: "m", Args: []string{"voters", "5", "forget-sentinel-after", "3000"}}); err != nil {
		t.Fatal(err)
	}
	kv, _ = s.View().Master(t0, "m")
	got := map[string]string{}
	for _, f := range kv {
		got[f.Key] = f.Value
	}
	if got[settings.OptionVoters] != "5" || got[settings.OptionForgetSentinelAfter] != "3000" {
		t.Fatalf("SENTINEL MASTER after SET: voters=%q forget-sentinel-after=%q", got[settings.OptionVoters], got[settings.OptionForgetSentinelAfter])
	}
	if m := s.Snapshot().Masters[0]; m.Voters != 5 || m.ForgetSentinelAfterMs != 3000 {
		t.Fatalf("snapshot: voters %d, forget-sentinel-after %v", m.Voters, m.ForgetSentinelAfterMs)
	}
	if len(kv) > view.InstanceMapFields {
		t.Fatalf("%d fields, more than view.InstanceMapFields (%d)", len(kv), view.InstanceMapFields)
	}
}

// TestCheckQuorumWithFloor: CKQUORUM counts the majority over the voters
// floor as an election does.
func TestCheckQuorumWithFloor(t *testing.T) {
	s := masterCore(t, 1)
	if _, err := s.View().CheckQuorum("m"); err != nil {
		t.Fatalf("alone with quorum 1 and no floor: %v", err)
	}
	if err := command(s, msg.Set{Name: "m", Args: []string{"voters", "3"}}); err != nil {
		t.Fatal(err)
	}
	ck, err := s.View().CheckQuorum("m")
	if err == nil || !ck.NoMajority || ck.NoQuorum {
		t.Fatalf("alone with voters 3: %+v, %v; want no majority", ck, err)
	}
}
