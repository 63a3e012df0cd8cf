package view

import (
	"errors"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// testView builds a View of the named masters, each with one announced
// replica, one unannounced one and one Sentinel, as the core's builder
// would.
func testView(names ...string) *View {
	v := &View{Index: map[string]int{}}
	for k, name := range names {
		v.Index[name] = k
		if k%ChunkSize == 0 {
			v.Chunks = append(v.Chunks, new(Chunk))
		}
		v.Chunks[k/ChunkSize][k%ChunkSize] = testMaster(name)
	}
	return v
}

func testMaster(name string) *Master {
	cell := func() *LinkCell {
		c := new(LinkCell)
		c.Store(Link{Refcount: 1, ActPingTime: 900, LastAvailTime: 900, LastPongTime: 900, CCUp: true, PCUp: true})
		return c
	}
	addr := settings.Addr{Host: "10.0.0.1", Port: 6379}
	return &Master{
		Head: Head{Quorum: 2, FailoverTimeout: 180000, ParallelSyncs: 1, Addr: addr, InfoAddr: addr, AskAddr: addr},
		Inst: &Instance{Kind: object.Master, Name: name, IP: "10.0.0.1", Port: 6379, Link: cell(), RoleReported: "master"},
		Replicas: []*Instance{
			{Kind: object.Replica, Name: "10.0.0.2:6379", IP: "10.0.0.2", Port: 6379, Link: cell(), Announced: 1},
			{Kind: object.Replica, Name: "10.0.0.3:6379", IP: "10.0.0.3", Port: 6379, Link: cell()},
		},
		Sentinels: []*Instance{{Kind: object.Sentinel, Name: "s1", IP: "10.0.0.9", Port: 26379, RunID: "s1", Link: cell()}},
	}
}

func field(kv []KV, key string) string {
	for _, f := range kv {
		if f.Key == key {
			return f.Value
		}
	}
	return "<absent>"
}

func TestQueries(t *testing.T) {
	v := testView("a", "b")
	now := time.UnixMilli(1000)
	kv, err := v.Master(now, "a")
	if err != nil || field(kv, "flags") != "master" || field(kv, "last-ok-ping-reply") != "100" ||
		field(kv, "num-slaves") != "2" || field(kv, "s-down-time") != "<absent>" {
		t.Fatalf("Master: %v, %v", kv, err)
	}
	if len(kv) > InstanceMapFields {
		t.Fatalf("%d fields, more than InstanceMapFields", len(kv))
	}
	if _, err := v.Master(now, "c"); !errors.Is(err, ErrNoSuchMaster) {
		t.Fatalf("Master of an unknown master: %v", err)
	}
	if rs, _ := v.Replicas(now, "a"); len(rs) != 1 || field(rs[0], "name") != "10.0.0.2:6379" {
		t.Fatalf("Replicas should leave out replica-announced 0: %v", rs)
	}
	if ss, _ := v.Sentinels(now, "b"); len(ss) != 1 || field(ss[0], "voted-leader") != "?" {
		t.Fatalf("Sentinels: %v", ss)
	}
	if got := v.MasterNames(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("MasterNames = %v", got)
	}
	if a, ok := v.MasterAddr("b"); !ok || a.Port != 6379 {
		t.Fatalf("MasterAddr = %v, %v", a, ok)
	}
	v.At(1).Inst.Flags = object.SDown | object.ODown
	if s := v.MasterSummaries(); s[0].Status != StatusOK || s[1].Status != StatusODown || s[1].NumReplicas != 2 {
		t.Fatalf("MasterSummaries = %+v", s)
	}
}

func TestLinkCell(t *testing.T) {
	var c LinkCell
	l := Link{Pending: 3, Refcount: 2, ActPingTime: 5, LastAvailTime: 6, LastPongTime: 7, PCUp: true}
	c.Store(l)
	if got := c.Load(); got != l {
		t.Fatalf("Load = %+v, want %+v", got, l)
	}
}

func TestCheckQuorum(t *testing.T) {
	v := testView("a")
	if ck, err := v.CheckQuorum("a"); err != nil || ck.Usable != 2 {
		t.Fatalf("CheckQuorum = %+v, %v", ck, err)
	}
	v.At(0).Sentinels[0].Flags = object.SDown
	_, err := v.CheckQuorum("a")
	var qe *QuorumError
	if !errors.Is(err, ErrNoQuorum) || !errors.As(err, &qe) || qe.Usable != 1 {
		t.Fatalf("CheckQuorum with the peer down: %v", err)
	}
}

func TestAnswerAsk(t *testing.T) {
	v := testView("a")
	req := gossip.AskRequest{IP: "10.0.0.1", Port: 6379, RunID: gossip.NoVote}
	if rep, ok := v.AnswerAsk(req); !ok || rep.Down {
		t.Fatalf("AnswerAsk about an up master = %+v, %v", rep, ok)
	}
	v.At(0).Inst.Flags = object.SDown
	if rep, ok := v.AnswerAsk(req); !ok || !rep.Down || rep.Leader != gossip.NoVote {
		t.Fatalf("AnswerAsk about an SDOWN master = %+v, %v", rep, ok)
	}
	v.InTilt = true
	if rep, _ := v.AnswerAsk(req); rep.Down {
		t.Fatal("AnswerAsk in TILT says down")
	}
	req.RunID = "me"
	if _, ok := v.AnswerAsk(req); ok {
		t.Fatal("AnswerAsk answered an ask for a vote")
	}
}

func TestProxyRoute(t *testing.T) {
	v := testView("a")
	if _, ok := v.ProxyRoute("a"); ok {
		t.Fatal("a route for a master without a proxy")
	}
	v.At(0).Proxy = ProxyHead{Listen: "127.0.0.1 7000", Hold: 1500, Fenced: true, Reason: "why"}
	r, ok := v.ProxyRoute("a")
	if !ok || !r.Fenced || r.Reason != "why" || r.Hold != 1500*time.Millisecond {
		t.Fatalf("ProxyRoute = %+v, %v", r, ok)
	}
	if kv, _ := v.Master(time.UnixMilli(1000), "a"); field(kv, "proxy-state") != "fenced: why" {
		t.Fatalf("proxy-state = %q", field(kv, "proxy-state"))
	}
	if p := v.Proxies(); len(p["a"]) != 1 {
		t.Fatalf("Proxies = %v", p)
	}
}

func TestDiff(t *testing.T) {
	at := time.UnixMilli(1000)
	if err := Diff(testView("a", "b"), testView("a", "b"), at); err != nil {
		t.Fatalf("Diff of equal Views: %v", err)
	}
	if err := Diff(testView("a"), testView("a", "b"), at); !errors.Is(err, ErrStale) {
		t.Fatalf("Diff of different masters: %v", err)
	}
	got := testView("a")
	got.At(0).Replicas[0].Link.Store(Link{Pending: 1})
	if err := Diff(got, testView("a"), at); !errors.Is(err, ErrStale) {
		t.Fatalf("Diff of different links: %v", err)
	}
	got = testView("a")
	got.Tilts = 1
	if err := Diff(got, testView("a"), at); !errors.Is(err, ErrStale) {
		t.Fatalf("Diff of different globals: %v", err)
	}
}

func TestChunkWriter(t *testing.T) {
	names := make([]string, ChunkSize+1)
	for k := range names {
		names[k] = string(rune('a'+k/26)) + string(rune('a'+k%26))
	}
	old := testView(names...)
	w := ChunkWriter{Chunks: old.Chunks}
	w.Set(0, old.At(0))
	if w.Changed() {
		t.Fatal("setting the same master changed the chunks")
	}
	m := testMaster("x")
	w.Set(ChunkSize, m)
	if !w.Changed() || w.Chunks[0] != old.Chunks[0] || w.Chunks[1] == old.Chunks[1] || old.At(ChunkSize) == m {
		t.Fatal("a change should copy its chunk alone and leave the old View as it was")
	}
	if w.Chunks[1][0] != m {
		t.Fatal("the new chunk lacks the new master")
	}
}
