package explain

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/failover"
)

// exclusionReasons says each failover.Exclusion in a sentence.
var exclusionReasons = map[failover.Exclusion]string{
	failover.ExcludedDown:           "it is itself down (SDOWN)",
	failover.ExcludedLinkDown:       "this Sentinel has no live connection to it",
	failover.ExcludedStalePing:      "it gave no valid PING reply in the last 5 ping periods",
	failover.ExcludedPriority0:      "its replica-priority is 0 (never promoted)",
	failover.ExcludedStaleInfo:      "its INFO is too old (over 5 ping periods while the master is down, else 3 INFO periods)",
	failover.ExcludedMasterLink:     "it has been disconnected from the master for longer than 10 × down-after (plus the time the master has been down)",
	failover.ExcludedFollowsReplica: "it follows another replica of this master: a failover this Sentinel has not heard of promoted that one",
}

// ExclusionReason says rule (failover.Exclude's answer) in a sentence;
// "" for failover.Eligible.
func ExclusionReason(rule failover.Exclusion) string { return exclusionReasons[rule] }

// Decide sets e's Stage and Why from its facts: the stage is the
// furthest the facts reach, and Why lists the reasons it is not further
// along, most important first. It decides nothing the facts do not
// already hold: every count and deadline in them was worked out by the
// same leaf functions the core decides with.
func Decide(e *Explanation) {
	e.Stage, e.Why = why(*e)
}

