package sim

import (
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// TestPingReplies: a master answering PING with -LOADING is alive (a valid
// reply); one answering with another error, such as -MISCONF, is SDOWN
// after down-after, and up again once it answers PONG.
func TestPingReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		err       string
		wantSDown bool
	}{
		{"loading stays up", LoadingError, false},
		{"masterdown stays up", "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", false},
		{"misconf goes down", MisconfError, true},
		{"noauth goes down", "NOAUTH Authentication required.", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Standard(t, int64(10+i), Topology{DownAfter: downAfter})
			unpromotable(c)
			settle(t, c, 2)
			c.Run(2 * time.Second)
			from := c.Now()
			c.SetPingError("r0", tt.err)
			c.Run(3 * downAfter)
			for _, n := range c.Nodes() {
				sd := masterEvents(c, from, n.Name, "+sdown")
				if !tt.wantSDown {
					if len(sd) != 0 {
						c.Fatalf("%s: master answering %q went SDOWN", n.Name, tt.err)
					}
					continue
				}
				if len(sd) != 1 {
					c.Fatalf("%s: %d +sdown for a master answering %q", n.Name, len(sd), tt.err)
				}
				if d := sd[0].At.Sub(from); d < downAfter-maxLatency || d > downAfter+1500*time.Millisecond {
					c.Fatalf("%s: +sdown %v after the errors began, want about down-after %v", n.Name, d, downAfter)
				}
			}
			if !tt.wantSDown {
				return
			}
			back := c.Now()
			c.SetPingError("r0", "")
			if !c.RunUntil(func() bool {
				return allNodes(c, func(n *Node) bool { return len(masterEvents(c, back, n.Name, "-sdown")) == 1 })
			}, 3*time.Second) {
				c.Fatalf("master answering PONG again is still SDOWN")
			}
		})
	}
}

// TestMasterReportingSlave: a master whose INFO turns to role:slave is
// SDOWN once it has reported it for down-after + 2 × INFO-PERIOD; the
// report itself comes with the next INFO, up to one INFO period late.
func TestMasterReportingSlave(t *testing.T) {
	t.Parallel()
	c := Standard(t, 20, Topology{DownAfter: downAfter})
	unpromotable(c)
	settle(t, c, 2)
	c.Run(3 * time.Second)
	info := time.Duration(settings.DefaultTiming().InfoPeriodMs) * time.Millisecond
	grace := downAfter + 2*info

	changed := c.Now()
	c.Server("r0").SlaveOf(settings.Addr{Host: "10.0.9.9", Port: 6379})
	c.Run(grace + info + 2*time.Second)
	for _, n := range c.Nodes() {
		rc := masterEvents(c, changed, n.Name, "-role-change")
		if len(rc) != 1 || !hasSuffix(rc[0].Msg, "new reported role is slave") {
			c.Fatalf("%s: role change events %v", n.Name, rc)
		}
		sd := masterEvents(c, changed, n.Name, "+sdown")
		if len(sd) != 1 {
			c.Fatalf("%s: %d +sdown for a master reporting slave", n.Name, len(sd))
		}
		if d := sd[0].At.Sub(rc[0].At); d < grace || d > grace+200*time.Millisecond {
			c.Fatalf("%s: +sdown %v after the role change was seen, want just over %v", n.Name, d, grace)
		}
		if d := sd[0].At.Sub(changed); d > grace+info+200*time.Millisecond {
			c.Fatalf("%s: +sdown %v after the change", n.Name, d)
		}
	}
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
