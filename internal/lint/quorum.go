package lint

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/election"
)

// countSource says where the Sentinel count of t comes from.
func (t *target) countSource() string {
	if t.liveCount {
		return "as the running Sentinels report"
	}
	if t.votersCount {
		return "as its `sentinel voters` declares"
	}
	return "counting this Sentinel and the file's `sentinel known-sentinel` lines"
}

// staticHint is appended to fixes based on a count read from the file: a
// fresh file lists no peers even when they run.
func (t *target) staticHint() string {
	if t.liveCount || t.votersCount {
		return ""
	}
	return " If more Sentinels already run, this file has not learned them yet (a Sentinel writes known-sentinel lines once it discovers its peers): check the running fleet with --sentinels host:port,..."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sentinelCountRule reports fewer than 3 Sentinels.
func sentinelCountRule(t *target) []Finding {
	n, name := t.sentinels, t.spec.Name
	switch {
	case n >= 3:
		return nil
	case n == 2:
		return []Finding{t.finding(Error, RuleSentinelCount,
			fmt.Sprintf("only 2 Sentinels watch %s (%s): a failover must be authorised by a majority of 2 votes, "+
				"so when the host with the master and one Sentinel dies, the surviving Sentinel can never reach the majority of 2 and the master is never replaced.",
				name, t.countSource()),
			"Run a third Sentinel on a host that runs neither of the other two (3 Sentinels survive the loss of 1, 5 the loss of 2)."+t.staticHint())}
	default:
		return []Finding{t.finding(Error, RuleSentinelCount,
			fmt.Sprintf("only 1 Sentinel watches %s (%s): it is a majority of 1 on its own, so when its host dies nothing fails over, "+
				"and when it alone loses sight of a healthy master it fails that master over.", name, t.countSource()),
			"Run 3 Sentinels on 3 independent hosts."+t.staticHint())}
	}
}

// quorumRules compare the quorum with the Sentinel count and the majority.
func quorumRules(t *target) []Finding {
	n, q, name := t.sentinels, t.spec.Quorum, t.spec.Name
	maj := election.Majority(n)
	setQuorum := fmt.Sprintf("`SENTINEL SET %s quorum %d` on every Sentinel (it rewrites each sentinel.conf)", name, maj)
	var out []Finding
	switch {
	case q > n:
		out = append(out, t.finding(Error, RuleQuorumUnreachable,
			fmt.Sprintf("quorum %d needs %d Sentinels to agree that %s is down but only %d watch%s it (%s), "+
				"so it never becomes objectively down (ODOWN) and no failover ever starts.",
				q, q, name, n, plural(n, "es", ""), t.countSource()),
			quorumUnreachableFix(n, maj, setQuorum)))
	case q < maj:
		out = append(out, t.finding(Warning, RuleQuorumBelowMajority,
			fmt.Sprintf("quorum %d is below the majority of %d (of %d Sentinels): %d Sentinel%s can declare %s objectively down (ODOWN), "+
				"but a failover still needs %d votes to be authorised — detection is easier than authorisation — and Sentinels grant their vote "+
				"to the first candidate that asks without checking the master themselves, so %d Sentinel%s that merely lose%s the link to a healthy master can get it failed over.",
				q, maj, n, q, plural(q, "", "s"), name, maj, q, plural(q, "", "s"), plural(q, "s", "")),
			fmt.Sprintf("Set the quorum to the majority, %d: %s.", maj, setQuorum)))
	case q == n && n >= 3:
		out = append(out, t.finding(Warning, RuleQuorumAll,
			fmt.Sprintf("quorum %d equals the number of Sentinels: all %d must see %s down, so when one Sentinel is down or cut off "+
				"(for instance the one on the master's host, when that host dies) the master never becomes objectively down and nothing fails over.",
				q, n, name),
			fmt.Sprintf("Set the quorum to the majority, %d: %s.", maj, setQuorum)))
	}
	return out
}

// evenCountRule reports an even number of Sentinels (from 4: 2 is a
// sentinel-count error already).
func evenCountRule(t *target) []Finding {
	n := t.sentinels
	if n < 4 || n%2 != 0 {
		return nil
	}
	maj := election.Majority(n)
	return []Finding{t.finding(Warning, RuleEvenSentinels,
		fmt.Sprintf("%d Sentinels watch %s, an even number: the majority is %d, so they survive the loss of only %d Sentinel%s, as %d would, "+
			"and a partition into two halves of %d leaves neither side able to authorise a failover.",
			n, t.spec.Name, maj, n-maj, plural(n-maj, "", "s"), n-1, n/2),
		fmt.Sprintf("Run an odd number of Sentinels (%d or %d), each on its own host.", n-1, n+1))}
}

// quorumUnreachableFix is the fix for a quorum above the Sentinel count:
// more Sentinels when there are fewer than 3 (lowering the quorum to the
// majority of 1 or 2 would not help), a lower quorum otherwise.
func quorumUnreachableFix(n, maj int, setQuorum string) string {
	if n < 3 {
		return "Run more Sentinels (see sentinel-count): with 3 of them, a quorum of 2 is their majority."
	}
	return fmt.Sprintf("Lower the quorum to %d, the majority of %d, with %s, or run more Sentinels.", maj, n, setQuorum)
}
