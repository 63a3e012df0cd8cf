package lint

import (
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/election"
)

// votersRules report a `sentinel forget-sentinel-after` that does nothing
// because the master has no `sentinel voters`, and a voters floor below
// the number of Sentinels that watch the master (which lets a partitioned
// minority that forgot the others authorise a failover).
func votersRules(t *target) []Finding {
	s := t.spec
	var out []Finding
	if s.ForgetSentinelAfterMs > 0 && s.Voters == 0 {
		out = append(out, t.finding(Warning, RuleForgetSentinelInert,
			fmt.Sprintf("forget-sentinel-after %d ms for %s does nothing without `sentinel voters`: forgetting a Sentinel is allowed only with a floor under "+
				"the majority, else a Sentinel cut off with a minority would forget the others and authorise a failover on its own side.",
				s.ForgetSentinelAfterMs, s.Name),
			fmt.Sprintf("Set the number of Sentinels that monitor %s, this one included, on every Sentinel: `SENTINEL SET %s voters %d`.",
				s.Name, s.Name, max(t.sentinels, 3))))
	}
	if s.Voters > 0 && s.Voters < t.sentinels {
		out = append(out, t.finding(Warning, RuleVotersBelowSentinels,
			fmt.Sprintf("voters %d for %s is below the %d Sentinels that watch it (%s): with forget-sentinel-after, %d Sentinel%s cut off from the others "+
				"could forget them and authorise a failover while the others fail the master over too.",
				s.Voters, s.Name, t.sentinels, t.countSource(), election.Majority(s.Voters), plural(election.Majority(s.Voters), "", "s")),
			fmt.Sprintf("Raise it to the number of Sentinels that really run: `SENTINEL SET %s voters %d` on every Sentinel (when adding Sentinels, raise voters first; "+
				"when removing, lower it after they are gone)."+t.staleHint(), s.Name, t.sentinels)))
	}
	return out
}

// staleHint is appended to the voters fix: the count includes every
// Sentinel known, and a Sentinel restarted with a new run id leaves a
// stale entry that the count includes too.
func (t *target) staleHint() string {
	return " The count includes stale entries of Sentinels restarted with a new run id, if any: keep voters at the number that really run."
}
