package monitor

import (
	"math/rand"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

func masterCore(t *testing.T, quorum int) *Sentinel {
	t.Helper()
	p := settings.Persisted{MyID: GenerateID(rand.New(rand.NewSource(11))), Masters: []settings.MasterSpec{
		settings.NewMasterSpec("m", settings.Addr{Host: "127.0.0.1", Port: 6379}, quorum),
	}}
	s := New(p, Options{Port: 26379}, rand.New(rand.NewSource(12)), t0)
	s.Ready()
	return s
}

func TestIsMasterDownByAddr(t *testing.T) {
	const other = "1111111111111111111111111111111111111111"
	const third = "2222222222222222222222222222222222222222"
	s := masterCore(t, 2)
	// Unknown master: not down, no vote.
	if r := ask(s, t0, gossip.AskRequest{IP: "10.0.0.9", Port: 6379, CurrentEpoch: 1, RunID: other}); r != gossip.NoVoteReply() {
		t.Fatalf("unknown master: %+v", r)
	}
	// Known, up, no vote asked.
	if r := ask(s, t0, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, RunID: gossip.NoVote}); r != gossip.NoVoteReply() {
		t.Fatalf("no vote: %+v", r)
	}
	// First vote request for epoch 3 wins the vote and raises our epoch.
	r := ask(s, t0, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, CurrentEpoch: 3, RunID: other})
	if r.Leader != other || r.LeaderEpoch != 3 || s.CurrentEpoch() != 3 {
		t.Fatalf("vote: %+v epoch %d", r, s.CurrentEpoch())
	}
	out := s.Ready()
	types := map[string]bool{}
	for _, e := range out.Events() {
		types[string(e.Type)] = true
	}
	if !types["+new-epoch"] || !types["+vote-for-leader"] {
		t.Errorf("events %v", out.Events())
	}
	persisted := false
	for _, a := range out.Actions {
		_, ok := a.(msg.PersistConfig)
		persisted = persisted || ok
	}
	if !persisted {
		t.Error("a vote must be persisted before it is answered")
	}
	if s.Snapshot().Masters[0].LeaderEpoch != 3 {
		t.Error("leader-epoch not in the snapshot")
	}
	// A second asker in the same epoch gets the first vote back.
	if r := ask(s, t0, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, CurrentEpoch: 3, RunID: third}); r.Leader != other || r.LeaderEpoch != 3 {
		t.Fatalf("second asker: %+v", r)
	}
	// An older epoch does not change the vote.
	if r := ask(s, t0, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, CurrentEpoch: 2, RunID: third}); r.Leader != other {
		t.Fatalf("older epoch: %+v", r)
	}
	// A newer epoch gets a new vote.
	if r := ask(s, t0, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, CurrentEpoch: 4, RunID: third}); r.Leader != third || r.LeaderEpoch != 4 {
		t.Fatalf("newer epoch: %+v", r)
	}
}

func TestMasterDownOnlyWhenSDownAndNotInTilt(t *testing.T) {
	s := masterCore(t, 2)
	now := t0
	// Never answered: SDOWN after down-after (30 s default).
	for i := 0; i < 320; i++ {
		now = now.Add(100 * time.Millisecond)
		s.Tick(now, now)
	}
	if r := ask(s, now, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, RunID: gossip.NoVote}); !r.Down {
		t.Fatal("a master that never answered for 32 s must be down")
	}
	s.Tick(now.Add(5*time.Second), now.Add(5*time.Second)) // a 5 s stall: TILT
	if on, _ := s.Tilt(); !on {
		t.Fatal("no tilt")
	}
	if r := ask(s, now, gossip.AskRequest{IP: "127.0.0.1", Port: 6379, RunID: gossip.NoVote}); r.Down {
		t.Fatal("in TILT the reply must say not down")
	}
}

func TestScriptQueue(t *testing.T) {
	s := masterCore(t, 2)
	s.masters["m"].settings.NotificationScript = "/bin/notify"
	s.event(event.LevelWarning, event.SDown, &s.masters["m"].instance, "")
	s.event(event.LevelNotice, event.Replica, &s.masters["m"].instance, "") // notice: no script
	s.Ready()
	now := t0
	s.runScripts(ms(now))
	out := s.Ready()
	if len(out.Actions) != 1 {
		t.Fatalf("actions %#v", out.Actions)
	}
	st := out.Actions[0].(msg.StartScript)
	if st.Path != "/bin/notify" || len(st.Args) != 2 || st.Args[0] != "+sdown" || st.Args[1] != "master m 127.0.0.1 6379" {
		t.Fatalf("start %#v", st)
	}
	s.Step(now, msg.ScriptStarted{ID: st.ID, PID: 42})
	// Exit code 1 is retried after SCRIPT-RETRY-DELAY.
	s.Step(now, msg.ScriptExited{ID: st.ID, ExitCode: 1})
	ps := s.PendingScripts(now)
	if len(ps) != 1 || ps[0].Running || ps[0].RunDelay != 30*time.Second || ps[0].RetryNum != 1 {
		t.Fatalf("pending %+v", ps)
	}
	s.runScripts(ms(now.Add(29 * time.Second)))
	if len(s.Ready().Actions) != 0 {
		t.Fatal("retried too early")
	}
	s.runScripts(ms(now.Add(31 * time.Second)))
	st2 := s.Ready().Actions[0].(msg.StartScript)
	s.Step(now, msg.ScriptStarted{ID: st2.ID, PID: 43})
	s.Ready()
	// Running too long: killed with -script-timeout.
	s.runScripts(ms(now.Add(31*time.Second + 61*time.Second)))
	out = s.Ready()
	if _, ok := out.Actions[0].(msg.KillScript); !ok || out.Events()[0].Type != "-script-timeout" || out.Events()[0].Msg != "/bin/notify 43" {
		t.Fatalf("timeout: %#v %#v", out.Actions, out.Events())
	}
	// Exit code 2 is final, with -script-error.
	s.Step(now, msg.ScriptExited{ID: st2.ID, ExitCode: 2})
	out = s.Ready()
	found := false
	for _, e := range out.Events() {
		found = found || (e.Type == "-script-error" && e.Msg == "/bin/notify 0 2")
	}
	if !found || len(s.PendingScripts(now)) != 0 {
		t.Fatalf("events %#v pending %d", out.Events(), len(s.PendingScripts(now)))
	}
}

