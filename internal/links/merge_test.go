package links

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// skipUnmerged skips a test of riding links when the run keeps two.
func skipUnmerged(t *testing.T) {
	t.Helper()
	if !mergeLinks {
		t.Skip("two links per instance in this run")
	}
}

// sentinelConns returns the CLIENT LIST lines of connections named like
// a Sentinel's links (name=sentinel-).
func sentinelConns(t *testing.T, admin *rawClient) []string {
	t.Helper()
	list, _ := admin.do("CLIENT", "LIST").(string)
	var out []string
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, " name=sentinel-") {
			out = append(out, line)
		}
	}
	return out
}

// openPair opens command link id and pub/sub link id+1 to addr as the core
// does (both at once, the PING right behind the command link) and waits
// until the pub/sub link is subscribed.
func openPair(t *testing.T, l *Links, s *sink, id msg.LinkID, spec msg.OpenLink) {
	t.Helper()
	spec.ID, spec.Kind, spec.ClientName = id, msg.CmdLink, "sentinel-0123abcd-cmd"
	l.Apply(spec)
	l.Apply(msg.Send{ID: id, Tag: 1, Args: []string{"PING"}})
	spec.ID, spec.Kind, spec.ClientName, spec.Channel = id+1, msg.PubSubLink, "sentinel-0123abcd-pubsub", helloCh
	l.Apply(spec)
	expect[msg.LinkLocalAddr](t, s.next(t, id))
	if r := expect[msg.CommandReply](t, s.next(t, id)); !reflect.DeepEqual(r.Reply, str("PONG")) {
		t.Fatalf("PING -> %+v", r.Reply)
	}
	expect[msg.PubSubActivity](t, s.next(t, id+1))
	if n, ok := s.connectedAfter(id + 1); !ok || n != 0 {
		t.Fatalf("pub/sub LinkConnected delivered=%v after %d inputs; want it first", ok, n)
	}
}

// TestMergedOneConnection: with a RESP3 server the pub/sub link rides the
// command link's connection (one connection, named as the command link,
// resp=3, subscribed); messages reach the pub/sub link, and replies the
// command link, also when a message to it is published on it.
func TestMergedOneConnection(t *testing.T) {
	skipUnmerged(t)
	srv := startServer(t)
	admin := dialRaw(t, srv.addr)
	l, s := newTestLinks(t, Options{})
	openPair(t, l, s, 1, msg.OpenLink{Addr: srv.addr})

	conns := sentinelConns(t, admin)
	if len(conns) != 1 || !strings.Contains(conns[0], "name=sentinel-0123abcd-cmd ") ||
		!strings.Contains(conns[0], " sub=1 ") || !strings.Contains(conns[0], " resp=3") {
		t.Fatalf("want one RESP3 subscribed connection, CLIENT LIST shows:\n%s", strings.Join(conns, "\n"))
	}
	// A hello published on the link itself: the push comes before the
	// reply; each goes where it belongs.
	for k, p := range []string{"first", "second"} {
		if got := call(t, l, s, 1, uint64(10+k), "PUBLISH", helloCh, p); !reflect.DeepEqual(got, num(1)) {
			t.Fatalf("PUBLISH -> %+v", got)
		}
		if got := expect[msg.PubSubMessage](t, s.next(t, 2)); got != (msg.PubSubMessage{ID: 2, Channel: helloCh, Payload: p}) {
			t.Fatalf("message %+v", got)
		}
	}
	admin.do("PUBLISH", helloCh, "from another client")
	if got := expect[msg.PubSubMessage](t, s.next(t, 2)); got.Payload != "from another client" {
		t.Fatalf("message %+v", got)
	}
	info := call(t, l, s, 1, 20, "INFO", "server")
	if info.Kind != msg.ReplyString || !strings.HasPrefix(info.Str, "# Server\r\n") {
		t.Fatalf("INFO over RESP3 -> %.60q", info.Str)
	}
}

