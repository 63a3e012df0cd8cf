package monitor

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// viewWorld drives one core with random inputs: the replies to what it
// sent (healthy, failing, lying), links that connect and break, hellos
// and asks from peers, and now and then a command.
type viewWorld struct {
	t     *testing.T
	rnd   *rand.Rand
	s     *Sentinel
	now   time.Time
	open  []msg.OpenLink // links opened and not closed
	sends []msg.Send     // commands waiting for a reply
}

// viewPeers are the other Sentinels of the world; the first two are
// known to every master from the start, so their links are shared.
var viewPeers = []string{
	"1111111111111111111111111111111111111111",
	"2222222222222222222222222222222222222222",
	"3333333333333333333333333333333333333333",
}

func newViewWorld(t *testing.T, seed int64) *viewWorld {
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(seed)))}
	for i := 0; i < 4; i++ {
		m := settings.NewMasterSpec(fmt.Sprintf("m%d", i), settings.Addr{Host: "10.0.0.1", Port: 7000 + i}, 1+i%2)
		m.KnownReplicas = []settings.Addr{{Host: "10.0.0.2", Port: 7000 + i}}
		m.KnownSentinels = []settings.SentinelSpec{
			{Addr: settings.Addr{Host: "10.0.1.1", Port: 26379}, RunID: viewPeers[0]},
			{Addr: settings.Addr{Host: "10.0.1.2", Port: 26379}, RunID: viewPeers[1]},
		}
		p.Masters = append(p.Masters, m)
	}
	w := &viewWorld{t: t, rnd: rand.New(rand.NewSource(seed)), now: t0}
	w.s = New(p, Options{Port: 26379, Accel: settings.DefaultAccel()}, rand.New(rand.NewSource(seed+1)), w.now)
	w.collect()
	return w
}

// collect takes the core's output: the links it opened or closed and the
// commands it sent.
func (w *viewWorld) collect() {
	for _, a := range w.s.Ready().Actions {
		switch a := a.(type) {
		case msg.OpenLink:
			w.open = append(w.open, a)
		case msg.CloseLink:
			for k, o := range w.open {
				if o.ID == a.ID {
					w.open = append(w.open[:k], w.open[k+1:]...)
					break
				}
			}
		case msg.Send:
			w.sends = append(w.sends, a)
		}
	}
}

func (w *viewWorld) pick(n int) int { return w.rnd.Intn(n) }

// randomReply is a reply to cmd: mostly what a healthy instance says,
// sometimes an error, a refusal or another role.
func (w *viewWorld) randomReply(cmd string) msg.Reply {
	switch cmd {
	case "PING":
		return msg.Reply{Kind: msg.ReplyString, Str: []string{"PONG", "PONG", "LOADING", "BUSY x", "ERR no"}[w.pick(5)]}
	case "INFO":
		port := 7000 + w.pick(4)
		info := "# Replication\r\nrole:master\r\nrun_id:0123456789012345678901234567890123456789\r\n" +
			fmt.Sprintf("slave0:ip=10.0.0.%d,port=%d,state=online,offset=1,lag=0\r\n", 2+w.pick(3), port)
		if w.pick(3) == 0 {
			info = "# Replication\r\nrole:slave\r\nrun_id:9876543210987654321098765432109876543210\r\n" +
				fmt.Sprintf("master_host:10.0.0.%d\r\nmaster_port:%d\r\nmaster_link_status:%s\r\nslave_priority:%d\r\nslave_repl_offset:%d\r\n",
					1+w.pick(3), port, []string{"up", "down"}[w.pick(2)], w.pick(3)*50, w.pick(1000))
		}
		return msg.Reply{Kind: msg.ReplyString, Str: info}
	case "SENTINEL":
		return msg.Reply{Kind: msg.ReplyArray, Elems: []msg.Reply{
			{Kind: msg.ReplyInt, Int: int64(w.pick(2))},
			{Kind: msg.ReplyString, Str: []string{"*", viewPeers[w.pick(3)]}[w.pick(2)]},
			{Kind: msg.ReplyInt, Int: int64(w.pick(4))},
		}}
	}
	if w.pick(4) == 0 {
		return msg.Reply{Kind: msg.ReplyError, Str: "ERR no"}
	}
	return msg.Reply{Kind: msg.ReplyString, Str: "OK"}
}

