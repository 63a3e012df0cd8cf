package history

import (
	"strconv"
)

// Staleness measures the reads of a replica route against the writes of
// a single writer per key that writes 1, 2, 3, ... in order (each SET
// waits for the one before): a read that returns v, called at c, is as
// stale as the time since the write of v+1 was acknowledged, when that
// was acknowledged before c, and 0 otherwise (a read of nil counts as
// v = 0). It returns the largest staleness and the reads over bound.
func Staleness(writes, reads []*Op, bound int64) (worst int64, over []*Op) {
	acked := map[string]map[int64]int64{} // key → value → when acknowledged
	for _, w := range writes {
		if w.Kind != Set || w.Unknown {
			continue
		}
		v, err := strconv.ParseInt(w.Value, 10, 64)
		if err != nil {
			continue
		}
		if acked[w.Key] == nil {
			acked[w.Key] = map[int64]int64{}
		}
		acked[w.Key][v] = w.Return
	}
	for _, r := range reads {
		if r.Kind != Get || r.Unknown {
			continue
		}
		var v int64
		if !r.Nil {
			var err error
			if v, err = strconv.ParseInt(r.Out, 10, 64); err != nil {
				continue
			}
		}
		next, ok := acked[r.Key][v+1]
		if !ok || next >= r.Call {
			continue
		}
		s := r.Call - next
		worst = max(worst, s)
		if s > bound {
			over = append(over, r)
		}
	}
	return worst, over
}
