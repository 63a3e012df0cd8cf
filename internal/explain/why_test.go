package explain

import (
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/failover"
)

// healthy is the facts of a master that answers, known to this Sentinel
// and two peers that answered 100 ms ago, with two eligible replicas.
func healthy() Explanation {
	return Explanation{
		Master: "m", IP: "10.0.0.1", Port: 6379,
		Detection: DetectionView{LinkUp: true, LastValidMs: 100, DownAfterMs: 30000, RoleReported: "master"},
		Agreement: AgreementView{Quorum: 2, Voters: 3, Majority: 2, Reachable: 3},
		Election:  ElectionView{VotesNeeded: 2},
		Failover:  FailoverView{State: "none", Machine: failover.None, FailoverTimeoutMs: 180000},
		Sentinels: []SentinelView{
			{RunID: strings.Repeat("a", 40), IP: "10.0.1.1", Port: 26379, LinkUp: true, About: "10.0.0.1:6379", Answered: true, ReplyAgeMs: 100},
			{RunID: strings.Repeat("b", 40), IP: "10.0.1.2", Port: 26379, LinkUp: true, About: "10.0.0.1:6379", Answered: true, ReplyAgeMs: 100},
		},
		Replicas: []ReplicaView{
			{Name: "10.0.0.2:6379", Eligible: true, Best: true, Priority: 100},
			{Name: "10.0.0.3:6379", Eligible: true, Priority: 100},
		},
	}
}

// sdown makes e's master subjectively down for 1 s, reported by this
// Sentinel alone.
func sdown(e *Explanation) {
	e.Detection.SDown, e.Detection.SDownMs, e.Detection.UnansweredMs = true, 1000, 31000
	e.Agreement.DownReports = 1
}

// odown makes e's master objectively down as well.
func odown(e *Explanation) {
	sdown(e)
	e.Detection.ODown, e.Detection.ODownMs = true, 500
	e.Agreement.DownReports = 2
	e.Sentinels[0].ReportsDown = true
}

// excluded makes every replica of e excluded by rule.
func excluded(e *Explanation, rule failover.Exclusion) {
	for k := range e.Replicas {
		r := &e.Replicas[k]
		r.Eligible, r.Best, r.Rule, r.Reason = false, false, string(rule), ExclusionReason(rule)
	}
}

