package monitor

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// selectFixture is a core monitoring "m" with two replicas and two other
// Sentinels, all connected and fresh at t0+10s, the master answering.
func selectFixture(t *testing.T, quorum int) (*Sentinel, *master, time.Time) {
	t.Helper()
	spec := settings.NewMasterSpec("m", settings.Addr{Host: "10.0.0.1", Port: 6379}, quorum)
	spec.KnownReplicas = []settings.Addr{{Host: "10.0.0.2", Port: 6379}, {Host: "10.0.0.3", Port: 6379}}
	spec.KnownSentinels = []settings.SentinelSpec{
		{Addr: settings.Addr{Host: "10.0.1.1", Port: 26379}, RunID: strings.Repeat("a", 40)},
		{Addr: settings.Addr{Host: "10.0.1.2", Port: 26379}, RunID: strings.Repeat("b", 40)},
	}
	s := New(settings.Persisted{MyID: strings.Repeat("c", 40), Masters: []settings.MasterSpec{spec}}, Options{}, rand.New(rand.NewSource(1)), t0)
	s.Ready()
	now := t0.Add(10 * time.Second)
	m := s.masters["m"]
	for _, i := range append([]*instance{&m.instance}, append(m.sortedReplicas(), m.sortedSentinels()...)...) {
		i.link.cc, i.link.pc, i.link.ccUp, i.link.pcUp = 1, 2, true, true
		i.link.actPingTime = 0
		i.link.lastAvailTime = ms(now) - 100
		i.infoRefresh = ms(now) - 100
		i.lastMasterDownReplyTime = ms(now) - 100
		i.answered = i.kind == object.Sentinel // each peer answered 100 ms ago
	}
	for k, r := range m.sortedReplicas() {
		r.priority = 100
		r.runID = strings.Repeat(string(rune('d'+k)), 40)
	}
	return s, m, now
}

func sdown(m *master, now time.Time, d time.Duration) {
	m.flags |= object.SDown
	m.sdownSince = ms(now) - d.Milliseconds()
	m.link.actPingTime = m.sdownSince - m.downAfter
}

func TestExplainUnknownMaster(t *testing.T) {
	s, _, now := selectFixture(t, 2)
	if _, err := s.Explain(now, "nope"); !errors.Is(err, view.ErrNoSuchMaster) {
		t.Fatalf("err = %v", err)
	}
}

// TestReplicaFollowingAReplicaIsNotPromoted: both replicas report that
// they follow the other (a failover this Sentinel has not heard of
// pointed them there), so neither may be promoted and EXPLAIN says why;
// once one follows the master again it is selected.
func TestReplicaFollowingAReplicaIsNotPromoted(t *testing.T) {
	s, m, now := selectFixture(t, 2)
	sdown(m, now, time.Second)
	m.flags |= object.ODown
	rs := m.sortedReplicas()
	for k, r := range rs {
		o := rs[1-k]
		r.roleReported, r.slaveMasterHost, r.slaveMasterPort = inforeply.RoleSlave, o.addr.Host, o.addr.Port
	}
	e, err := s.Explain(now, "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Replicas {
		if r.Eligible || r.Rule != string(failover.ExcludedFollowsReplica) {
			t.Errorf("replica %+v, want rule %s", r, failover.ExcludedFollowsReplica)
		}
	}
	if r := m.selectReplica(ms(now), &s.timing); r != nil {
		t.Fatalf("selected %s, which follows another replica", r.name)
	}
	rs[1].slaveMasterHost, rs[1].slaveMasterPort = m.addr.Host, m.addr.Port
	if r := m.selectReplica(ms(now), &s.timing); r != rs[1] {
		t.Fatalf("selected %v, want %s (it follows the master)", r, rs[1].name)
	}
}