// TestMergedRepliesAsRESP2: every kind of reply the command link gets over
// RESP3 reaches the core as it does over RESP2.
func TestMergedRepliesAsRESP2(t *testing.T) {
	skipUnmerged(t)
	srv := startServer(t)
	admin := dialRaw(t, srv.addr)
	admin.do("HSET", "h", "f", "v")
	admin.do("SADD", "set", "m")
	admin.do("ZADD", "z", "1.5", "m")
	merged, ms := newTestLinks(t, Options{})
	openPair(t, merged, ms, 1, msg.OpenLink{Addr: srv.addr})
	two, ts := newTestLinks(t, Options{TwoLinks: true})
	openCmd(t, two, ts, msg.OpenLink{ID: 1, Addr: srv.addr})
	cmds := [][]string{
		{"PING"}, {"GET", "missing"}, {"HGETALL", "h"}, {"SMEMBERS", "set"}, {"ZSCORE", "z", "m"},
		{"CONFIG", "GET", "maxmemory"}, {"EVAL", "return {1,false,'a',{true}}", "0"},
		{"EVAL", "return redis.error_reply('LOADING x')", "0"}, {"ROLE"}, {"CLIENT", "KILL", "TYPE", "master"},
		{"MULTI"}, {"CONFIG", "GET", "port"}, {"HGETALL", "h"}, {"EXEC"}, {"NOSUCH"}, {"INFO", "keyspace"},
	}
	for k, c := range cmds {
		got := call(t, merged, ms, 1, uint64(100+k), c...)
		want := call(t, two, ts, 1, uint64(100+k), c...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: over RESP3 %+v, over RESP2 %+v", c, got, want)
		}
	}
}

// TestMergedFallback: where HELLO 3 is refused (renamed away, as on a
// server without it, or unauthenticated) the pub/sub link dials its own
// connection and works as before; a HELLO the rename map names is used.
func TestMergedFallback(t *testing.T) {
	skipUnmerged(t)
	tests := []struct {
		name    string
		conf    []string
		auth    msg.Auth
		renames map[string]string
		conns   int
	}{
		{"HELLO renamed away", []string{`rename-command HELLO ""`}, msg.Auth{}, nil, 2},
		{"HELLO renamed, known", []string{"rename-command HELLO MYHELLO"}, msg.Auth{}, map[string]string{"HELLO": "MYHELLO"}, 1},
		{"ACL user", []string{"user sentinel on >spass ~* &* +@all"}, msg.Auth{User: "sentinel", Pass: "spass"}, nil, 1},
		{"requirepass", []string{"requirepass secret"}, msg.Auth{Pass: "secret"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.conf...)
			var admin *rawClient
			if strings.Contains(strings.Join(tt.conf, ""), "requirepass") {
				admin = dialRaw(t, srv.addr, tt.auth.Pass)
			} else {
				admin = dialRaw(t, srv.addr)
			}
			l, s := newTestLinks(t, Options{})
			openPair(t, l, s, 1, msg.OpenLink{Addr: srv.addr, Auth: tt.auth, Renames: tt.renames})
			if conns := sentinelConns(t, admin); len(conns) != tt.conns {
				t.Fatalf("%d connections, want %d:\n%s", len(conns), tt.conns, strings.Join(conns, "\n"))
			}
			admin.do("PUBLISH", helloCh, "hi")
			if got := expect[msg.PubSubMessage](t, s.next(t, 2)); got.Payload != "hi" {
				t.Fatalf("message %+v", got)
			}
			if got := call(t, l, s, 1, 2, "PING"); !reflect.DeepEqual(got, str("PONG")) {
				t.Fatalf("PING -> %+v", got)
			}
			// A later pub/sub link finds the verdict: no HELLO again.
			openPubSub(t, l, s, msg.OpenLink{ID: 3, Addr: srv.addr, Auth: tt.auth, Renames: tt.renames})
		})
	}
}

