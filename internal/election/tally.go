// Package election counts the votes of a Sentinel leader election: who
// the other Sentinels voted for in the current epoch, plus our own vote,
// and whether the most voted candidate has both an absolute majority of
// the known Sentinels and at least the master's quorum. It is a pure leaf
// the core uses.
package election

import "sort"

// Tally counts votes per candidate run id. The zero value is empty and
// ready to use.
type Tally struct {
	counts map[string]int
}

// Add counts one vote for runID and returns its votes so far.
func (t *Tally) Add(runID string) int {
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	t.counts[runID]++
	return t.counts[runID]
}

// Votes returns how many votes runID has.
func (t *Tally) Votes(runID string) int { return t.counts[runID] }

// Leading returns the candidate with the most votes and its count, or ""
// when nobody got a vote. Ties go to the smallest run id so that the
// result does not depend on map order (Redis leaves ties unspecified; a
// tie can never produce two leaders because a winner needs a majority).
func (t *Tally) Leading() (string, int) {
	ids := make([]string, 0, len(t.counts))
	for id := range t.counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	best, max := "", 0
	for _, id := range ids {
		if t.counts[id] > max {
			best, max = id, t.counts[id]
		}
	}
	return best, max
}

// Required is the number of votes a leader needs: an absolute majority of
// voters (all known Sentinels including this one) and at least quorum.
func Required(voters, quorum int) int {
	need := voters/2 + 1
	if quorum > need {
		need = quorum
	}
	return need
}

// Winner returns the elected leader given the tally, or "" if the leading
// candidate lacks the votes Required.
func (t *Tally) Winner(voters, quorum int) string {
	id, n := t.Leading()
	if id == "" || n < Required(voters, quorum) {
		return ""
	}
	return id
}