// TestDecide: the stage and the reasons come from the facts alone; each
// case names fragments one of the reasons must contain.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts func(e *Explanation)
		stage Stage
		why   [][]string
	}{
		{"healthy", func(e *Explanation) {}, StageOK, [][]string{{"answers PING", "last valid reply 100ms ago"}}},
		{"not down yet", func(e *Explanation) { e.Detection.UnansweredMs = 4000 }, StageOK,
			[][]string{{"not answered for 4.0s", "not subjectively down yet"}}},
		{"no quorum", func(e *Explanation) {
			sdown(e)
			e.Agreement.Quorum = 3
			e.Sentinels[0].ReportsDown, e.Agreement.DownReports = true, 2
			e.Sentinels[1].LinkUp = false
		}, StageSDown, [][]string{{"only 2 of the 3 Sentinels needed (quorum)"}, {"bbbbbbbb", "no live connection"}}},
		{"a peer says not down", func(e *Explanation) { sdown(e) }, StageSDown,
			[][]string{{"aaaaaaaa", "answered 100ms ago that the master is not down"}}},
		{"a peer has not answered", func(e *Explanation) { sdown(e); e.Sentinels[1].Answered = false }, StageSDown,
			[][]string{{"bbbbbbbb", "has not answered IS-MASTER-DOWN-BY-ADDR about 10.0.0.1:6379 yet"}}},
		{"a peer's answer is stale", func(e *Explanation) {
			sdown(e)
			e.Sentinels[1].Stale, e.Sentinels[1].ReplyAgeMs = true, 6000
		}, StageSDown, [][]string{{"bbbbbbbb", "has not answered IS-MASTER-DOWN-BY-ADDR for 6.0s"}}},
		{"quorum above the Sentinels", func(e *Explanation) { sdown(e); e.Agreement.Quorum = 5 }, StageSDown,
			[][]string{{"quorum (5) is larger than the number of Sentinels", "never be reached"}}},
		{"no majority", func(e *Explanation) { odown(e); e.Agreement.Reachable = 1 }, StageODown,
			[][]string{{"only 1 of 3 Sentinels can vote", "majority of 2"}}},
		{"voters floor", func(e *Explanation) {
			odown(e)
			e.Agreement.VotersFloor, e.Agreement.Majority, e.Agreement.Reachable = 5, 3, 2
		}, StageODown, [][]string{{"only 2 of 5 Sentinels can vote", "majority of 3"}}},
		{"retry back-off", func(e *Explanation) { odown(e); e.Failover.NextAttemptMs = 110000 }, StageODown,
			[][]string{{"next may start in 110.0s", "2 × failover-timeout = 360.0s"}}},
		{"voted for another", func(e *Explanation) {
			odown(e)
			e.Failover.NextAttemptMs = 50000
			e.Election.VotedFor, e.Election.LeaderEpoch, e.Election.VotedForOther = strings.Repeat("a", 40), 3, true
		}, StageODown, [][]string{{"voted for aaaaaaaa as leader in epoch 3", "waits 50.0s"}}},
		{"election ladder", func(e *Explanation) { odown(e); e.Failover.LadderWaitMs = 350 }, StageODown,
			[][]string{{"waits its turn on the election ladder", "in 350ms"}}},
		{"held on the ladder", func(e *Explanation) { odown(e); e.Failover.LadderWaitMs, e.Failover.LadderHeld = 100, true }, StageODown,
			[][]string{{"smaller run id also reports the master down", "checks again in 100ms"}}},
		{"no replica", func(e *Explanation) { odown(e); e.Replicas = nil }, StageODown,
			[][]string{{"no known replica to promote"}}},
		{"waiting for votes", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.State, e.Failover.Machine, e.Failover.DeadlineMs = true, "wait_start", failover.WaitStart, 9000
			e.Election.CurrentEpoch, e.Election.VotesForMe = 1, 1
		}, StageFailover, [][]string{{"waiting to be elected leader of epoch 1", "1 vote(s) for this Sentinel, 2 needed", "gives up in 9.0s"}}},
		{"own vote held for leases", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.Machine = true, failover.WaitStart
			e.Election.LeaseHoldMs = 1200
		}, StageFailover, [][]string{{"own vote waits 1.2s more for the leases it granted"}}},
		{"votes out of reach", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.Machine = true, failover.WaitStart
			e.Agreement.Reachable = 1
		}, StageFailover, [][]string{{"only 1 Sentinels can vote: the election cannot be won"}}},
		{"sending SLAVEOF NO ONE", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.Machine, e.Failover.Promoted = true, failover.SendSlaveofNoone, "10.0.0.2:6379"
		}, StageFailover, [][]string{{"waiting for a live connection to 10.0.0.2:6379 to send SLAVEOF NO ONE"}}},
		{"coordinated hand-over", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.Machine, e.Failover.Promoted = true, failover.WaitPromotion, "10.0.0.2:6379"
			e.Failover.Coordinated, e.Failover.PausedMs = true, 1200
		}, StageFailover, [][]string{{"coordinated: the master was sent FAILOVER TO 10.0.0.2:6379", "paused for 1.2s"}}},
		{"paused for the promotion", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.Machine, e.Failover.Promoted, e.Failover.PausedMs = true, failover.WaitPromotion, "10.0.0.2:6379", 300
		}, StageFailover, [][]string{{"SLAVEOF NO ONE sent to 10.0.0.2:6379"}, {"old master's writes are paused (for 300ms so far)"}}},
		{"reconfiguring replicas", func(e *Explanation) {
			odown(e)
			e.Failover.InProgress, e.Failover.Machine, e.Failover.Promoted, e.Failover.ParallelSyncs = true, failover.ReconfSlaves, "10.0.0.2:6379", 2
		}, StageFailover, [][]string{{"10.0.0.2:6379 is promoted", "parallel-syncs 2"}}},
		{"tilt", func(e *Explanation) { e.Tilt = TiltView{On: true, ForMs: 5000, EndsMs: 25000} }, StageOK,
			[][]string{{"TILT", "entered 5.0s ago", "another 25.0s"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := healthy()
			tc.facts(&e)
			Decide(&e)
			if e.Stage != tc.stage {
				t.Errorf("stage %s, want %s", e.Stage, tc.stage)
			}
			for _, frags := range tc.why {
				hasWhy(t, e, frags...)
			}
		})
	}
}

// TestDecideReplicaExclusions: when no replica may be promoted, each
// one's exclusion rule is a reason, in its sentence.
func TestDecideReplicaExclusions(t *testing.T) {
	for _, rule := range exclusions {
		t.Run(string(rule), func(t *testing.T) {
			e := healthy()
			odown(&e)
			excluded(&e, rule)
			Decide(&e)
			hasWhy(t, e, "no replica can be promoted")
			hasWhy(t, e, "replica 10.0.0.2:6379", ExclusionReason(rule), string(rule))
		})
	}
}

// exclusions are every failover.Exclusion but Eligible.
var exclusions = []failover.Exclusion{failover.ExcludedDown, failover.ExcludedLinkDown, failover.ExcludedStalePing,
	failover.ExcludedPriority0, failover.ExcludedStaleInfo, failover.ExcludedMasterLink, failover.ExcludedFollowsReplica}

func TestEveryExclusionHasAReason(t *testing.T) {
	for _, r := range exclusions {
		if ExclusionReason(r) == "" {
			t.Errorf("no reason text for %s", r)
		}
	}
	if ExclusionReason(failover.Eligible) != "" {
		t.Errorf("an eligible replica has a reason: %q", ExclusionReason(failover.Eligible))
	}
}

// TestText: the text names the stage, each reason and the best replica.
func TestText(t *testing.T) {
	e := healthy()
	Decide(&e)
	text := e.Text()
	for _, want := range []string{"master m 10.0.0.1 6379: ok (not subjectively down)", "  why: the master answers PING",
		"replica 10.0.0.2:6379: eligible, would be promoted (priority 100, offset 0)", "sentinel aaaaaaaa 10.0.1.1:26379 link=up says not down"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// hasWhy fails unless one of e's reasons contains every fragment.
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