// why decides the stage and the reasons the master is not further along.
func why(e Explanation) (Stage, []string) {
	var why []string
	d, ag, f := e.Detection, e.Agreement, e.Failover
	if e.Tilt.On {
		why = append(why, fmt.Sprintf("this Sentinel is in TILT mode (entered %s ago: its timer was late or the clock jumped), so it decides nothing about instances and starts no failover for another %s",
			msText(e.Tilt.ForMs), msText(e.Tilt.EndsMs)))
	}
	stage := StageOK
	switch {
	case f.InProgress:
		stage = StageFailover
	case d.ODown:
		stage = StageODown
	case d.SDown:
		stage = StageSDown
	}
	if !d.SDown && !f.InProgress {
		if d.UnansweredMs > 0 {
			why = append(why, fmt.Sprintf("the master has not answered for %s, less than down-after-milliseconds (%s): not subjectively down yet",
				msText(d.UnansweredMs), msText(d.DownAfterMs)))
		} else {
			why = append(why, fmt.Sprintf("the master answers PING (last valid reply %s ago; down-after-milliseconds is %s)",
				msText(d.LastValidMs), msText(d.DownAfterMs)))
		}
		return stage, why
	}
	if !d.ODown && !f.InProgress {
		why = append(why, fmt.Sprintf("only %d of the %d Sentinels needed (quorum) report the master down", ag.DownReports, ag.Quorum))
		for _, sv := range e.Sentinels {
			switch {
			case !sv.LinkUp:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) cannot be asked: no live connection", short(sv.RunID), sv.IP, sv.Port))
			case !sv.Answered && !sv.ReportsDown:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) has not answered IS-MASTER-DOWN-BY-ADDR about %s yet", short(sv.RunID), sv.IP, sv.Port, sv.About))
			case !sv.ReportsDown && sv.Stale:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) has not answered IS-MASTER-DOWN-BY-ADDR for %s", short(sv.RunID), sv.IP, sv.Port, msText(sv.ReplyAgeMs)))
			case !sv.ReportsDown:
				why = append(why, fmt.Sprintf("Sentinel %s (%s:%d) answered %s ago that the master is not down", short(sv.RunID), sv.IP, sv.Port, msText(sv.ReplyAgeMs)))
			}
		}
		if ag.Quorum > ag.Voters {
			why = append(why, fmt.Sprintf("the quorum (%d) is larger than the number of Sentinels that know this master (%d): it can never be reached", ag.Quorum, ag.Voters))
		}
		return stage, why
	}
	if !f.InProgress {
		if f.NextAttemptMs > 0 {
			if e.Election.VotedForOther {
				why = append(why, fmt.Sprintf("this Sentinel voted for %s as leader in epoch %d; it waits %s (%d × failover-timeout after the vote) before it may try itself",
					short(e.Election.VotedFor), e.Election.LeaderEpoch, msText(f.NextAttemptMs), failover.RetryFactor))
			} else {
				why = append(why, fmt.Sprintf("a failover was attempted recently; the next may start in %s (%d × failover-timeout = %s after the previous start)",
					msText(f.NextAttemptMs), failover.RetryFactor, msText(failover.RetryAt(0, f.FailoverTimeoutMs))))
			}
		}
		switch {
		case f.LadderHeld:
			why = append(why, fmt.Sprintf("a Sentinel with a smaller run id also reports the master down: this one holds back for it to lead, and checks again in %s (election ladder)",
				msText(f.LadderWaitMs)))
		case f.LadderWaitMs > 0:
			why = append(why, fmt.Sprintf("this Sentinel waits its turn on the election ladder (Sentinels that could lead start one after another, by run id) and may start a failover in %s",
				msText(f.LadderWaitMs)))
		}
		if ag.Reachable < ag.Majority {
			why = append(why, fmt.Sprintf("only %d of %d Sentinels can vote; a failover needs a majority of %d votes (and at least the quorum, %d)",
				ag.Reachable, ag.Counted(), ag.Majority, ag.Quorum))
		}
		replicasWhy(e, &why)
		return stage, why
	}
	switch f.Machine {
	case failover.WaitStart:
		// An election step counts the current epoch's votes
		// (election.Elect), whatever epoch the failover started in.
		why = append(why, fmt.Sprintf("waiting to be elected leader of epoch %d: %d vote(s) for this Sentinel, %d needed (majority of %d Sentinels, at least the quorum %d); gives up in %s",
			e.Election.CurrentEpoch, e.Election.VotesForMe, e.Election.VotesNeeded, ag.Counted(), ag.Quorum, msText(f.DeadlineMs)))
		if ag.Reachable < e.Election.VotesNeeded {
			why = append(why, fmt.Sprintf("only %d Sentinels can vote: the election cannot be won", ag.Reachable))
		}
		if e.Election.LeaseHoldMs > 0 {
			why = append(why, fmt.Sprintf("this Sentinel's own vote waits %s more for the leases it granted proxies on the master to lapse", msText(e.Election.LeaseHoldMs)))
		}
	case failover.SelectSlave:
		replicasWhy(e, &why)
	case failover.SendSlaveofNoone:
		if f.Coordinated {
			why = append(why, fmt.Sprintf("coordinated: waiting for a live connection to the master to send it CLIENT PAUSE WRITE and FAILOVER TO %s; gives up in %s (less than 1s of failover-timeout left)", f.Promoted, msText(f.DeadlineMs)))
		} else {
			why = append(why, fmt.Sprintf("waiting for a live connection to %s to send SLAVEOF NO ONE; gives up in %s", f.Promoted, msText(f.DeadlineMs)))
		}
	case failover.WaitPromotion:
		if f.Coordinated {
			why = append(why, fmt.Sprintf("coordinated: the master was sent FAILOVER TO %s, its writes paused for %s so far; waiting for %s to report role master once it has every write; gives up in %s", f.Promoted, msText(f.PausedMs), f.Promoted, msText(f.DeadlineMs)))
		} else {
			why = append(why, fmt.Sprintf("SLAVEOF NO ONE sent to %s; waiting for its INFO to report role master; gives up in %s", f.Promoted, msText(f.DeadlineMs)))
			if f.PausedMs > 0 {
				why = append(why, fmt.Sprintf("the old master's writes are paused (for %s so far) so that it acknowledges none the promotion would throw away", msText(f.PausedMs)))
			}
		}
	case failover.ReconfSlaves:
		why = append(why, fmt.Sprintf("%s is promoted; pointing the other replicas at it (parallel-syncs %d); ends at the latest in %s", f.Promoted, f.ParallelSyncs, msText(f.DeadlineMs)))
	}
	return stage, why
}

// replicasWhy adds why no replica can be promoted, when none can.
func replicasWhy(e Explanation, why *[]string) {
	for _, r := range e.Replicas {
		if r.Eligible {
			return
		}
	}
	if len(e.Replicas) == 0 {
		*why = append(*why, "the master has no known replica to promote")
		return
	}
	*why = append(*why, "no replica can be promoted:")
	for _, r := range e.Replicas {
		*why = append(*why, fmt.Sprintf("replica %s: %s (%s)", r.Name, r.Reason, r.Rule))
	}
}

func short(runID string) string {
	if len(runID) > 8 {
		return runID[:8]
	}
	return runID
}

// msText renders milliseconds for a sentence: "850ms", "12.3s".
func msText(v int64) string {
	if v < 1000 {
		return fmt.Sprintf("%dms", v)
	}
	return fmt.Sprintf("%.1fs", float64(v)/1000)
}
