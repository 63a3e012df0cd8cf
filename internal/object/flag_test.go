package object

import "testing"

func TestFlagString(t *testing.T) {
	tests := []struct {
		k            Kind
		f            Flag
		disc, reboot bool
		want         string
	}{
		{Master, 0, false, false, "master"},
		{Master, SDown | ODown | FailoverInProgress, true, false, "s_down,o_down,master,disconnected,failover_in_progress"},
		{Replica, Promoted | MasterReboot, false, false, "slave,promoted"},
		{Replica, Promoted | MasterReboot, false, true, "slave,promoted,master_reboot"},
		{Sentinel, MasterDown | SDown, false, false, "s_down,sentinel,master_down"},
	}
	for _, tt := range tests {
		if got := FlagString(tt.k, tt.f, tt.disc, tt.reboot); got != tt.want {
			t.Errorf("FlagString(%v, %b, %v, %v) = %q, want %q", tt.k, tt.f, tt.disc, tt.reboot, got, tt.want)
		}
	}
}

func TestDisconnected(t *testing.T) {
	if !Disconnected(Master, true, false) || Disconnected(Sentinel, true, false) || !Disconnected(Sentinel, false, true) {
		t.Fatal("a master needs both connections, a Sentinel the command one")
	}
}

func TestElectionPeer(t *testing.T) {
	p := ElectionPeer("id", SDown|MasterDown, true, "l", 3)
	if p.RunID != "id" || !p.SDown || p.ODown || !p.ReportsDown || !p.LinkUp || p.Leader != "l" || p.LeaderEpoch != 3 {
		t.Fatalf("ElectionPeer = %+v", p)
	}
}
