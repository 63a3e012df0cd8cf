package failover

// Replica is what planning the reconfiguration of replicas needs to know
// about one replica of the failed master, once a replica was promoted.
type Replica struct {
	// ID identifies the replica to the caller (its name).
	ID string
	// Promoted marks the replica being promoted; it is not reconfigured.
	Promoted bool
	// Sent, InProgress and Done are the reconfiguration flags
	// (reconf_sent: SLAVEOF sent; reconf_inprog: it follows the promoted
	// replica; reconf_done: its link to it is up).
	Sent, InProgress, Done bool
	// SinceSent is how long ago, in ms, SLAVEOF was sent to it.
	SinceSent int64
	// Disconnected is true without a live link to it: nothing can be sent.
	Disconnected bool
	// Down is true when it is SDOWN: the end of the failover does not
	// wait for it.
	Down bool
}

// ReconfAction is what to do with one replica in one step of
// reconf_slaves.
type ReconfAction struct {
	ID string
	// TimedOut: SLAVEOF went unanswered for longer than the reconf
	// timeout; count the replica as done (-slave-reconf-sent-timeout).
	// Sentinels fix its configuration later.
	TimedOut bool
	// Send: send it SLAVEOF <promoted> now (+slave-reconf-sent).
	Send bool
}

// PlanReconf decides one step of reconf_slaves as Redis's
// sentinelFailoverReconfNextSlave does: walking replicas in the caller's
// order, at most parallelSyncs of them are being reconfigured at once
// (sent or in progress); a replica whose SLAVEOF was sent more than
// sentTimeout ago counts as done, and, no longer marked sent, is sent
// SLAVEOF again when a slot is free. The actions come in replica order,
// each replica at most once.
func PlanReconf(replicas []Replica, parallelSyncs int, sentTimeout int64) []ReconfAction {
	inProgress := 0
	for _, r := range replicas {
		if r.Sent || r.InProgress {
			inProgress++
		}
	}
	var out []ReconfAction
	for _, r := range replicas {
		if inProgress >= parallelSyncs {
			break
		}
		if r.Promoted || r.Done {
			continue
		}
		var a ReconfAction
		if r.Sent && r.SinceSent > sentTimeout {
			a.TimedOut = true
			r.Sent, r.Done = false, true
		}
		if !r.Sent && !r.InProgress && !r.Disconnected {
			a.Send = true
			inProgress++
		}
		if a.TimedOut || a.Send {
			a.ID = r.ID
			out = append(out, a)
		}
	}
	return out
}

// End is how reconf_slaves ends, decided by PlanEnd.
type End int

// The ways reconf_slaves goes on or ends.
const (
	// NotYet: replicas are still being reconfigured.
	NotYet End = iota
	// Ended: every replica that is not down was reconfigured
	// (+failover-end).
	Ended
	// EndedForTimeout: failover-timeout passed in reconf_slaves; the
	// failover ends anyway (+failover-end-for-timeout, then
	// +failover-end), and the replicas not yet sent SLAVEOF get it once
	// more, best effort (+slave-reconf-sent-be).
	EndedForTimeout
)

// PlanEnd decides whether reconf_slaves is over, as Redis's
// sentinelFailoverDetectEnd does: never while the promoted replica is
// down; when every replica but the promoted one is done or down; or when
// the state timed out. It returns, for EndedForTimeout, the replicas to
// send SLAVEOF once more (neither promoted, done nor sent, and with a
// live link), in the caller's order.
func PlanEnd(replicas []Replica, promotedDown, timedOut bool) (End, []string) {
	if promotedDown {
		return NotYet, nil
	}
	if timedOut {
		var again []string
		for _, r := range replicas {
			if !r.Promoted && !r.Done && !r.Sent && !r.Disconnected {
				again = append(again, r.ID)
			}
		}
		return EndedForTimeout, again
	}
	for _, r := range replicas {
		if !r.Promoted && !r.Done && !r.Down {
			return NotYet, nil
		}
	}
	return Ended, nil
}
