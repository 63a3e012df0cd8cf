package monitor

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// explainFixture is a core monitoring "m" with two replicas and two other
// Sentinels, all connected and fresh at t0+10s, the master answering.
func explainFixture(t *testing.T, quorum int) (*Sentinel, *master, time.Time) {
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
		i.answered = i.kind == kindSentinel // each peer answered 100 ms ago
	}
	for k, r := range m.sortedReplicas() {
		r.priority = 100
		r.runID = strings.Repeat(string(rune('d'+k)), 40)
	}
	return s, m, now
}

func explain(t *testing.T, s *Sentinel, now time.Time) Explanation {
	t.Helper()
	e, err := s.Explain(now, "m")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hasWhy fails unless one of the reasons contains every fragment.
func hasWhy(t *testing.T, e Explanation, fragments ...string) {
	t.Helper()
	for _, y := range e.Why {
		all := true
		for _, f := range fragments {
			all = all && strings.Contains(y, f)
		}
		if all {
			return
		}
	}
	t.Errorf("no reason contains %q; reasons:\n  %s\ntext:\n%s", fragments, strings.Join(e.Why, "\n  "), e.Text())
}

func sdown(m *master, now time.Time, d time.Duration) {
	m.flags |= flagSDown
	m.sdownSince = ms(now) - d.Milliseconds()
	m.link.actPingTime = m.sdownSince - m.downAfter
}

func TestExplainUnknownMaster(t *testing.T) {
	s, _, now := explainFixture(t, 2)
	if _, err := s.Explain(now, "nope"); !errors.Is(err, ErrNoSuchMaster) {
		t.Fatalf("err = %v", err)
	}
}

func TestExplainHealthy(t *testing.T) {
	s, _, now := explainFixture(t, 2)
	e := explain(t, s, now)
	if e.Stage != StageOK {
		t.Fatalf("stage %s", e.Stage)
	}
	hasWhy(t, e, "answers PING")
	if !strings.Contains(e.Text(), "would be promoted") {
		t.Errorf("text:\n%s", e.Text())
	}
}

func TestExplainNotDownYet(t *testing.T) {
	s, m, now := explainFixture(t, 2)
	m.link.actPingTime = ms(now) - 4000 // down-after is 30 s
	hasWhy(t, explain(t, s, now), "not answered for 4.0s", "not subjectively down yet")
}

func TestExplainNoQuorum(t *testing.T) {
	s, m, now := explainFixture(t, 3)
	sdown(m, now, time.Second)
	ss := m.sortedSentinels()
	ss[0].flags |= flagMasterDown
	ss[1].link.ccUp = false
	e := explain(t, s, now)
	if e.Stage != StageSDown || e.Agreement.DownReports != 2 {
		t.Fatalf("stage %s, %d down reports", e.Stage, e.Agreement.DownReports)
	}
	hasWhy(t, e, "only 2 of the 3 Sentinels needed (quorum)")
	hasWhy(t, e, "bbbbbbbb", "no live connection")
}

func TestExplainSentinelSaysNotDown(t *testing.T) {
	s, m, now := explainFixture(t, 2)
	sdown(m, now, time.Second)
	e := explain(t, s, now)
	hasWhy(t, e, "aaaaaaaa", "not down")
}

func TestExplainQuorumAboveSentinels(t *testing.T) {
	s, m, now := explainFixture(t, 5)
	sdown(m, now, time.Second)
	hasWhy(t, explain(t, s, now), "quorum (5) is larger than the number of Sentinels", "never be reached")
}

func TestExplainNoMajority(t *testing.T) {
	s, m, now := explainFixture(t, 1)
	sdown(m, now, time.Second)
	m.flags |= flagODown
	m.odownSince = ms(now) - 500
	for _, si := range m.sortedSentinels() {
		si.link.ccUp = false
	}
	e := explain(t, s, now)
	if e.Stage != StageODown {
		t.Fatalf("stage %s", e.Stage)
	}
	hasWhy(t, e, "only 1 of 3 Sentinels can vote", "majority of 2")
}

func TestExplainWaitingForVotes(t *testing.T) {
	s, m, now := explainFixture(t, 2)
	sdown(m, now, time.Second)
	m.flags |= flagODown
	s.startFailover(m, ms(now))
	s.Ready()
	e := explain(t, s, now)
	if e.Stage != StageFailover || e.Failover.State != "wait_start" {
		t.Fatalf("stage %s state %s", e.Stage, e.Failover.State)
	}
	hasWhy(t, e, "waiting to be elected leader of epoch 1", "2 needed")
	if e.Current == nil || e.Current.Phases[len(e.Current.Phases)-1].Phase != PhaseStart {
		t.Errorf("current timeline %+v", e.Current)
	}
}

func TestExplainRetryBackoff(t *testing.T) {
	s, m, now := explainFixture(t, 2)
	sdown(m, now, 20*time.Second)
	m.flags |= flagODown
	m.settings.FailoverTimeout = msDuration(60000)
	m.failoverStartTime = ms(now) - 10000 // a failover started 10 s ago and was given up
	e := explain(t, s, now)
	if e.Failover.NextAttemptMs != 110000 {
		t.Fatalf("next attempt in %d ms", e.Failover.NextAttemptMs)
	}
	hasWhy(t, e, "next may start in 110.0s", "2 × failover-timeout")

	m.leader, m.leaderEpoch, s.currentEpoch = strings.Repeat("a", 40), 3, 3
	hasWhy(t, explain(t, s, now), "voted for aaaaaaaa as leader in epoch 3")
}

func TestExplainTilt(t *testing.T) {
	s, _, now := explainFixture(t, 2)
	s.tilt, s.tiltStart = true, ms(now)-5000
	e := explain(t, s, now)
	if !e.Tilt.On || e.Tilt.EndsMs != 25000 {
		t.Fatalf("tilt %+v", e.Tilt)
	}
	hasWhy(t, e, "TILT", "another 25.0s")
}

// TestExplainReplicaExclusions makes each replica exclusion rule the
// reason no replica can be promoted, one at a time.
func TestExplainReplicaExclusions(t *testing.T) {
	for _, tc := range []struct {
		rule failover.Exclusion
		make func(r *instance, now int64)
	}{
		{failover.ExcludedDown, func(r *instance, now int64) { r.flags |= flagSDown }},
		{failover.ExcludedLinkDown, func(r *instance, now int64) { r.link.pcUp = false }},
		{failover.ExcludedStalePing, func(r *instance, now int64) { r.link.lastAvailTime = now - 6000 }},
		{failover.ExcludedPriority0, func(r *instance, now int64) { r.priority = 0 }},
		{failover.ExcludedStaleInfo, func(r *instance, now int64) { r.infoRefresh = now - 6000 }},
		{failover.ExcludedMasterLink, func(r *instance, now int64) { r.masterLinkDownTime = 10*30000 + 2000 }},
	} {
		t.Run(string(tc.rule), func(t *testing.T) {
			s, m, now := explainFixture(t, 2)
			sdown(m, now, time.Second)
			m.flags |= flagODown
			for _, r := range m.sortedReplicas() {
				tc.make(r, ms(now))
			}
			e := explain(t, s, now)
			for _, r := range e.Replicas {
				if r.Eligible || r.Rule != string(tc.rule) || r.Reason == "" {
					t.Errorf("replica %+v, want rule %s", r, tc.rule)
				}
			}
			hasWhy(t, e, "no replica can be promoted")
			hasWhy(t, e, "replica 10.0.0.2:6379", string(tc.rule))
		})
	}
}

// TestReplicaFollowingAReplicaIsNotPromoted: both replicas report that
// they follow the other (a failover this Sentinel has not heard of
// pointed them there), so neither may be promoted and EXPLAIN says why;
// once one follows the master again it is selected.
func TestReplicaFollowingAReplicaIsNotPromoted(t *testing.T) {
	s, m, now := explainFixture(t, 2)
	sdown(m, now, time.Second)
	m.flags |= flagODown
	rs := m.sortedReplicas()
	for k, r := range rs {
		o := rs[1-k]
		r.roleReported, r.slaveMasterHost, r.slaveMasterPort = inforeply.RoleSlave, o.addr.Host, o.addr.Port
	}
	e := explain(t, s, now)
	for _, r := range e.Replicas {
		if r.Eligible || r.Rule != string(failover.ExcludedFollowsReplica) {
			t.Errorf("replica %+v, want rule %s", r, failover.ExcludedFollowsReplica)
		}
	}
	if r := s.selectReplica(m, ms(now)); r != nil {
		t.Fatalf("selected %s, which follows another replica", r.name)
	}
	rs[1].slaveMasterHost, rs[1].slaveMasterPort = m.addr.Host, m.addr.Port
	if r := s.selectReplica(m, ms(now)); r != rs[1] {
		t.Fatalf("selected %v, want %s (it follows the master)", r, rs[1].name)
	}
}

func TestExplainEveryExclusionHasAReason(t *testing.T) {
	for _, r := range []failover.Exclusion{failover.ExcludedDown, failover.ExcludedLinkDown, failover.ExcludedStalePing,
		failover.ExcludedPriority0, failover.ExcludedStaleInfo, failover.ExcludedMasterLink, failover.ExcludedFollowsReplica} {
		if exclusionReasons[r] == "" {
			t.Errorf("no reason text for %s", r)
		}
	}
}
