package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/resptest"
)

func TestDiscoveryAndODown(t *testing.T) {
	top := startDataUnpromotable(t, 2)
	for i := 0; i < 3; i++ {
		top.addGoSentinel(2, "")
	}
	for _, s := range top.sentinels {
		s := s
		waitFor(t, 5*time.Second, "2 replicas and 2 other sentinels", func() bool {
			return listLen(t, s.Port, "REPLICAS") == 2 && listLen(t, s.Port, "SENTINELS") == 2
		})
	}
	logs := make([]*eventLog, len(top.sentinels))
	for i, s := range top.sentinels {
		logs[i] = watchEvents(t, s.Port)
	}
	killProc(top.master)
	prefix := fmt.Sprintf("master mymaster 127.0.0.1 %d", top.master.Port)
	for i, el := range logs {
		el := el
		waitFor(t, 15*time.Second, fmt.Sprintf("+sdown and +odown on sentinel %d", i), func() bool {
			return el.has("+sdown "+prefix) && el.has("+odown "+prefix+" #quorum")
		})
		if !strings.Contains(sentinelField(t, top.sentinels[i].Port, "flags"), "o_down") {
			t.Errorf("sentinel %d flags lack o_down", i)
		}
	}
	// The rewritten config remembers what was discovered.
	conf := readFile(t, top.confs[0])
	if strings.Count(conf, "sentinel known-replica mymaster") != 2 || strings.Count(conf, "sentinel known-sentinel mymaster") != 2 {
		t.Errorf("config lacks known replicas/sentinels:\n%s", conf)
	}
}

func TestMixedFleetDiscoversItselfAndAgrees(t *testing.T) {
	top := startDataUnpromotable(t, 2)
	top.addRedisSentinel(2, "")
	top.addRedisSentinel(2, "")
	gs := top.addGoSentinel(2, "")
	for _, s := range top.sentinels {
		s := s
		waitFor(t, 10*time.Second, fmt.Sprintf("sentinel :%d to list the other two", s.Port), func() bool {
			return listLen(t, s.Port, "SENTINELS") == 2
		})
	}
	waitFor(t, 10*time.Second, "go-sentinel to find both replicas", func() bool { return listLen(t, gs.Port, "REPLICAS") == 2 })
	logs := make([]*eventLog, len(top.sentinels))
	for i, s := range top.sentinels {
		logs[i] = watchEvents(t, s.Port)
	}
	killProc(top.master)
	for i, el := range logs {
		el := el
		waitFor(t, 15*time.Second, fmt.Sprintf("+odown on sentinel %d", i), func() bool {
			return el.has(fmt.Sprintf("+odown master mymaster 127.0.0.1 %d #quorum", top.master.Port))
		})
	}
}

// TestReplyShapesMatchRedisSentinel compares the field names and order of
// go-sentinel's replies with Debian's redis-sentinel watching the same
// master, in RESP2 and RESP3.
func TestReplyShapesMatchRedisSentinel(t *testing.T) {
	top := startData(t, 1)
	real := top.addRedisSentinel(2, "")
	ours := top.addGoSentinel(2, "")
	for _, s := range []*proc{real, ours} {
		s := s
		waitFor(t, 10*time.Second, "discovery", func() bool {
			return listLen(t, s.Port, "REPLICAS") == 1 && listLen(t, s.Port, "SENTINELS") == 1
		})
	}
	keys := func(port int, args ...any) [][]string {
		v := doSlice(t, client(t, port), args...)
		var out [][]string
		if len(v) > 0 {
			if _, nested := v[0].([]any); !nested {
				v = []any{v}
			}
		}
		for _, e := range v {
			m := e.([]any)
			var ks []string
			for i := 0; i < len(m); i += 2 {
				ks = append(ks, fmt.Sprint(m[i]))
			}
			out = append(out, ks)
		}
		return out
	}
	for _, cmd := range [][]any{
		{"SENTINEL", "MASTER", "mymaster"},
		{"SENTINEL", "MASTERS"},
		{"SENTINEL", "REPLICAS", "mymaster"},
		{"SENTINEL", "SLAVES", "mymaster"},
		{"SENTINEL", "SENTINELS", "mymaster"},
	} {
		want, got := keys(real.Port, cmd...), keys(ours.Port, cmd...)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%v fields:\n got %v\nwant %v", cmd, got, want)
		}
	}
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"},
		{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "nope"},
		{"SENTINEL", "MASTER", "nope"},
		{"SENTINEL", "CKQUORUM", "mymaster"},
		{"SENTINEL", "CKQUORUM", "nope"},
		{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", fmt.Sprint(top.master.Port), "0", "*"},
		{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "x", "0", "*"},
		{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "10.9.9.9", "1", "0", "*"},
		{"SENTINEL", "MASTERS", "x"},
		{"SENTINEL", "INFO-CACHE", "nope"},
		{"PUBLISH", "foo", "bar"},
		{"ROLE"},
	} {
		w, werr := client(t, real.Port).Do(ctx, cmd...).Result()
		g, gerr := client(t, ours.Port).Do(ctx, cmd...).Result()
		if fmt.Sprint(w, werr) != fmt.Sprint(g, gerr) {
			t.Errorf("%v:\n got %v %v\nwant %v %v", cmd, g, gerr, w, werr)
		}
	}
	// RESP3: maps with the same number of pairs.
	rawMapLen := func(port int) string {
		nc := resptest.Dial(t, fmt.Sprintf("127.0.0.1:%d", port))
		nc.Do("HELLO", "3")
		return strings.SplitN(nc.Do("SENTINEL", "MASTER", "mymaster"), "\r\n", 2)[0]
	}
	if w, g := rawMapLen(real.Port), rawMapLen(ours.Port); w != g {
		t.Errorf("RESP3 SENTINEL MASTER header: got %s want %s", g, w)
	}
}
