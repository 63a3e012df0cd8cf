package fakeredis

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/resptest"
)

func newPair(t *testing.T) (*Fleet, *Instance, *Instance) {
	t.Helper()
	f := NewFleet("127.0.0.1")
	t.Cleanup(f.Close)
	m, err := f.AddMaster()
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.AddReplica(m)
	if err != nil {
		t.Fatal(err)
	}
	return f, m, r
}

// infoOf parses an instance's INFO with the Sentinel core's own parser.
func infoOf(t *testing.T, inst *Instance) inforeply.Report {
	t.Helper()
	raw := resptest.Dial(t, inst.Addr()).Do("INFO")
	_, body, ok := strings.Cut(raw, "\r\n")
	if !ok || raw[0] != '$' {
		t.Fatalf("INFO reply %q", raw)
	}
	return inforeply.Parse(strings.TrimSuffix(body, "\r\n"))
}

func TestInfoDescribesReplication(t *testing.T) {
	_, m, r := newPair(t)
	mi := infoOf(t, m)
	if mi.Role != inforeply.RoleMaster || mi.RunID != m.RunID() {
		t.Fatalf("master INFO: role %v run id %q, want master %q", mi.Role, mi.RunID, m.RunID())
	}
	if len(mi.Replicas) != 1 || mi.Replicas[0].Port != r.Port() || mi.Replicas[0].Host != "127.0.0.1" {
		t.Fatalf("master INFO replicas %+v, want 127.0.0.1:%d", mi.Replicas, r.Port())
	}
	ri := infoOf(t, r)
	if ri.Role != inforeply.RoleSlave || ri.MasterHost != "127.0.0.1" || ri.MasterPort != m.Port() || !ri.MasterLinkUp {
		t.Fatalf("replica INFO %+v, want replica of %s with link up", ri, m.Addr())
	}
	if got, want := resptest.Dial(t, r.Addr()).Do("ROLE"),
		"*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:"+strconv.Itoa(m.Port())+"\r\n$9\r\nconnected\r\n:"; !strings.HasPrefix(got, want) {
		t.Fatalf("replica ROLE %q, want prefix %q", got, want)
	}
}

func TestPublishFansOutToReplicas(t *testing.T) {
	_, m, r := newPair(t)
	subM := resptest.Dial(t, m.Addr())
	subR := resptest.Dial(t, r.Addr())
	// The handshake a Sentinel pipelines on its pub/sub link.
	for _, s := range []*resptest.Conn{subM, subR} {
		s.Send("*2\r\n$4\r\nAUTH\r\n$1\r\np\r\n*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$1\r\nx\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n")
		for _, want := range []string{"+OK\r\n", "+OK\r\n", "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"} {
			if got := s.Reply(); got != want {
				t.Fatalf("handshake reply %q, want %q", got, want)
			}
		}
	}
	pub := resptest.Dial(t, m.Addr())
	if got := pub.Do("PUBLISH", "ch", "hello"); got != ":1\r\n" {
		t.Fatalf("PUBLISH on the master = %q, want :1", got)
	}
	msg := "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n"
	for name, s := range map[string]*resptest.Conn{"master": subM, "replica": subR} {
		if got := s.Reply(); got != msg {
			t.Fatalf("%s subscriber got %q, want %q", name, got, msg)
		}
	}
	if got := subM.Do("PING"); got != "*2\r\n$4\r\npong\r\n$0\r\n\r\n" {
		t.Fatalf("PING while subscribed = %q", got)
	}
}

func TestFailoverTransaction(t *testing.T) {
	f, m, r := newPair(t)
	other := resptest.Dial(t, r.Addr())
	other.Do("PING")
	sub := resptest.Dial(t, r.Addr())
	sub.Do("SUBSCRIBE", "ch")
	f.Kill(m)
	if ri := infoOf(t, r); ri.MasterLinkUp {
		t.Fatal("replica link still up after its master was killed")
	}
	c := resptest.Dial(t, r.Addr())
	for _, cmd := range [][]string{{"MULTI"}, {"SLAVEOF", "NO", "ONE"}, {"CONFIG", "REWRITE"},
		{"CLIENT", "KILL", "TYPE", "normal"}, {"CLIENT", "KILL", "TYPE", "pubsub"}} {
		want := "+QUEUED\r\n"
		if cmd[0] == "MULTI" {
			want = "+OK\r\n"
		}
		if got := c.Do(cmd...); got != want {
			t.Fatalf("%v = %q, want %q", cmd, got, want)
		}
	}
	if got := c.Do("EXEC"); !strings.HasPrefix(got, "*4\r\n+OK\r\n+OK\r\n:") {
		t.Fatalf("EXEC = %q", got)
	}
	if !other.Closed() || !sub.Closed() {
		t.Fatal("CLIENT KILL TYPE normal/pubsub left a connection open")
	}
	if ri := infoOf(t, r); ri.Role != inforeply.RoleMaster {
		t.Fatalf("after SLAVEOF NO ONE role %v, want master", ri.Role)
	}
	m2, err := f.AddMaster()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Do("SLAVEOF", "127.0.0.1", strconv.Itoa(m2.Port())); got != "+OK\r\n" {
		t.Fatalf("SLAVEOF = %q", got)
	}
	if ri := infoOf(t, r); ri.MasterPort != m2.Port() || !ri.MasterLinkUp {
		t.Fatalf("after SLAVEOF: %+v, want replica of %s with link up", ri, m2.Addr())
	}
	if mi := infoOf(t, m2); len(mi.Replicas) != 1 || mi.Replicas[0].Port != r.Port() {
		t.Fatalf("new master lists replicas %+v", mi.Replicas)
	}
}

func TestKillClosesEverything(t *testing.T) {
	f, m, _ := newPair(t)
	c := resptest.Dial(t, m.Addr())
	c.Do("PING")
	f.Kill(m)
	if !c.Closed() {
		t.Fatal("connection open after Kill")
	}
	if nc, err := net.Dial("tcp", m.Addr()); err == nil {
		nc.Close()
		t.Fatal("listener open after Kill")
	}
	if m.Alive() {
		t.Fatal("Alive after Kill")
	}
}

// TestResp3OneConnection: after HELLO 3 a connection gets its pub/sub
// confirmations and messages as pushes, takes any command while
// subscribed, and sees the push of its own PUBLISH before the reply, as
// Redis 7.0 serves a Sentinel's merged link.
func TestResp3OneConnection(t *testing.T) {
	_, m, _ := newPair(t)
	c := resptest.Dial(t, m.Addr())
	if got := c.Do("HELLO", "3"); !strings.HasPrefix(got, "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n") || !strings.Contains(got, "$5\r\nproto\r\n:3\r\n") {
		t.Fatalf("HELLO 3 = %q", got)
	}
	if got := c.Do("SUBSCRIBE", "ch"); got != ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatalf("SUBSCRIBE = %q", got)
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING while subscribed = %q", got)
	}
	if got := c.Do("INFO"); !strings.HasPrefix(got, "=") || !strings.Contains(got, "txt:# Server") {
		t.Fatalf("INFO = %.40q", got)
	}
	c.Send(resptest.Command("PUBLISH", "ch", "self"))
	if got := c.Reply(); got != ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$4\r\nself\r\n" {
		t.Fatalf("push = %q", got)
	}
	if got := c.Reply(); got != ":1\r\n" {
		t.Fatalf("PUBLISH = %q", got)
	}
	if got := resptest.Dial(t, m.Addr()).Do("HELLO", "4"); !strings.HasPrefix(got, "-NOPROTO") {
		t.Fatalf("HELLO 4 = %q", got)
	}
}
