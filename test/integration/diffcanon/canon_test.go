package diffcanon

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// ports of the logical instances in the synthetic recordings below.
var testPorts = map[string]int{"m": 6001, "p": 6002, "r": 6003, "s": 26001}

var testLabels = Labels{"127.0.0.1:6001": "m", "127.0.0.1:6002": "p", "127.0.0.1:6003": "r", "127.0.0.1:26001": "s"}

// raw builds a recording from compact lines "type [kind label]" the way
// a Sentinel would publish them; "+switch-master m>p" and "# stop" too.
func raw(lines ...string) []Raw {
	var out []Raw
	for _, l := range lines {
		f := strings.Fields(l)
		r := Raw{Type: f[0]}
		switch {
		case f[0] == Mark:
			r.Msg = f[1]
		case f[0] == "+switch-master":
			ab := strings.Split(f[1], ">")
			r.Msg = fmt.Sprintf("mymaster 127.0.0.1 %d 127.0.0.1 %d", testPorts[ab[0]], testPorts[ab[1]])
		case len(f) == 1:
			r.Msg = "1"
		case f[0] == "+new-epoch":
			r.Msg = f[1]
		case f[0] == "+vote-for-leader":
			r.Msg = "0123abcd " + f[1]
		case f[1] == "master":
			r.Msg = fmt.Sprintf("master mymaster 127.0.0.1 %d", testPorts[f[2]])
		case f[1] == "slave":
			r.Msg = fmt.Sprintf("slave 127.0.0.1:%d 127.0.0.1 %d @ mymaster 127.0.0.1 6001", testPorts[f[2]], testPorts[f[2]])
		case f[1] == "sentinel":
			r.Msg = fmt.Sprintf("sentinel 0123abcd 127.0.0.1 %d @ mymaster 127.0.0.1 6001", testPorts[f[2]])
		}
		out = append(out, r)
	}
	return out
}

func events(lines ...string) []Event {
	var out []Event
	for _, r := range raw(lines...) {
		out = append(out, Parse(r, testLabels))
	}
	return out
}

func strs(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.String())
	}
	return out
}

func TestSubjectAndParse(t *testing.T) {
	for _, tt := range []struct{ typ, msg, want string }{
		{"+sdown", "master mymaster 127.0.0.1 6001", "+sdown master:m"},
		{"+odown", "master mymaster 127.0.0.1 6001 #quorum 2/2", "+odown master:m"},
		{"+slave", "slave 127.0.0.1:6003 127.0.0.1 6003 @ mymaster 127.0.0.1 6002", "+slave slave:r"},
		{"-role-change", "slave 127.0.0.1:6002 127.0.0.1 6002 @ mymaster 127.0.0.1 6001 new reported role is master", "-role-change slave:p"},
		{"+sentinel", "sentinel 9f8e 127.0.0.1 26001 @ mymaster 127.0.0.1 6001", "+sentinel sentinel:s"},
		{"+sdown", "slave 127.0.0.1:7777 127.0.0.1 7777 @ mymaster 127.0.0.1 6001", "+sdown slave:?"},
		{"+new-epoch", "12", "+new-epoch"},
		{"+vote-for-leader", "9f8e 3", "+vote-for-leader"},
		{"+switch-master", "mymaster 127.0.0.1 6001 127.0.0.1 6002", "+switch-master m>p"},
		{"+tilt", "#tilt mode entered", "+tilt"},
		{Mark, "stop", "# stop"},
	} {
		if got := Parse(Raw{Type: tt.typ, Msg: tt.msg}, testLabels).String(); got != tt.want {
			t.Errorf("Parse(%s %s) = %q, want %q", tt.typ, tt.msg, got, tt.want)
		}
	}
}