// randomHello is a hello of a peer about one of the masters, now and
// then with a newer configuration or another address.
func (w *viewWorld) randomHello() string {
	k := w.pick(4)
	h := gossip.Hello{
		SentinelIP:   fmt.Sprintf("10.0.1.%d", 1+w.pick(3)),
		SentinelPort: 26379,
		RunID:        viewPeers[w.pick(3)],
		CurrentEpoch: uint64(w.pick(3)),
		MasterName:   fmt.Sprintf("m%d", k),
		MasterIP:     "10.0.0.1",
		MasterPort:   7000 + k,
	}
	if w.pick(20) == 0 {
		h.MasterConfigEpoch = uint64(1 + w.pick(3))
		h.MasterIP = fmt.Sprintf("10.0.0.%d", 1+w.pick(3))
	}
	return h.Encode()
}

// step applies one random input.
func (w *viewWorld) step() {
	s := w.s
	switch r := w.pick(100); {
	case r < 15:
		w.now = w.now.Add(time.Duration(w.pick(400)) * time.Millisecond)
		s.Tick(w.now, w.now)
	case r < 55 && len(w.sends) > 0:
		k := w.pick(len(w.sends))
		a := w.sends[k]
		w.sends = append(w.sends[:k], w.sends[k+1:]...)
		s.Step(w.now, msg.CommandReply{ID: a.ID, Tag: a.Tag, Reply: w.randomReply(a.Args[0])})
	case r < 65 && len(w.open) > 0:
		s.Step(w.now, msg.LinkConnected{ID: w.open[w.pick(len(w.open))].ID})
	case r < 68 && len(w.open) > 0:
		k := w.pick(len(w.open))
		id := w.open[k].ID
		w.open = append(w.open[:k], w.open[k+1:]...)
		s.Step(w.now, msg.LinkClosed{ID: id, Err: "reset"})
	case r < 78 && len(w.open) > 0:
		s.Step(w.now, msg.PubSubMessage{ID: w.open[w.pick(len(w.open))].ID, Channel: gossip.Channel, Payload: w.randomHello()})
	case r < 86:
		s.Step(w.now, msg.HelloFromClient{Payload: w.randomHello()})
	case r < 92:
		k := w.pick(4)
		req := gossip.AskRequest{IP: "10.0.0.1", Port: 7000 + k, CurrentEpoch: uint64(w.pick(4)), RunID: gossip.NoVote}
		if w.pick(2) == 0 {
			req.RunID = viewPeers[w.pick(3)]
		}
		s.Step(w.now, msg.IsMasterDownByAddr{Request: req})
	case r < 94 && len(w.open) > 0:
		s.Step(w.now, msg.LinkLocalAddr{ID: w.open[w.pick(len(w.open))].ID, Addr: settings.Addr{Host: "10.0.0.9", Port: 40000}})
	case r < 95:
		s.Step(w.now, msg.Set{Name: fmt.Sprintf("m%d", w.pick(4)), Args: []string{"down-after-milliseconds", fmt.Sprint(500 + w.pick(3000))}})
	case r < 96:
		s.Step(w.now, msg.Failover{Name: fmt.Sprintf("m%d", w.pick(4))})
	case r < 97:
		s.Step(w.now, msg.Reset{Pattern: fmt.Sprintf("m%d", w.pick(8))})
	default:
		w.now = w.now.Add(time.Duration(w.pick(20)) * time.Millisecond)
	}
	w.collect()
}

// TestViewFollowsEveryStep drives cores with random inputs: after every
// one the View kept up to date shows what a View built from scratch
// shows, and a View taken earlier still shows what it showed then.
func TestViewFollowsEveryStep(t *testing.T) {
	seeds, steps := 8, 4000
	if testing.Short() {
		seeds, steps = 2, 1000
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		w := newViewWorld(t, seed)
		var old *view.View
		var oldAt time.Time
		var oldShows [][]view.KV
		for i := 0; i < steps; i++ {
			w.step()
			if w.pick(3) == 0 {
				continue // let changes pile up between two Views
			}
			if err := w.s.CheckView(w.now); err != nil {
				t.Fatalf("seed %d, step %d: %v", seed, i, err)
			}
			if i%50 == 0 {
				if old != nil && !reflect.DeepEqual(viewShows(old, oldAt), oldShows) {
					t.Fatalf("seed %d, step %d: a View changed after it was returned", seed, i)
				}
				old, oldAt = w.s.View(), w.now
				oldShows = viewShows(old, oldAt)
			}
		}
	}
}