// TestMergedClientKill: CLIENT KILL TYPE pubsub from the link itself spares
// it (SKIPME yes, as in a failover's transaction); from another client it
// kills the one connection, and both links fail at once, with no Send.
func TestMergedClientKill(t *testing.T) {
	skipUnmerged(t)
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	openPair(t, l, s, 1, msg.OpenLink{Addr: srv.addr})
	for k, typ := range []string{"normal", "pubsub"} {
		if got := call(t, l, s, 1, uint64(10+k), "CLIENT", "KILL", "TYPE", typ); got.Kind != msg.ReplyInt {
			t.Fatalf("CLIENT KILL TYPE %s -> %+v", typ, got)
		}
	}
	admin := dialRaw(t, srv.addr)
	admin.do("PUBLISH", helloCh, "still here")
	if got := expect[msg.PubSubMessage](t, s.next(t, 2)); got.Payload != "still here" {
		t.Fatalf("message %+v", got)
	}
	if n := admin.do("CLIENT", "KILL", "TYPE", "pubsub"); n != int64(1) {
		t.Fatalf("CLIENT KILL TYPE pubsub killed %v", n)
	}
	expect[msg.LinkClosed](t, s.next(t, 1))
	expect[msg.LinkClosed](t, s.next(t, 2))
}

// TestMergedRiderClosedAndReplaced: closing the pub/sub link leaves the
// command link up; the next pub/sub link rides it again, and its first
// input is its SUBSCRIBE's confirmation, not a message meant for the old.
func TestMergedRiderClosedAndReplaced(t *testing.T) {
	skipUnmerged(t)
	srv := startServer(t)
	admin := dialRaw(t, srv.addr)
	l, s := newTestLinks(t, Options{})
	openPair(t, l, s, 1, msg.OpenLink{Addr: srv.addr})
	l.Apply(msg.CloseLink{ID: 2})
	admin.do("PUBLISH", helloCh, "for nobody")
	if got := call(t, l, s, 1, 2, "PING"); !reflect.DeepEqual(got, str("PONG")) {
		t.Fatalf("PING -> %+v", got)
	}
	// A message published while the new link subscribes may reach it or
	// not (as on a connection of its own), but never before its
	// confirmation.
	l.Apply(msg.OpenLink{ID: 3, Kind: msg.PubSubLink, Addr: srv.addr, Channel: helloCh})
	l.Apply(msg.Send{ID: 1, Tag: 3, Args: []string{"PUBLISH", helloCh, "racing"}})
	expect[msg.CommandReply](t, s.next(t, 1))
	expect[msg.PubSubActivity](t, s.next(t, 3))
	l.Apply(msg.Send{ID: 1, Tag: 4, Args: []string{"PUBLISH", helloCh, "for the new one"}})
	expect[msg.CommandReply](t, s.next(t, 1))
	got := expect[msg.PubSubMessage](t, s.next(t, 3))
	if got.Payload == "racing" {
		got = expect[msg.PubSubMessage](t, s.next(t, 3))
	}
	if got.Payload != "for the new one" {
		t.Fatalf("message %+v", got)
	}
	if conns := sentinelConns(t, admin); len(conns) != 1 {
		t.Fatalf("%d connections, want 1", len(conns))
	}
	s.none(t, 2)
}

// TestMergedSubscribeRefused: a SUBSCRIBE the server refuses on the shared
// connection (renamed there, unknown to the rename map) fails the pub/sub
// link alone; the command link goes on.
func TestMergedSubscribeRefused(t *testing.T) {
	skipUnmerged(t)
	srv := startServer(t, "rename-command SUBSCRIBE MYSUB")
	l, s := newTestLinks(t, Options{})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr})
	l.Apply(msg.OpenLink{ID: 2, Kind: msg.PubSubLink, Addr: srv.addr, Channel: helloCh})
	if lc := expect[msg.LinkClosed](t, s.next(t, 2)); !strings.Contains(lc.Err, ErrSubscribeRejected.Error()) {
		t.Fatalf("LinkClosed.Err = %q", lc.Err)
	}
	if got := call(t, l, s, 1, 1, "PING"); !reflect.DeepEqual(got, str("PONG")) {
		t.Fatalf("PING -> %+v", got)
	}
}

// TestMergedServerKilled: the instance dies; both links fail at once,
// without waiting for a Send (the pub/sub link would notice at once on a
// connection of its own).
func TestMergedServerKilled(t *testing.T) {
	skipUnmerged(t)
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	openPair(t, l, s, 1, msg.OpenLink{Addr: srv.addr})
	srv.kill()
	expect[msg.LinkClosed](t, s.next(t, 2))
	expect[msg.LinkClosed](t, s.next(t, 1))
}