func TestParseReconfig(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{"[mymaster][leader][start][127.0.0.1][6001][127.0.0.1][6002]", "reconfig leader start m>p"},
		{"[mymaster][observer][start][127.0.0.1][6001][127.0.0.1][6002]", "reconfig observer start m>p"},
		{"[mymaster][leader][start][127.0.0.1][6001]", "reconfig-bad-argv [mymaster][leader][start][127.0.0.1][6001]"},
		{"mymaster leader start", "reconfig-bad-argv mymaster leader start"},
	} {
		if got := ParseReconfig(tt.line, testLabels); got != tt.want {
			t.Errorf("ParseReconfig(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestRules(t *testing.T) {
	for _, tt := range []struct {
		name string
		rule func([]Event) []Event
		in   []string
		want []string
	}{
		{"a lost election is dropped", dropLostElections,
			[]string{"+try-failover master m", "+vote-for-leader", "-failover-abort-not-elected master m", "+try-failover master m", "+elected-leader master m"},
			[]string{"+vote-for-leader", "+try-failover master:m", "+elected-leader master:m"}},
		{"an election ended by the winner's switch is dropped", dropLostElections,
			[]string{"+try-failover master m", "+config-update-from sentinel s", "+switch-master m>p"},
			[]string{"+config-update-from sentinel:s", "+switch-master m>p"}},
		{"an election aborted for want of a replica was won", dropLostElections,
			[]string{"+try-failover master m", "+elected-leader master m", "-failover-abort-no-good-slave master m"},
			[]string{"+try-failover master:m", "+elected-leader master:m", "-failover-abort-no-good-slave master:m"}},
		{"an observer's detection before its switch is dropped", dropSwitchedDetection,
			[]string{"+sdown master m", "+odown master m", "-odown master m", "+switch-master m>p", "+odown master p"},
			[]string{"+switch-master m>p", "+odown master:p"}},
		{"an observer's flap before its switch stays", dropSwitchedDetection,
			[]string{"+sdown master m", "-sdown master m", "+sdown master m", "+switch-master m>p"},
			[]string{"-sdown master:m", "+switch-master m>p"}},
		{"a leader keeps +sdown and +odown, drops -odown", dropSwitchedDetection,
			[]string{"+sdown master m", "+odown master m", "+elected-leader master m", "-odown master m", "+failover-end master m", "+switch-master m>p"},
			[]string{"+sdown master:m", "+odown master:m", "+elected-leader master:m", "+failover-end master:m", "+switch-master m>p"}},
		{"without a switch all stay", dropSwitchedDetection,
			[]string{"+sdown master m", "+odown master m", "-odown master m", "+odown master m"},
			[]string{"+sdown master:m", "+odown master:m", "-odown master:m", "+odown master:m"}},
		{"an observer's view of the promotion is dropped", dropObserverPromotionRole,
			[]string{"-role-change slave p", "-role-change slave r", "+switch-master m>p", "-role-change slave m"},
			[]string{"-role-change slave:r", "+switch-master m>p", "-role-change slave:m"}},
		{"the leader's view of the promotion stays", dropObserverPromotionRole,
			[]string{"+elected-leader master m", "-role-change slave p", "+promoted-slave slave p", "+switch-master m>p"},
			[]string{"+elected-leader master:m", "-role-change slave:p", "+promoted-slave slave:p", "+switch-master m>p"}},
		{"redis-sentinel's flap of a dead instance", dropRedisDeadFlap,
			[]string{"+sdown slave m", "-sdown slave m", "+sdown slave m", "+reboot slave m", "-sdown slave m"},
			[]string{"+sdown slave:m", "+reboot slave:m", "-sdown slave:m"}},
		{"convert-to-slave goes to the facts", dropConvertToSlave,
			[]string{"-role-change slave m", "+convert-to-slave slave m", "+role-change slave m"},
			[]string{"-role-change slave:m", "+role-change slave:m"}},
	} {
		got := strings.Join(strs(tt.rule(events(tt.in...))), " | ")
		if want := strings.Join(tt.want, " | "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
}

func TestDropRedisRefailovers(t *testing.T) {
	for _, tt := range []struct {
		name  string
		redis bool
		in    [][]string // one recording per Sentinel
		want  [][]string
		n     int
	}{
		{"the new master marked down and up right after the switch", true,
			[][]string{{"+switch-master m>p", "+slave slave m", "+sdown master p", "+sdown slave m", "-sdown master p", "+sdown master p"}},
			[][]string{{"+switch-master m>p", "+slave slave:m", "+sdown slave:m", "+sdown master:p"}}, 2},
		{"not when something else about the new master came first", true,
			[][]string{{"+switch-master m>p", "+reboot master p", "+sdown master p", "-sdown master p"}},
			[][]string{{"+switch-master m>p", "+reboot master:p", "+sdown master:p", "-sdown master:p"}}, 0},
		{"a failover of the new master, aborted, and its votes everywhere", true,
			[][]string{
				{"+switch-master m>p", "+sdown master p", "+odown master p", "+new-epoch 2", "+try-failover master p", "+vote-for-leader 2",
					"+sdown slave m", "-sdown master p", "-odown master p", "+elected-leader master p", "+failover-state-select-slave master p",
					"-failover-abort-no-good-slave master p", "+sdown master p"},
				{"+new-epoch 1", "+switch-master m>p", "+new-epoch 2", "+vote-for-leader 2", "+sdown slave m"},
			},
			[][]string{
				{"+switch-master m>p", "+sdown slave:m", "+sdown master:p"},
				{"+new-epoch", "+switch-master m>p", "+sdown slave:m"},
			}, 12},
		{"a failover of the new master that switched is not absorbed", true,
			[][]string{{"+switch-master m>p", "+sdown master p", "+odown master p", "+new-epoch 2", "+try-failover master p", "+switch-master p>r"}},
			[][]string{{"+switch-master m>p", "+sdown master:p", "+odown master:p", "+new-epoch", "+try-failover master:p", "+switch-master p>r"}}, 0},
		{"go-sentinel's recordings are held to it", false,
			[][]string{{"+switch-master m>p", "+sdown master p", "-sdown master p"}},
			[][]string{{"+switch-master m>p", "+sdown master:p", "-sdown master:p"}}, 0},
	} {
		var recs []Recording
		for _, lines := range tt.in {
			recs = append(recs, Recording{Redis: tt.redis, Events: raw(lines...)})
		}
		got, n := DropRedisRefailovers(recs)
		if n != tt.n {
			t.Errorf("%s: removed %d events, want %d", tt.name, n, tt.n)
		}
		for k := range got {
			var evs []Event
			for _, r := range got[k].Events {
				evs = append(evs, Parse(r, testLabels))
			}
			if g, w := strings.Join(strs(evs), " | "), strings.Join(tt.want[k], " | "); g != w {
				t.Errorf("%s, Sentinel %d:\n got %s\nwant %s", tt.name, k, g, w)
			}
		}
	}
}

// TestRedisSwitchedAgain: a redis-sentinel run that failed the healthy
// new master over again is told apart, so the scenario is run again; a
// second switch that did not start with hazard (b), or in go-sentinel's
// recording, is not.
func TestRedisSwitchedAgain(t *testing.T) {
	for _, tt := range []struct {
		name  string
		redis bool
		in    []string
		want  bool
	}{
		{"hazard (b) carried through", true,
			[]string{"+switch-master m>p", "+slave slave m", "+sdown master p", "+odown master p", "+try-failover master p", "+switch-master p>r"}, true},
		{"hazard (b) that aborted", true,
			[]string{"+switch-master m>p", "+sdown master p", "+try-failover master p", "-failover-abort-no-good-slave master p", "-sdown master p"}, false},
		{"a second switch after something else about the new master", true,
			[]string{"+switch-master m>p", "+reboot master p", "+sdown master p", "+switch-master p>r"}, false},
		{"one switch", true, []string{"+switch-master m>p", "+sdown slave m"}, false},
		{"go-sentinel is held to it", false,
			[]string{"+switch-master m>p", "+sdown master p", "+switch-master p>r"}, false},
	} {
		_, got := RedisSwitchedAgain([]Recording{{Sentinel: "A0", Redis: tt.redis, Events: raw(tt.in...)}})
		if got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestGroup(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []string
		want []string
	}{
		{"election run sorted and deduplicated",
			[]string{"+vote-for-leader", "+new-epoch", "+sdown master m", "+new-epoch", "+vote-for-leader", "+config-update-from sentinel s"},
			[]string{"{+new-epoch, +sdown master:m, +vote-for-leader}", "+config-update-from sentinel:s"}},
		{"a flap is not hidden",
			[]string{"+sdown master m", "-sdown master m", "+sdown master m"},
			[]string{"+sdown master:m", "-sdown master:m", "+sdown master:m"}},
		{"a replica's sdown is not in the election run",
			[]string{"+sdown slave m", "+sdown slave r"},
			[]string{"+sdown slave:m", "+sdown slave:r"}},
		{"discovery sorted, counts kept",
			[]string{"+switch-master m>p", "+slave slave r", "+slave slave m", "+slave slave r"},
			[]string{"+switch-master m>p", "{+slave slave:m, +slave slave:r, +slave slave:r}"}},
		{"an instance's recovery sorted, another instance's apart",
			[]string{"+sdown slave m", "-sdown slave m", "-role-change slave m", "-sdown slave r", "+role-change slave m"},
			[]string{"+sdown slave:m", "{-role-change slave:m, -sdown slave:m}", "-sdown slave:r", "+role-change slave:m"}},
		{"a repeated event in a deduplicated run reads as one",
			[]string{"+new-epoch", "+new-epoch", "+switch-master m>p"},
			[]string{"+new-epoch", "+switch-master m>p"}},
	} {
		got := strings.Join(Group(events(tt.in...)), " | ")
		if want := strings.Join(tt.want, " | "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
}

// Recorded (as canonical lines) from redis-sentinel 7.0.15: a master
// killed, Sentinel 0 leads.
var (
	leader = []string{"+sdown master m", "+odown master m", "+new-epoch", "+try-failover master m", "+vote-for-leader",
		"+elected-leader master m", "+failover-state-select-slave master m", "+selected-slave slave p",
		"+failover-state-send-slaveof-noone slave p", "+failover-state-wait-promotion slave p", "-role-change slave p",
		"+promoted-slave slave p", "+failover-state-reconf-slaves master m", "+slave-reconf-sent slave r",
		"+slave-reconf-inprog slave r", "+slave-reconf-done slave r", "+failover-end master m", "+switch-master m>p",
		"+slave slave r", "+slave slave m", "+sdown slave m"}
	observer = []string{"+sdown master m", "+new-epoch", "+vote-for-leader", "+config-update-from sentinel s",
		"+switch-master m>p", "+slave slave r", "+slave slave m", "+sdown slave m"}
	leaderReconf   = []string{"[mymaster][leader][start][127.0.0.1][6001][127.0.0.1][6002]"}
	observerReconf = []string{"[mymaster][observer][start][127.0.0.1][6001][127.0.0.1][6002]"}
)

// edit returns seq with the event at index at replaced by the lines with
// (none: removed).
func edit(seq []string, at int, with ...string) []string {
	out := append([]string(nil), seq[:at]...)
	out = append(out, with...)
	return append(out, seq[at+1:]...)
}

func side(name string, seqs [][]string, reconf [][]string) Side {
	s := Side{Name: name}
	var recs []Recording
	for i, seq := range seqs {
		rc := pick(seq) // reconfig lines follow the leader unless given
		if reconf != nil {
			rc = reconf[i]
		}
		// Side A stands for redis-sentinel, B for go-sentinel.
		r := Recording{Sentinel: fmt.Sprintf("%s%d", name, i), Events: raw(seq...), Reconfig: rc, Redis: name == "A"}
		recs = append(recs, r)
	}
	recs, _ = DropRedisRefailovers(recs)
	for _, r := range recs {
		s.Sentinels = append(s.Sentinels, Canonicalize(r, testLabels, nil))
	}
	s.Facts = Facts(recs, testLabels, nil)
	return s
}

// TestCompareAbsorbsRaces: what redis-sentinel does differently from run
// to run compares equal.
func TestCompareAbsorbsRaces(t *testing.T) {
	base := side("B", [][]string{leader, observer, observer}, [][]string{leaderReconf, observerReconf, observerReconf})
	for _, tt := range []struct {
		name string
		seqs [][]string
	}{
		{"redis-sentinel flaps a dead replica (its reconnect defect)",
			[][]string{leader, observer, edit(observer, 7, "+sdown slave m", "-sdown slave m", "+sdown slave m")}},
		{"redis-sentinel flaps the dead master on an observer before its switch",
			[][]string{leader, edit(observer, 0, "+sdown master m", "-sdown master m", "+sdown master m"), observer}},
		{"redis-sentinel marks the new master down and up right after the switch (hazard b)",
			[][]string{edit(leader, 19, "+slave slave m", "+sdown master p", "-sdown master p"), observer, observer}},
		{"another Sentinel leads", [][]string{observer, observer, leader}},
		{"an observer is switched before its own down-after ran out",
			[][]string{leader, edit(observer, 0), observer}},
		{"an observer reaches ODOWN before the switch, another sees the promotion",
			[][]string{leader, edit(observer, 2, "+vote-for-leader", "+odown master m"), edit(observer, 3, "-role-change slave p", "+config-update-from sentinel s")}},
		{"an observer is asked to vote before its own +sdown",
			[][]string{leader, {"+new-epoch", "+vote-for-leader", "+sdown master m", "+config-update-from sentinel s",
				"+switch-master m>p", "+slave slave m", "+slave slave r", "+sdown slave m"}, observer}},
		{"a candidate lost the election and was switched by the winner",
			[][]string{leader, edit(observer, 0, "+sdown master m", "+odown master m", "+new-epoch", "+try-failover master m"), observer}},
		{"the leader lost ODOWN before its switch",
			[][]string{edit(leader, 16, "-odown master m", "+failover-end master m"), observer, observer}},
		{"a split vote, then the same leader wins",
			[][]string{edit(leader, 5, "-failover-abort-not-elected master m", "+new-epoch", "+try-failover master m", "+vote-for-leader", "+elected-leader master m"),
				edit(observer, 2, "+vote-for-leader", "+new-epoch", "+vote-for-leader"), observer}},
	} {
		if rep := Compare(side("A", tt.seqs, nil), base); rep != "" {
			t.Errorf("%s: differ:\n%s", tt.name, rep)
		}
	}
}

func pick(seq []string) []string {
	for _, e := range seq {
		if e == "+elected-leader master m" {
			return leaderReconf
		}
	}
	return observerReconf
}

// TestCompareCatchesDifferences: what is not a race of redis-sentinel
// shows, with a diff naming the event.
func TestCompareCatchesDifferences(t *testing.T) {
	base := side("A", [][]string{leader, observer, observer}, [][]string{leaderReconf, observerReconf, observerReconf})
	for _, tt := range []struct {
		name   string
		seqs   [][]string
		reconf [][]string
		want   string
	}{
		{"a missing event", [][]string{edit(leader, 20), observer, observer},
			[][]string{leaderReconf, observerReconf, observerReconf}, "- +sdown slave:m"},
		{"a flap while the master is dead", [][]string{leader, edit(observer, 0, "+sdown master m", "-sdown master m", "+sdown master m"), observer},
			[][]string{leaderReconf, observerReconf, observerReconf}, "+ -sdown master:m"},
		{"a flap of the dead old master after the switch", [][]string{leader, edit(observer, 7, "+sdown slave m", "-sdown slave m", "+sdown slave m"), observer},
			[][]string{leaderReconf, observerReconf, observerReconf}, "+ -sdown slave:m"},
		{"the new master marked down and up after the switch", [][]string{edit(leader, 19, "+slave slave m", "+sdown master p", "-sdown master p"), observer, observer},
			[][]string{leaderReconf, observerReconf, observerReconf}, "+ +sdown master:p"},
		{"an event repeated outside a run", [][]string{leader, edit(observer, 7, "+sdown slave m", "+sdown slave m"), observer},
			[][]string{leaderReconf, observerReconf, observerReconf}, "+ +sdown slave:m"},
		{"events in the wrong order", [][]string{edit(edit(leader, 14, "+slave-reconf-done slave r"), 15, "+slave-reconf-inprog slave r"), observer, observer},
			[][]string{leaderReconf, observerReconf, observerReconf}, "+slave-reconf-inprog slave:r"},
		{"two leaders", [][]string{leader, leader, observer},
			[][]string{leaderReconf, leaderReconf, observerReconf}, "+elected-leader"},
		{"the reconfig script not run", [][]string{leader, observer, observer},
			[][]string{leaderReconf, nil, observerReconf}, "- reconfig observer start m>p"},
		{"the reconfig script run with other arguments", [][]string{leader, observer, observer},
			[][]string{{"[mymaster][leader][start][127.0.0.1][6002][127.0.0.1][6001]"}, observerReconf, observerReconf}, "+ reconfig leader start p>m"},
		{"nobody converted the old master", [][]string{leader, observer, edit(observer, 7, "+sdown slave m", "+convert-to-slave slave m")},
			[][]string{leaderReconf, observerReconf, observerReconf}, "fleet facts differ"},
	} {
		rep := Compare(base, side("B", tt.seqs, tt.reconf))
		if rep == "" {
			t.Errorf("%s: compared equal", tt.name)
		} else if !strings.Contains(rep, tt.want) {
			t.Errorf("%s: the report lacks %q:\n%s", tt.name, tt.want, rep)
		}
	}
}

func TestCheckNotify(t *testing.T) {
	rec := Recording{
		Events: []Raw{
			{Type: "+sdown", Msg: "master mymaster 127.0.0.1 6001"},
			{Type: "+slave", Msg: "slave 127.0.0.1:6003 127.0.0.1 6003 @ mymaster 127.0.0.1 6001"}, // notice: no script
			{Type: "+new-epoch", Msg: "1"},
			{Type: "-role-change", Msg: "slave 127.0.0.1:6002 ..."}, // verbose: no script
		},
		Notify: []string{"[+new-epoch][1]", "[+sdown][master mymaster 127.0.0.1 6001]"},
	}
	if p := CheckNotify(rec); len(p) != 0 {
		t.Errorf("consistent recording: %q", p)
	}
	for _, tt := range []struct {
		name   string
		notify []string
		want   string
	}{
		{"missing", []string{"[+new-epoch][1]"}, "[+sdown][master mymaster 127.0.0.1 6001]: the notification-script ran 0 times, redis-sentinel 7.0 runs it 1 times"},
		{"repeated", append(rec.Notify, "[+new-epoch][1]"), "[+new-epoch][1]: the notification-script ran 2 times, redis-sentinel 7.0 runs it 1 times"},
		{"other text", []string{"[+new-epoch][2]", "[+sdown][master mymaster 127.0.0.1 6001]"}, "[+new-epoch][2]: the notification-script ran 1 times, redis-sentinel 7.0 runs it 0 times"},
		{"argv joined", []string{"[+new-epoch 1]", "[+sdown][master mymaster 127.0.0.1 6001]"}, "called with 1 arguments"},
	} {
		r := rec
		r.Notify = tt.notify
		if p := strings.Join(CheckNotify(r), "\n"); !strings.Contains(p, tt.want) {
			t.Errorf("%s: problems %q lack %q", tt.name, p, tt.want)
		}
	}

	// A master created by SENTINEL MONITOR has no script until SET
	// gives it one; a restarted Sentinel ran one unseen +monitor.
	rec = Recording{
		Events: []Raw{
			{Type: Mark, Msg: "stop"}, {Type: Mark, Msg: "start"},
			{Type: "-monitor", Msg: "master mymaster 127.0.0.1 6001"},
			{Type: "+monitor", Msg: "master mymaster 127.0.0.1 6001 quorum 2"},
			{Type: "+set", Msg: "master mymaster 127.0.0.1 6001 down-after-milliseconds 1000"},
			{Type: "+set", Msg: "master mymaster 127.0.0.1 6001 notification-script /x/notify.sh"},
		},
		Notify: []string{"[+monitor][master mymaster 127.0.0.1 6001 quorum 2]", "[-monitor][master mymaster 127.0.0.1 6001]",
			"[+set][master mymaster 127.0.0.1 6001 notification-script /x/notify.sh]"},
	}
	if p := CheckNotify(rec); len(p) != 0 {
		t.Errorf("MONITOR and restart: %q", p)
	}
}

func TestParseAllowances(t *testing.T) {
	doc := "# x\n\n" + AllowSection + "\n\ntext\n\n| scenario | canonical event | reason |\n|---|---|---|\n" +
		"| kill-master | `+role-change slave` | a reason |\n| * | +tilt | another |\n\nafter\n\n## Next\n| a | b | c |\n"
	allow, err := ParseAllowances(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(allow) != 2 || allow[0] != (Allowance{"kill-master", "+role-change slave", "a reason"}) || allow[1].Scenario != "*" {
		t.Fatalf("got %+v", allow)
	}
	drop := Dropper(allow, "kill-master")
	for s, want := range map[string]bool{
		"+role-change slave:m": true, "+role-change master:m": false, "-role-change slave:m": false,
		"+tilt": true, "+role-changes slave:m": false,
	} {
		if drop(s) != want {
			t.Errorf("kill-master drop(%q) = %v", s, !want)
		}
	}
	if Dropper(allow, "other")("+role-change slave:m") {
		t.Error("an allowance applied to another scenario")
	}
	if _, err := ParseAllowances(strings.Replace(doc, "| a reason |", "| |", 1)); err == nil {
		t.Error("a row without a reason was accepted")
	}
	if _, err := ParseAllowances("# no section\n"); err == nil {
		t.Error("a document without the section was accepted")
	}
	empty, err := ParseAllowances(AllowSection + "\n\n| scenario | canonical event | reason |\n|---|---|---|\n")
	if err != nil || len(empty) != 0 {
		t.Errorf("empty table: %v %v", empty, err)
	}
}

func TestDiff(t *testing.T) {
	got := strings.Join(Diff([]string{"a", "b", "c"}, []string{"a", "c", "d"}), ",")
	if got != "  a,- b,  c,+ d" {
		t.Errorf("Diff = %q", got)
	}
}

// TestCompatibilityAllowances: the project's allowance table parses, and
// every row names a scenario of the harness or "*" and a canonical event.
func TestCompatibilityAllowances(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	allow, err := ParseAllowances(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range allow {
		if !strings.HasPrefix(a.Event, "+") && !strings.HasPrefix(a.Event, "-") && !strings.HasPrefix(a.Event, "reconfig") {
			t.Errorf("allowance %+v does not name a canonical event", a)
		}
	}
}
