package lint

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/config"
)

// conf returns a sentinel.conf monitoring mymaster with the given quorum,
// knowing others other Sentinels, plus extra lines.
func conf(quorum, others int, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sentinel monitor mymaster 127.0.0.1 6379 %d\n", quorum)
	for i := 0; i < others; i++ {
		fmt.Fprintf(&b, "sentinel known-sentinel mymaster 127.0.0.1 %d %040d\n", 26380+i, i+1)
	}
	for _, l := range extra {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// parse parses a sentinel.conf text.
func parse(t *testing.T, text string) *config.Config {
	t.Helper()
	c, err := config.Parse("/etc/sentinel.conf", []byte(text), nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return c
}

// fleet returns Facts for mymaster seen by n healthy Sentinels that all
// know each other, with the given master and replicas.
func fleet(n int, master Instance, replicas ...Instance) *Facts {
	f := &Facts{Masters: map[string]MasterFacts{}}
	var ids []string
	for i := 0; i < n; i++ {
		ids = append(ids, fmt.Sprintf("%040d", 100+i))
	}
	mf := MasterFacts{Master: master, Replicas: replicas}
	for i, id := range ids {
		addr := fmt.Sprintf("127.0.0.1:%d", 26379+i)
		f.Sentinels = append(f.Sentinels, SentinelFacts{Addr: addr, ID: id})
		var others []string
		for _, o := range ids {
			if o != id {
				others = append(others, o)
			}
		}
		mf.Views = append(mf.Views, SentinelView{Sentinel: addr, ID: id, Monitors: true, MasterAddr: master.Addr, Quorum: 2,
			Others: others, CKQuorum: fmt.Sprintf("OK %d usable Sentinels. Quorum and failover authorization can be reached", n), CKQuorumOK: true})
	}
	f.Masters["mymaster"] = mf
	return f
}

// goodMaster is a master that triggers no live rule.
func goodMaster() Instance {
	return Instance{Addr: "127.0.0.1:6379", Role: "master", MaxRTT: 200 * time.Microsecond,
		MinReplicasKnown: true, MinReplicasToWrite: 1, MinReplicasMaxLag: 10,
		UsedMemory: 1 << 20, TotalSystemMemory: 16 << 30, OpsPerSec: 100,
		Version: "7.0.15", FailoverState: true, FailoverACL: ACLCheck{User: "default", Verified: true}}
}

// goodReplica is a replica that triggers no live rule.
func goodReplica(port int) Instance {
	return Instance{Addr: fmt.Sprintf("127.0.0.1:%d", port), Role: "slave", MaxRTT: 200 * time.Microsecond,
		PriorityKnown: true, Priority: 100, ReadOnlyKnown: true, ReadOnly: true,
		Version: "7.0.15", FailoverState: true, FailoverACL: ACLCheck{User: "default", Verified: true}}
}

// ruleCase is one configuration (and optional facts) checked for one rule.
type ruleCase struct {
	name  string
	conf  string
	facts *Facts
	sla   time.Duration
	// redis is Options.RedisSentinels.
	redis *int
	// want is the expected severity when the rule triggers; nil when the
	// rule must not report anything.
	want *Severity
	// contains are substrings the reason must hold, fix those the fix
	// must hold.
	contains []string
	fix      []string
}

func sev(s Severity) *Severity { return &s }

func intp(n int) *int { return &n }

// runRuleCases checks every case for findings of rule.
func runRuleCases(t *testing.T, rule string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := Check(parse(t, tc.conf), tc.facts, Options{SLA: tc.sla, RedisSentinels: tc.redis})
			var got []Finding
			for _, f := range fs {
				if f.Rule == rule {
					got = append(got, f)
				}
			}
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("want no %s finding, got %+v", rule, got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one %s finding, got %d: %+v\nall: %+v", rule, len(got), got, fs)
			}
			f := got[0]
			if f.Severity != *tc.want {
				t.Errorf("severity %v, want %v", f.Severity, *tc.want)
			}
			if f.Fix == "" || f.Reason == "" {
				t.Errorf("empty reason or fix: %+v", f)
			}
			if f.Master != "mymaster" {
				t.Errorf("master %q", f.Master)
			}
			for _, s := range tc.contains {
				if !strings.Contains(f.Reason, s) {
					t.Errorf("reason lacks %q:\n%s", s, f.Reason)
				}
			}
			for _, s := range tc.fix {
				if !strings.Contains(f.Fix, s) {
					t.Errorf("fix lacks %q:\n%s", s, f.Fix)
				}
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