// ask steps s with an IS-MASTER-DOWN-BY-ADDR at now and returns the reply.
func ask(s *Sentinel, now time.Time, req gossip.AskRequest) gossip.AskReply {
	ans, err := s.Step(now, msg.IsMasterDownByAddr{Request: req})
	if err != nil {
		panic(err)
	}
	return ans.(gossip.AskReply)
}

// TestLeaderCountsOneEpoch replays chaos seeds 7495 and 8923 of fleet 1
// (5 Sentinels, quorum 3): this Sentinel started its failover in epoch
// 14 and voted for itself there; a newer election raised the current
// epoch to 15, where two peers vote for it. Its own vote of 14 does not
// add up with theirs: when its vote of 15 went to another candidate it
// is not elected; when that vote is still free, it casts it for itself,
// is elected in 15 and goes on with 15 as its failover's epoch.
func TestLeaderCountsOneEpoch(t *testing.T) {
	const (
		a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		c = "cccccccccccccccccccccccccccccccccccccccc"
		d = "dddddddddddddddddddddddddddddddddddddddd"
		e = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
	)
	type vote struct {
		leader string
		epoch  uint64
	}
	s := masterCore(t, 3)
	m := s.masters["m"]
	now := ms(t0)
	setup := func(mine vote, votes map[string]vote) {
		for k, id := range []string{a, c, d, e} {
			si := m.sentinels[id]
			if si == nil {
				si = s.createSentinel(m, settings.Addr{Host: "10.0.0." + string(rune('1'+k)), Port: 26379}, id, now)
			}
			v := votes[id]
			if v.leader == "me" {
				v.leader = s.myID
			}
			si.leader, si.leaderEpoch = v.leader, v.epoch
		}
		if mine.leader == "me" {
			mine.leader = s.myID
		}
		s.currentEpoch = 15
		m.failoverEpoch = 14
		m.leader, m.leaderEpoch = mine.leader, mine.epoch
	}
	// Our vote of 15 went to a, which asked first.
	setup(vote{a, 15}, map[string]vote{a: {a, 15}, c: {"me", 15}, d: {"me", 15}, e: {"me", 14}})
	if w := s.leader(m, now); w != "" {
		t.Fatalf("elected %q with 2 votes of epoch 15 and our own of 14", w)
	}
	if m.leader != a || m.leaderEpoch != 15 || s.currentEpoch != 15 || m.failoverEpoch != 14 {
		t.Fatalf("the tally changed the state: vote %s %d, current epoch %d, failover epoch %d",
			m.leader, m.leaderEpoch, s.currentEpoch, m.failoverEpoch)
	}
	// Our last vote is our own of 14: the step casts it in 15.
	s.Ready()
	setup(vote{"me", 14}, map[string]vote{c: {"me", 15}, d: {"me", 15}, e: {"me", 14}})
	if w := s.leader(m, now); w != s.myID {
		t.Fatalf("winner %q with 2 peers' votes of 15 and our free vote of 15, want %s", w, s.myID)
	}
	if m.leader != s.myID || m.leaderEpoch != 15 || m.failoverEpoch != 15 {
		t.Fatalf("vote %s %d, failover epoch %d: want our own vote of 15 and failover epoch 15",
			m.leader, m.leaderEpoch, m.failoverEpoch)
	}
	var voted, persisted bool
	out := s.Ready()
	for _, ev := range out.Events() {
		voted = voted || (ev.Type == event.VoteForLeader && ev.Msg == s.myID+" 15")
	}
	for _, act := range out.Actions {
		_, ok := act.(msg.PersistConfig)
		persisted = persisted || ok
	}
	if !voted || !persisted {
		t.Fatalf("our vote of 15 must be announced (%v) and persisted (%v)", voted, persisted)
	}
	// Three votes of 14, the failover's epoch, are no longer a majority
	// once the current epoch is 15.
	setup(vote{"me", 14}, map[string]vote{a: {"me", 14}, c: {"me", 14}, e: {c, 15}})
	if w := s.leader(m, now); w != "" {
		t.Fatalf("elected %q with votes of epoch 14 in epoch 15", w)
	}
}
