package monitor

import (
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// masterField returns the value of field k in SENTINEL MASTER m's reply,
// and whether the reply has it.
func masterField(t *testing.T, s *Sentinel, k string) (string, bool) {
	t.Helper()
	kv, err := s.View().Master(t0, "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range kv {
		if f.Key == k {
			return f.Value, true
		}
	}
	return "", false
}

// TestSetForgetReplicaAfter: SENTINEL SET takes forget-replica-after in
// ms (0 turns it off), refuses a negative or non-numeric value without
// changing anything (the options before it in the same SET included),
// and SENTINEL MASTER shows the field only when it is not 0, so that the
// reply is Redis's own for a master that does not use it.
func TestSetForgetReplicaAfter(t *testing.T) {
	s := masterCore(t, 2)
	if _, ok := masterField(t, s, settings.OptionForgetReplicaAfter); ok {
		t.Fatal("SENTINEL MASTER shows forget-replica-after while it is 0")
	}
	for _, bad := range []string{"-1", "abc", "1.5", ""} {
		err := command(s, msg.Set{Name: "m", Args: []string{"quorum", "5", settings.OptionForgetReplicaAfter, bad}})
		want := "Invalid argument '" + bad + "' for SENTINEL SET 'forget-replica-after'"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("SET forget-replica-after %q: err = %v, want %q", bad, err, want)
		}
		if out := s.Ready(); len(out.Actions) != 0 || len(out.Logs) != 0 {
			t.Fatalf("a refused SET acted: %+v", out)
		}
		if got := s.Snapshot().Masters[0]; got.Quorum != 2 || got.ForgetReplicaAfterMs != 0 {
			t.Fatalf("a refused SET changed the master: quorum %d, forget-replica-after %v", got.Quorum, got.ForgetReplicaAfterMs)
		}
	}
	if err := command(s, msg.Set{Name: "m", Args: []string{"FORGET-REPLICA-AFTER", "5000"}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Snapshot().Masters[0].ForgetReplicaAfterMs; got != 5000 {
		t.Fatalf("forget-replica-after = %v, want 5000", got)
	}
	if v, ok := masterField(t, s, settings.OptionForgetReplicaAfter); !ok || v != "5000" {
		t.Fatalf("SENTINEL MASTER forget-replica-after = %q (shown %v), want 5000", v, ok)
	}
	if err := command(s, msg.Set{Name: "m", Args: []string{settings.OptionForgetReplicaAfter, "0"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := masterField(t, s, settings.OptionForgetReplicaAfter); ok {
		t.Fatal("SENTINEL MASTER shows forget-replica-after after it was set to 0")
	}
}

// TestForgetReplicaGuards: from a state in which the replica is
// forgotten (it has not answered for longer than forget-replica-after
// and the master's fresh INFO, asked after it stopped answering, does
// not list it), each guard alone keeps it.
func TestForgetReplicaGuards(t *testing.T) {
	const after = 5000
	start := t0.UnixMilli()
	now := start + 60000
	tests := []struct {
		name   string
		change func(s *Sentinel, m *master, r *instance)
		forget bool
	}{
		{"forgotten", func(*Sentinel, *master, *instance) {}, true},
		{"default 0", func(_ *Sentinel, m *master, _ *instance) { m.settings.ForgetReplicaAfterMs = 0 }, false},
		{"listed", func(_ *Sentinel, m *master, _ *instance) {
			m.info = "# Replication\r\nrole:master\r\nslave0:ip=10.0.0.3,port=6379,state=online,offset=1,lag=0\r\n"
			m.infoRefresh++
		}, false},
		{"listed with another spelling", func(_ *Sentinel, m *master, _ *instance) {
			m.info = "# Replication\r\nrole:master\r\nslave0:ip=::ffff:10.0.0.3,port=6379,state=online,offset=1,lag=0\r\n"
			m.infoRefresh++
		}, false},
		{"answered recently", func(_ *Sentinel, _ *master, r *instance) { r.link.lastAvailTime = now - after }, false},
		{"answering", func(_ *Sentinel, _ *master, r *instance) { r.link.actPingTime = 0 }, false},
		{"INFO asked before it stopped answering", func(_ *Sentinel, m *master, r *instance) {
			m.infoSentAt = r.link.actPingTime
		}, false},
		{"INFO send time unknown", func(_ *Sentinel, m *master, _ *instance) { m.infoSentAt = 0 }, false},
		{"INFO stale", func(s *Sentinel, m *master, _ *instance) {
			m.infoRefresh = now - 2*s.timing.InfoPeriodMs
		}, false},
		{"master SDOWN", func(_ *Sentinel, m *master, _ *instance) { m.flags |= object.SDown }, false},
		{"master ODOWN", func(_ *Sentinel, m *master, _ *instance) { m.flags |= object.ODown }, false},
		{"master reports slave", func(_ *Sentinel, m *master, _ *instance) { m.roleReported = inforeply.RoleSlave }, false},
		{"failover in progress", func(_ *Sentinel, m *master, _ *instance) { m.flags |= object.FailoverInProgress }, false},
		{"promoted", func(_ *Sentinel, m *master, r *instance) { r.flags |= object.Promoted; m.promoted = r }, false},
		{"tilt", func(s *Sentinel, _ *master, _ *instance) { s.tilt = true }, false},
		// A replica this Sentinel never saw as one may be an old master
		// (added at a failover, or loaded from the config file) that must
		// be demoted when it comes back; one that last reported the master
		// role may be one too; one that followed another server must be
		// found to be pointed back at the master.
		{"never answered INFO nor listed", func(_ *Sentinel, _ *master, r *instance) { r.infoRefresh = 0 }, false},
		{"never answered INFO, listed by the master", func(_ *Sentinel, _ *master, r *instance) {
			r.infoRefresh, r.listedByMaster = 0, true
		}, true},
		{"listed, last reported master", func(_ *Sentinel, _ *master, r *instance) {
			r.listedByMaster, r.roleReported = true, inforeply.RoleMaster
		}, false},
		{"last reported master", func(_ *Sentinel, _ *master, r *instance) { r.roleReported = inforeply.RoleMaster }, false},
		{"followed another master", func(_ *Sentinel, _ *master, r *instance) { r.slaveMasterHost = "10.0.0.9" }, false},
		{"followed another port", func(_ *Sentinel, _ *master, r *instance) { r.slaveMasterPort = 6380 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := masterCore(t, 2)
			m := s.masters["m"]
			m.settings.ForgetReplicaAfterMs = after
			r := s.createReplica(m, settings.Addr{Host: "10.0.0.3", Port: 6379}, start)
			r.link.actPingTime = start + 1000
			r.link.lastAvailTime = start
			r.infoRefresh = start + 500
			r.roleReported = inforeply.RoleSlave
			r.slaveMasterHost, r.slaveMasterPort = "127.0.0.1", 6379
			m.roleReported = inforeply.RoleMaster
			m.info = "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n"
			m.infoRefresh = now - 1000
			m.infoSentAt = now - 1100
			s.Ready()
			tt.change(s, m, r)
			s.forgetReplicas(m, now)
			out := s.Ready()
			_, kept := m.replicas[r.name]
			if kept == tt.forget {
				t.Fatalf("kept = %v, want %v", kept, !tt.forget)
			}
			var types []event.Type
			persisted := false
			for _, e := range out.Events() {
				types = append(types, e.Type)
			}
			for _, a := range out.Actions {
				_, ok := a.(msg.PersistConfig)
				persisted = persisted || ok
			}
			if tt.forget && (len(types) != 1 || types[0] != event.ReplicaForgotten || !persisted) {
				t.Fatalf("forgotten with events %v, persisted %v; want one %s and a persist", types, persisted, event.ReplicaForgotten)
			}
			if !tt.forget && (len(types) != 0 || persisted) {
				t.Fatalf("kept, but events %v, persisted %v", types, persisted)
			}
		})
	}
}

// TestForgetReplicaDiscoversChained: with forget-replica-after set, the
// replicas a replica lists are discovered (a forgotten replica that
// comes back following another replica is found there); the master's own
// address is never taken for one of its replicas; without the option,
// as in Redis, only the master's INFO is read.
func TestForgetReplicaDiscoversChained(t *testing.T) {
	const info = "# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\n" +
		"slave0:ip=10.0.0.4,port=6379,state=online,offset=1,lag=0\r\n" +
		"slave1:ip=127.0.0.1,port=6379,state=online,offset=1,lag=0\r\n"
	for _, on := range []bool{false, true} {
		s := masterCore(t, 2)
		m := s.masters["m"]
		if on {
			m.settings.ForgetReplicaAfterMs = 5000
		}
		r := s.createReplica(m, settings.Addr{Host: "10.0.0.3", Port: 6379}, t0.UnixMilli())
		s.refreshFromInfo(r, info, t0.UnixMilli())
		var names []string
		for _, x := range m.sortedReplicas() {
			names = append(names, x.name)
		}
		want := "10.0.0.3:6379"
		if on {
			want = "10.0.0.3:6379 10.0.0.4:6379"
		}
		if got := strings.Join(names, " "); got != want {
			t.Fatalf("forget-replica-after on %v: replicas %s, want %s", on, got, want)
		}
		// Found behind a replica, it was not listed by the master: it
		// is not taken for one the master had (see forgettable).
		if c := m.replicas["10.0.0.4:6379"]; c != nil && c.listedByMaster {
			t.Fatal("a replica found behind another counts as listed by the master")
		}
	}
}
