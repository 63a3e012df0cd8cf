package history

import (
	"os"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestLinearizable runs the checker on made-up histories of each model:
// the ones a single copy could produce pass, the others fail with the
// offending key's visualization written.
func TestLinearizable(t *testing.T) {
	set := func(c int, k, v string, call, ret int64) *Op {
		return &Op{Client: c, Kind: Set, Key: k, Value: v, Call: call, Return: ret}
	}
	get := func(c int, k, v string, call, ret int64) *Op {
		return &Op{Client: c, Kind: Get, Key: k, Out: v, Nil: v == "", Call: call, Return: ret}
	}
	push := func(c int, k, v string, n, call, ret int64) *Op {
		return &Op{Client: c, Kind: RPush, Key: k, Value: v, N: n, Call: call, Return: ret}
	}
	lrange := func(c int, k string, items []string, call, ret int64) *Op {
		return &Op{Client: c, Kind: LRange, Key: k, Items: items, Call: call, Return: ret}
	}
	incr := func(c int, k string, n, call, ret int64) *Op {
		return &Op{Client: c, Kind: Incr, Key: k, N: n, Call: call, Return: ret}
	}
	unknown := func(o *Op) *Op { o.Unknown = true; return o }
	for _, tc := range []struct {
		name string
		ops  []*Op
		ok   bool
	}{
		{"sequential register", []*Op{set(0, "r", "a", 0, 1), get(1, "r", "a", 2, 3), set(0, "r", "b", 4, 5), get(1, "r", "b", 6, 7)}, true},
		{"concurrent write may be seen or not", []*Op{set(0, "r", "a", 0, 1), set(0, "r", "b", 2, 10), get(1, "r", "a", 3, 4), get(1, "r", "b", 5, 6)}, true},
		{"an acknowledged write lost", []*Op{set(0, "r", "a", 0, 1), set(0, "r", "b", 2, 3), get(1, "r", "a", 4, 5)}, false},
		{"a value that comes back after it was overwritten", []*Op{set(0, "r", "a", 0, 1), set(0, "r", "b", 2, 3), get(1, "r", "b", 4, 5), get(1, "r", "a", 6, 7)}, false},
		{"an unknown write may land late", []*Op{set(0, "r", "a", 0, 1), unknown(set(0, "r", "b", 2, 3)), get(1, "r", "a", 4, 5), get(1, "r", "b", 6, 7)}, true},
		{"a nil read after a write", []*Op{set(0, "r", "a", 0, 1), get(1, "r", "", 2, 3)}, false},
		{"list in order", []*Op{push(0, "l", "x", 1, 0, 1), push(1, "l", "y", 2, 2, 3), lrange(2, "l", []string{"x", "y"}, 4, 5)}, true},
		{"list lost an element", []*Op{push(0, "l", "x", 1, 0, 1), push(1, "l", "y", 2, 2, 3), lrange(2, "l", []string{"y"}, 4, 5)}, false},
		{"an element acknowledged twice", []*Op{push(0, "l", "x", 1, 0, 1), push(1, "l", "y", 1, 2, 3)}, false},
		{"counter", []*Op{incr(0, "c", 1, 0, 1), unknown(incr(1, "c", 0, 2, 3)), incr(0, "c", 3, 4, 5)}, true},
		{"counter went back", []*Op{incr(0, "c", 1, 0, 1), incr(0, "c", 2, 2, 3), incr(1, "c", 2, 4, 5)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			vs := Linearizable(tc.ops, []Window{{Label: "cut", Start: 1, End: 3}}, dir, "h")
			bad := Failed(vs)
			if got := len(bad) == 0; got != tc.ok {
				t.Fatalf("linearizable %v, want %v: %+v", got, tc.ok, vs)
			}
			if !tc.ok {
				if bad[0].Result != porcupine.Illegal || bad[0].Visualization == "" {
					t.Fatalf("verdict %+v: want Illegal with a visualization", bad[0])
				}
				if st, err := os.Stat(bad[0].Visualization); err != nil || st.Size() == 0 {
					t.Fatalf("visualization %s: %v", bad[0].Visualization, err)
				}
			}
		})
	}
}

// TestExcuse: a write lost inside the excused window no longer fails the
// check, and is counted; outside it, it still does.
func TestExcuse(t *testing.T) {
	ops := []*Op{
		{Kind: Set, Key: "r", Value: "a", Call: 0, Return: 1},
		{Kind: Set, Key: "r", Value: "b", Call: 10, Return: 11},
		{Kind: Get, Key: "r", Out: "b", Call: 12, Return: 13},
		{Kind: Get, Key: "r", Out: "a", Call: 20, Return: 21},
	}
	if len(Failed(Linearizable(ops, nil, "", "h"))) == 0 {
		t.Fatal("the history with a lost write passed")
	}
	out, n := Excuse(ops, []Window{{Start: 9, End: 12}})
	if len(Failed(Linearizable(out, nil, "", "h"))) != 0 || n != 1 {
		t.Fatalf("excused %d, still failing", n)
	}
	out, _ = Excuse(ops, []Window{{Start: 30, End: 40}})
	if len(Failed(Linearizable(out, nil, "", "h"))) == 0 {
		t.Fatal("a window elsewhere excused the loss")
	}
}

// TestStaleness: a read is as stale as the time since the next value
// was acknowledged.
func TestStaleness(t *testing.T) {
	w := func(v string, ret int64) *Op { return &Op{Kind: Set, Key: "k", Value: v, Return: ret} }
	r := func(v string, call int64) *Op { return &Op{Kind: Get, Key: "k", Out: v, Nil: v == "", Call: call} }
	writes := []*Op{w("1", 10), w("2", 20), w("3", 30)}
	worst, over := Staleness(writes, []*Op{r("", 5), r("1", 15), r("1", 25), r("2", 26), r("", 40)}, 20)
	if worst != 30 || len(over) != 1 || over[0].Call != 40 {
		t.Fatalf("worst %d, over %v", worst, over)
	}
}

// TestLostWrites classifies lost writes by who acknowledged them.
func TestLostWrites(t *testing.T) {
	const a, b = "10.0.0.1:6379", "10.0.0.2:6379"
	const s = int64(1e9)
	push := func(v, node string, ret int64) *Op {
		return &Op{Kind: RPush, Key: "l", Value: v, Node: node, Call: ret - 1, Return: ret}
	}
	ops := []*Op{
		push("kept", a, 1*s),
		push("before-kill", a, 10*s),  // a killed at 10.5 s, deposed at 14 s
		push("after-return", a, 20*s), // a back at 19 s, converted at 21 s
		push("long-after", a, 25*s),   // still written to at 25 s (Redis's wait)
		push("old", b, 2*s),           // acknowledged long before b's failover
		push("healthy-lost", b, 30*s), // b deposed at 40 s, no fault on b
		{Kind: RPush, Key: "l", Value: "unknown", Node: a, Unknown: true, Return: Never},
	}
	final := map[string][]string{"l": {"kept"}}
	faults := []NodeFault{{Node: a, Start: 10*s + s/2, End: 19 * s}}
	// a deposed at 14 s, b at 40 s, and a again in a later term at 90 s
	// (after a cut of its own): the writes a acknowledged as a returning
	// old master at 20 and 25 s belong to the first.
	switches := []Switch{{From: a, To: b, At: 14 * s}, {From: b, To: a, At: 40 * s}, {From: a, To: b, At: 90 * s}}
	faults = append(faults, NodeFault{Node: a, Start: 85 * s, End: 95 * s})
	lost := LostWrites(ops, final, faults, switches)
	want := map[string]LossClass{"before-kill": Replication, "after-return": Returned, "long-after": Returned,
		"healthy-lost": SentinelCaused, "old": SentinelCaused}
	if len(lost) != len(want) {
		t.Fatalf("lost %v", lost)
	}
	for _, l := range lost {
		if want[l.Op.Value] != l.Class {
			t.Errorf("%s: class %v, want %v", l.Op.Value, l.Class, want[l.Op.Value])
		}
	}
}