// viewShows is every instance map a View shows at at, without what it
// shows of the links and the hellos' times: those are shown as they are
// now (view.LinkCell, view.TimeCell).
func viewShows(v *view.View, at time.Time) [][]view.KV {
	out := v.Masters(at)
	for _, name := range v.MasterNames() {
		r, _ := v.Replicas(at, name)
		s, _ := v.Sentinels(at, name)
		out = append(append(out, r...), s...)
	}
	for k, kv := range out {
		var kept []view.KV
		for _, f := range kv {
			switch f.Key {
			case "link-pending-commands", "link-refcount", "last-ping-sent", "last-ok-ping-reply", "last-ping-reply", "last-hello-message":
				continue
			case "flags":
				f.Value = strings.NewReplacer(",disconnected", "", "disconnected,", "", "disconnected", "").Replace(f.Value)
			}
			kept = append(kept, f)
		}
		out[k] = kept
	}
	return out
}

// TestViewUnchangedIsShared: with nothing changed, View returns the same
// View; a hello from a known peer that changes nothing else leaves it
// too, its time shown through the peer's cell; a change of one peer
// object rebuilds that object under one master, and everything else is
// shared with the previous View.
func TestViewUnchangedIsShared(t *testing.T) {
	s, now := benchCore(t, 3)
	v := s.View()
	if s.View() != v {
		t.Fatal("View rebuilt with nothing changed")
	}
	h := gossip.Hello{SentinelIP: "10.0.1.1", SentinelPort: 26379, RunID: "1111111111111111111111111111111111111111",
		MasterName: "m001", MasterIP: "10.0.0.1", MasterPort: 7001}.Encode()
	s.Step(now.Add(time.Second), msg.HelloFromClient{Payload: h})
	if s.View() != v {
		t.Fatal("View rebuilt after a hello that changed nothing but its time")
	}
	if kv, _ := v.Sentinels(now.Add(time.Second), "m001"); fieldOf(kv[0], "last-hello-message") != "0" {
		t.Fatalf("the hello's time is not shown: %v", kv[0])
	}
	s.masters["m001"].sortedSentinels()[0].leader = "1111111111111111111111111111111111111111"
	s.views.changed(s.masters["m001"])
	v2 := s.View()
	if v2 == v {
		t.Fatal("View not rebuilt after a peer object changed")
	}
	if v2.At(0) != v.At(0) || v2.At(2) != v.At(2) || v2.At(1) == v.At(1) {
		t.Fatal("a change under m001 should rebuild m001 alone")
	}
	if v2.At(1).Inst != v.At(1).Inst || !sameViews(v2.At(1).Replicas, v.At(1).Replicas) ||
		v2.At(1).Sentinels[0] == v.At(1).Sentinels[0] || v2.At(1).Sentinels[1] != v.At(1).Sentinels[1] {
		t.Fatal("a change of one peer object should rebuild that object alone")
	}
	s.views.changedAll()
	if s.View() != v2 {
		t.Fatal("a View that looked at every master and found no change should be the previous one")
	}
	s.views.changed(s.masters["m002"])
	si := s.masters["m002"].sortedSentinels()[0]
	s.views.linkChanged(si.link)
	if s.View() != v2 {
		t.Fatal("a View that looked at a master and a link and found no change should be the previous one")
	}
	si.link.lastPongTime += 700
	s.views.linkChanged(si.link)
	if s.View() != v2 {
		t.Fatal("a link's change should go to its cell, not rebuild the View")
	}
	for _, name := range []string{"m001", "m002"} {
		kv, _ := v2.Sentinels(now.Add(time.Second), name)
		found := false
		for _, o := range kv {
			found = found || fieldOf(o, "runid") == si.runID && fieldOf(o, "last-ping-reply") == fmt.Sprint(ms(now.Add(time.Second))-si.link.lastPongTime)
		}
		if !found {
			t.Fatalf("%s: the shared link's change is not shown: %v", name, kv)
		}
	}
	kv, _ := v2.Sentinels(now.Add(time.Second), "m001")
	if got := fieldOf(kv[0], "last-hello-message"); got != "0" {
		t.Fatalf("last-hello-message %s, want 0", got)
	}
}

func fieldOf(kv []view.KV, key string) string {
	for _, f := range kv {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

// TestViewAgesAtQueryTime: a View shows ages against the time of the
// query, not the time it was built.
func TestViewAgesAtQueryTime(t *testing.T) {
	s, now := benchCore(t, 1)
	v := s.View()
	a, _ := v.Master(now.Add(1500*time.Millisecond), "m000")
	b, _ := s.View().Master(now.Add(1500*time.Millisecond), "m000")
	if !reflect.DeepEqual(a, b) || fieldOf(a, "last-ok-ping-reply") != "1500" {
		t.Fatalf("View %v\ncore %v", a, b)
	}
}
