package links

import (
	"fmt"
	"net"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

const helloCh = "__sentinel__:hello"

// openCmd opens a command link and consumes its LinkLocalAddr.
func openCmd(t *testing.T, l *Links, s *sink, spec msg.OpenLink) settings.Addr {
	t.Helper()
	spec.Kind = msg.CmdLink
	if !l.Apply(spec) {
		t.Fatal("Apply(OpenLink) = false")
	}
	a := expect[msg.LinkLocalAddr](t, s.next(t, spec.ID)).Addr
	if n, ok := s.connectedAfter(spec.ID); !ok || n != 0 {
		t.Fatalf("LinkConnected delivered=%v after %d inputs; want it first", ok, n)
	}
	return a
}

// openPubSub opens a pub/sub link on helloCh and waits for its subscribe
// confirmation.
func openPubSub(t *testing.T, l *Links, s *sink, spec msg.OpenLink) {
	t.Helper()
	spec.Kind = msg.PubSubLink
	spec.Channel = helloCh
	l.Apply(spec)
	expect[msg.PubSubActivity](t, s.next(t, spec.ID))
	if n, ok := s.connectedAfter(spec.ID); !ok || n != 0 {
		t.Fatalf("LinkConnected delivered=%v after %d inputs; want it first", ok, n)
	}
}

// call sends args on link id with tag and returns the reply.
func call(t *testing.T, l *Links, s *sink, id msg.LinkID, tag uint64, args ...string) msg.Reply {
	t.Helper()
	l.Apply(msg.Send{ID: id, Tag: tag, Args: args})
	r := expect[msg.CommandReply](t, s.next(t, id))
	if r.Tag != tag {
		t.Fatalf("reply tag %d, want %d", r.Tag, tag)
	}
	return r.Reply
}

func str(s string) msg.Reply { return msg.Reply{Kind: msg.ReplyString, Str: s} }
func num(n int64) msg.Reply  { return msg.Reply{Kind: msg.ReplyInt, Int: n} }
func rerr(s string) msg.Reply {
	return msg.Reply{Kind: msg.ReplyError, Str: s}
}
func arr(e ...msg.Reply) msg.Reply {
	if e == nil {
		e = []msg.Reply{}
	}
	return msg.Reply{Kind: msg.ReplyArray, Elems: e}
}

var nilReply = msg.Reply{Kind: msg.ReplyNil}

func TestLinksReplyKinds(t *testing.T) {
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	local := openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr})
	if local.Host != "127.0.0.1" || local.Port == 0 {
		t.Fatalf("LinkLocalAddr = %+v", local)
	}

	tests := []struct {
		name string
		args []string
		want msg.Reply
	}{
		{"status", []string{"PING"}, str("PONG")},
		{"status OK", []string{"SET", "k", "v"}, str("OK")},
		{"bulk", []string{"GET", "k"}, str("v")},
		{"nil bulk", []string{"GET", "missing"}, nilReply},
		{"integer", []string{"INCR", "n"}, num(1)},
		{"negative integer", []string{"TTL", "missing"}, num(-2)},
		{"error", []string{"NOSUCHCOMMAND"}, rerr("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: ")},
		{"error with code", []string{"EVAL", "return redis.error_reply('LOADING Redis is loading the dataset in memory')", "0"},
			rerr("LOADING Redis is loading the dataset in memory")},
		{"is-master-down-like array", []string{"EVAL", "return {1,'*',0}", "0"}, arr(num(1), str("*"), num(0))},
		{"nested arrays", []string{"EVAL", "return {1,{2,{'x'}},{}}", "0"}, arr(num(1), arr(num(2), arr(str("x"))), arr())},
		{"nil inside array", []string{"EVAL", "return {1,false,'a'}", "0"}, arr(num(1), nilReply, str("a"))},
		// go-redis's own decoder would desynchronise on this one.
		{"typed error inside array", []string{"EVAL", "return {1,redis.error_reply('NOAUTH x'),3}", "0"},
			arr(num(1), rerr("NOAUTH x"), num(3))},
		{"empty array", []string{"LRANGE", "missing", "0", "-1"}, arr()},
		{"binary-safe bulk", []string{"ECHO", "a\r\nb"}, str("a\r\nb")},
		{"after the array error", []string{"PING", "again"}, str("again")},
	}
	for i, tt := range tests {
		got := call(t, l, s, 1, uint64(i), tt.args...)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v -> %+v, want %+v", tt.name, tt.args, got, tt.want)
		}
	}

	info := call(t, l, s, 1, 100, "INFO")
	if info.Kind != msg.ReplyString || !strings.Contains(info.Str, "redis_version:") {
		t.Errorf("INFO -> %+v", info)
	}

	// The local address is the one the server sees.
	list := call(t, l, s, 1, 101, "CLIENT", "LIST")
	if !strings.Contains(list.Str, fmt.Sprintf("addr=127.0.0.1:%d ", local.Port)) {
		t.Errorf("CLIENT LIST has no addr=127.0.0.1:%d: %s", local.Port, list.Str)
	}

	// An empty command is answered without reaching the server.
	if got := call(t, l, s, 1, 102); got.Kind != msg.ReplyError {
		t.Errorf("empty command -> %+v", got)
	}
	if got := call(t, l, s, 1, 103, "PING"); !reflect.DeepEqual(got, str("PONG")) {
		t.Errorf("PING after empty command -> %+v", got)
	}
}

func TestLinksPipelineOrder(t *testing.T) {
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	const n = 3000
	// Sends queued before the connection exists, then more once it is up:
	// several pipelined batches.
	l.Apply(msg.OpenLink{ID: 7, Kind: msg.CmdLink, Addr: srv.addr})
	for i := range n / 2 {
		l.Apply(msg.Send{ID: 7, Tag: uint64(i), Args: []string{"ECHO", strconv.Itoa(i)}})
	}
	expect[msg.LinkLocalAddr](t, s.next(t, 7))
	for i := n / 2; i < n; i++ {
		l.Apply(msg.Send{ID: 7, Tag: uint64(i), Args: []string{"ECHO", strconv.Itoa(i)}})
	}
	for i := range n {
		r := expect[msg.CommandReply](t, s.next(t, 7))
		if r.Tag != uint64(i) || r.Reply.Str != strconv.Itoa(i) {
			t.Fatalf("reply %d: tag %d %+v", i, r.Tag, r.Reply)
		}
	}
	l.Close()
	s.none(t, 7)
}

// monitorLines reads MONITOR output from m until a line containing stop,
// returning each command without its timestamp and client prefix.
func monitorLines(t *testing.T, m *rawClient, stop string) []string {
	t.Helper()
	var out []string
	for {
		v, ok := m.read().(string)
		if !ok {
			t.Fatalf("MONITOR: unexpected reply %v", v)
		}
		_, cmd, _ := strings.Cut(v, "] ")
		if strings.Contains(cmd, stop) {
			return out
		}
		out = append(out, cmd)
	}
}

func TestLinksWireHandshake(t *testing.T) {
	tests := []struct {
		name    string
		conf    []string
		monAuth []string
		auth    msg.Auth
		renames map[string]string
		want    []string // two links
		merged  []string // the pub/sub link riding the command link
	}{
		{
			name: "no auth",
			want: []string{
				`"CLIENT" "SETNAME" "sentinel-e1a3d79f-cmd"`,
				`"PING"`,
				`"INFO"`,
				`"CLIENT" "SETNAME" "sentinel-e1a3d79f-pubsub"`,
				`"SUBSCRIBE" "__sentinel__:hello"`,
			},
			merged: []string{
				`"CLIENT" "SETNAME" "sentinel-e1a3d79f-cmd"`,
				`"PING"`,
				`"INFO"`,
				`"HELLO" "3"`,
				`"SUBSCRIBE" "__sentinel__:hello"`,
			},
		},
		{
			name:    "acl user and renames",
			conf:    []string{"requirepass secret", "user sentinel on >spass ~* &* +@all", "rename-command CLIENT MYCLIENT", "rename-command SUBSCRIBE MYSUB"},
			monAuth: []string{"secret"},
			auth:    msg.Auth{User: "sentinel", Pass: "spass"},
			renames: map[string]string{"CLIENT": "MYCLIENT", "SUBSCRIBE": "MYSUB", "PING": "MYPING"},
			want: []string{
				`"AUTH" "(redacted)" "(redacted)"`,
				`"MYCLIENT" "SETNAME" "sentinel-e1a3d79f-cmd"`,
				`"PING"`,
				`"INFO"`,
				`"AUTH" "(redacted)" "(redacted)"`,
				`"MYCLIENT" "SETNAME" "sentinel-e1a3d79f-pubsub"`,
				`"MYSUB" "__sentinel__:hello"`,
			},
			merged: []string{
				`"AUTH" "(redacted)" "(redacted)"`,
				`"MYCLIENT" "SETNAME" "sentinel-e1a3d79f-cmd"`,
				`"PING"`,
				`"INFO"`,
				`"HELLO" "3"`,
				`"MYSUB" "__sentinel__:hello"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.conf...)
			mon := dialRaw(t, srv.addr, tt.monAuth...)
			if r := mon.do("MONITOR"); r != "OK" {
				t.Fatalf("MONITOR: %v", r)
			}
			l, s := newTestLinks(t, Options{})
			spec := msg.OpenLink{ID: 1, Addr: srv.addr, Auth: tt.auth, ClientName: "sentinel-e1a3d79f-cmd", Renames: tt.renames}
			openCmd(t, l, s, spec)
			// Sends carry their own (already renamed) names: PING stays PING.
			l.Apply(msg.Send{ID: 1, Tag: 1, Args: []string{"PING"}})
			l.Apply(msg.Send{ID: 1, Tag: 2, Args: []string{"INFO"}})
			expect[msg.CommandReply](t, s.next(t, 1))
			expect[msg.CommandReply](t, s.next(t, 1))
			spec.ID, spec.ClientName = 2, "sentinel-e1a3d79f-pubsub"
			openPubSub(t, l, s, spec)

			marker := dialRaw(t, srv.addr, tt.monAuth...)
			marker.send("ECHO", "end-of-test-marker")
			got := monitorLines(t, mon, "end-of-test-marker")
			if len(tt.monAuth) > 0 {
				got = got[:len(got)-1] // the marker connection's own AUTH
			}
			want := tt.want
			if mergeLinks {
				want = tt.merged
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("MONITOR shows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestLinksAuth(t *testing.T) {
	srv := startServer(t, "requirepass secret", "user sentinel on >spass ~* &* +@all")
	l, s := newTestLinks(t, Options{})

	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr, Auth: msg.Auth{Pass: "secret"}})
	if got := call(t, l, s, 1, 1, "PING"); !reflect.DeepEqual(got, str("PONG")) {
		t.Errorf("AUTH pass: PING -> %+v", got)
	}
	if got := call(t, l, s, 1, 2, "ACL", "WHOAMI"); !reflect.DeepEqual(got, str("default")) {
		t.Errorf("AUTH pass: WHOAMI -> %+v", got)
	}

	openCmd(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr, Auth: msg.Auth{User: "sentinel", Pass: "spass"}})
	if got := call(t, l, s, 2, 1, "ACL", "WHOAMI"); !reflect.DeepEqual(got, str("sentinel")) {
		t.Errorf("AUTH user pass: WHOAMI -> %+v", got)
	}

	// A wrong password: the command link stays up and its commands get
	// NOAUTH error replies.
	openCmd(t, l, s, msg.OpenLink{ID: 3, Addr: srv.addr, Auth: msg.Auth{Pass: "wrong"}, ClientName: "x"})
	for tag := range uint64(3) {
		if got := call(t, l, s, 3, tag, "PING"); !reflect.DeepEqual(got, rerr("NOAUTH Authentication required.")) {
			t.Errorf("wrong password: PING -> %+v", got)
		}
	}

	// The pub/sub link with the right password subscribes...
	openPubSub(t, l, s, msg.OpenLink{ID: 4, Addr: srv.addr, Auth: msg.Auth{Pass: "secret"}})
	// ...with a wrong or no password it is dropped (hiredis behaviour).
	l.Apply(msg.OpenLink{ID: 5, Kind: msg.PubSubLink, Addr: srv.addr, Auth: msg.Auth{Pass: "wrong"}, Channel: helloCh})
	l.Apply(msg.OpenLink{ID: 6, Kind: msg.PubSubLink, Addr: srv.addr, Channel: helloCh})
	for _, id := range []msg.LinkID{5, 6} {
		lc := expect[msg.LinkClosed](t, s.next(t, id))
		if !strings.Contains(lc.Err, "NOAUTH") {
			t.Errorf("link %d: LinkClosed.Err = %q", id, lc.Err)
		}
	}

	l.Close()
	for _, id := range []msg.LinkID{1, 2, 3, 4, 5, 6} {
		s.none(t, id)
	}
}

func TestLinksClientNameAndRenames(t *testing.T) {
	srv := startServer(t, "requirepass secret",
		"rename-command CLIENT MYCLIENT", "rename-command AUTH MYAUTH", "rename-command SUBSCRIBE MYSUB")
	l, s := newTestLinks(t, Options{})
	renames := map[string]string{"CLIENT": "MYCLIENT", "AUTH": "MYAUTH", "SUBSCRIBE": "MYSUB"}
	auth := msg.Auth{Pass: "secret"}

	local := openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr, Auth: auth, ClientName: "sentinel-abc-cmd", Renames: renames})
	openPubSub(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr, Auth: auth, ClientName: "sentinel-abc-pubsub", Renames: renames})

	list := call(t, l, s, 1, 1, "MYCLIENT", "LIST")
	if list.Kind != msg.ReplyString {
		t.Fatalf("MYCLIENT LIST -> %+v", list)
	}
	var cmdLine string
	for _, line := range strings.Split(list.Str, "\n") {
		if strings.Contains(line, fmt.Sprintf("addr=127.0.0.1:%d ", local.Port)) {
			cmdLine = line
		}
	}
	if !strings.Contains(cmdLine, " name=sentinel-abc-cmd ") {
		t.Errorf("command link not named: %q", cmdLine)
	}
	if mergeLinks {
		// One connection, named as the command link, carries the
		// subscription over RESP3.
		if !strings.Contains(cmdLine, " sub=1 ") || !strings.Contains(cmdLine, " resp=3") || strings.Contains(list.Str, "-pubsub") {
			t.Errorf("pub/sub link not riding the command link:\n%s", list.Str)
		}
	} else if !strings.Contains(list.Str, " name=sentinel-abc-pubsub ") || !strings.Contains(list.Str, "sub=1") {
		t.Errorf("pub/sub link not named or not subscribed:\n%s", list.Str)
	}

	// The renamed SUBSCRIBE works: a message gets through.
	if got := call(t, l, s, 1, 2, "PUBLISH", helloCh, "hi"); !reflect.DeepEqual(got, num(1)) {
		t.Errorf("PUBLISH -> %+v", got)
	}
	if got := expect[msg.PubSubMessage](t, s.next(t, 2)); got != (msg.PubSubMessage{ID: 2, Channel: helloCh, Payload: "hi"}) {
		t.Errorf("message %+v", got)
	}

	// Without the SUBSCRIBE rename the pub/sub link fails.
	l.Apply(msg.OpenLink{ID: 3, Kind: msg.PubSubLink, Addr: srv.addr, Auth: auth, Channel: helloCh,
		Renames: map[string]string{"AUTH": "MYAUTH"}})
	expect[msg.LinkClosed](t, s.next(t, 3))
}

func TestLinksPubSubMessages(t *testing.T) {
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	openPubSub(t, l, s, msg.OpenLink{ID: 9, Addr: srv.addr, ClientName: "p"})
	pub := dialRaw(t, srv.addr)
	pub.do("PUBLISH", "other-channel", "not for us")
	payloads := []string{"first", "second,with,commas", "", "third"}
	for _, p := range payloads {
		if n := pub.do("PUBLISH", helloCh, p); n != int64(1) {
			t.Fatalf("PUBLISH -> %v", n)
		}
	}
	for _, p := range payloads {
		got := expect[msg.PubSubMessage](t, s.next(t, 9))
		if got != (msg.PubSubMessage{ID: 9, Channel: helloCh, Payload: p}) {
			t.Errorf("got %+v, want payload %q", got, p)
		}
	}
	l.Close()
	s.none(t, 9)
}

func TestLinksDialFailure(t *testing.T) {
	addr := settings.Addr{Host: "127.0.0.1", Port: freePort(t)}
	l, s := newTestLinks(t, Options{})
	l.Apply(msg.OpenLink{ID: 1, Kind: msg.CmdLink, Addr: addr})
	l.Apply(msg.Send{ID: 1, Tag: 1, Args: []string{"PING"}})
	l.Apply(msg.OpenLink{ID: 2, Kind: msg.PubSubLink, Addr: addr, Channel: helloCh})
	for _, id := range []msg.LinkID{1, 2} {
		lc := expect[msg.LinkClosed](t, s.next(t, id))
		if !strings.Contains(lc.Err, "connect") {
			t.Errorf("link %d: LinkClosed.Err = %q", id, lc.Err)
		}
	}
	for _, id := range []msg.LinkID{1, 2} {
		if _, ok := s.connectedAfter(id); ok {
			t.Errorf("link %d: LinkConnected for a refused connection", id)
		}
	}
	// Sends to the failed link are dropped; CloseLink is harmless.
	l.Apply(msg.Send{ID: 1, Tag: 2, Args: []string{"PING"}})
	l.Apply(msg.CloseLink{ID: 1})
	l.Close()
	s.none(t, 1)
	s.none(t, 2)
}

func TestLinksSourceAddr(t *testing.T) {
	srv := startServer(t)
	l, s := newTestLinks(t, Options{SourceAddr: "127.0.0.1"})
	if got := openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr}); got.Host != "127.0.0.1" {
		t.Errorf("local address %+v", got)
	}
	bad, bs := newTestLinks(t, Options{SourceAddr: "not-an-ip"})
	bad.Apply(msg.OpenLink{ID: 1, Kind: msg.CmdLink, Addr: srv.addr})
	if lc := expect[msg.LinkClosed](t, bs.next(t, 1)); !strings.Contains(lc.Err, ErrSourceAddr.Error()) {
		t.Errorf("LinkClosed.Err = %q", lc.Err)
	}
}

func TestLinksIPv6LocalAddr(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	l, s := newTestLinks(t, Options{})
	got := openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: settings.Addr{Host: "::1", Port: port}})
	if got.Host != "::1" || got.Port == 0 {
		t.Errorf("local address %+v", got)
	}
	select {
	case c := <-accepted:
		_ = c.Close()
	case <-time.After(waitLimit):
		t.Fatal("no connection accepted")
	}
}

func TestLinksServerKilled(t *testing.T) {
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr})
	call(t, l, s, 1, 1, "PING")
	openPubSub(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr})

	srv.kill()
	expect[msg.LinkClosed](t, s.next(t, 2))
	// The idle command link notices on its next command, which gets no
	// reply.
	l.Apply(msg.Send{ID: 1, Tag: 2, Args: []string{"PING"}})
	l.Apply(msg.Send{ID: 1, Tag: 3, Args: []string{"PING"}})
	expect[msg.LinkClosed](t, s.next(t, 1))
	l.Apply(msg.Send{ID: 1, Tag: 4, Args: []string{"PING"}})
	l.Close()
	s.none(t, 1)
	s.none(t, 2)
}

func TestLinksCloseLink(t *testing.T) {
	srv := startServer(t)
	admin := dialRaw(t, srv.addr)
	l, s := newTestLinks(t, Options{})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr, ClientName: "closing-cmd"})
	openPubSub(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr, ClientName: "closing-pubsub"})
	// A command whose reply is pending when the link is closed.
	l.Apply(msg.Send{ID: 1, Tag: 1, Args: []string{"BLPOP", "queue", "0"}})
	waitFor(t, func() bool { return admin.do("LLEN", "queue") == int64(0) && blockedClients(t, admin) == 1 })

	// The pub/sub link first: closing the command link it may ride fails it.
	l.Apply(msg.CloseLink{ID: 2})
	l.Apply(msg.CloseLink{ID: 1})
	l.Apply(msg.Send{ID: 1, Tag: 2, Args: []string{"PING"}})
	// The server sees both connections go at once.
	waitFor(t, func() bool {
		list, _ := admin.do("CLIENT", "LIST").(string)
		return !strings.Contains(list, "name=closing-")
	})
	admin.do("RPUSH", "queue", "x")
	admin.do("PUBLISH", helloCh, "late")
	l.Close()
	s.none(t, 1)
	s.none(t, 2)
}

// blockedClients is the blocked_clients field of INFO clients.
func blockedClients(t *testing.T, admin *rawClient) int {
	info, _ := admin.do("INFO", "clients").(string)
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "blocked_clients:"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	t.Fatal("no blocked_clients in INFO")
	return 0
}

// waitFor polls cond until it holds, failing the test after waitLimit.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}

func TestLinksCloseEndsEverything(t *testing.T) {
	srv := startServer(t)
	before := runtime.NumGoroutine()

	s := &sink{}
	l := New(Options{Deliver: s.deliver, DialTimeout: time.Minute})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr})
	call(t, l, s, 1, 1, "PING")
	openPubSub(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr})
	l.Apply(msg.Send{ID: 1, Tag: 2, Args: []string{"BLPOP", "never", "0"}})
	// A dial that would hang (black-holed address) and one that fails.
	l.Apply(msg.OpenLink{ID: 3, Kind: msg.CmdLink, Addr: settings.Addr{Host: "192.0.2.1", Port: 6379}})
	l.Apply(msg.OpenLink{ID: 4, Kind: msg.CmdLink, Addr: settings.Addr{Host: "127.0.0.1", Port: freePort(t)}})
	// A link that is open but idle, never sent anything.
	l.Apply(msg.OpenLink{ID: 5, Kind: msg.CmdLink, Addr: srv.addr})

	closed := make(chan struct{})
	go func() { l.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(waitLimit):
		t.Fatal("Close did not return")
	}

	// Apply after Close: link actions are accepted and do nothing.
	for _, a := range []msg.Action{
		msg.OpenLink{ID: 6, Kind: msg.CmdLink, Addr: srv.addr},
		msg.Send{ID: 1, Tag: 3, Args: []string{"PING"}},
		msg.CloseLink{ID: 2},
	} {
		if !l.Apply(a) {
			t.Errorf("Apply(%T) after Close = false", a)
		}
	}
	if l.Apply(msg.Exit{Code: 1}) {
		t.Error("Apply(Exit) = true")
	}
	l.Close() // twice is fine

	for _, id := range []msg.LinkID{1, 2, 6} {
		s.none(t, id)
	}
	// Links 3 and 4 may have failed, and link 5 connected, before Close.
	for _, id := range []msg.LinkID{3, 4, 5} {
		if n := len(s.ch(id)); n > 1 {
			t.Errorf("link %d: %d inputs", id, n)
		}
	}

	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left (before: %d):\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}

func TestLinksApplyIgnoresOtherActions(t *testing.T) {
	l := New(Options{})
	defer l.Close()
	if l.Apply(msg.PersistConfig{Reason: "x"}) {
		t.Error("Apply(PersistConfig) = true")
	}
}

// TestLinksWriteBehindUnanswered shows that a Send applied while an
// earlier one awaits its reply is written at once, not when that reply
// comes: an instance that stopped answering (a SIGSTOPped master) finds
// the demotion sent at the promotion in its socket when it runs again,
// even if the link was closed meanwhile. The fake instance never answers
// until both commands are in; then its replies go to their Sends in order.
func TestLinksWriteBehindUnanswered(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	l, s := newTestLinks(t, Options{})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: settings.Addr{Host: "127.0.0.1", Port: port}})
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.SetReadDeadline(time.Now().Add(waitLimit))
	// readAll reads from the instance until it got want.
	readAll := func(want string) {
		t.Helper()
		got := make([]byte, 0, len(want))
		buf := make([]byte, 256)
		for len(got) < len(want) {
			n, err := srv.Read(buf)
			if err != nil {
				t.Fatalf("the instance read %q before %v; want %q before any reply", got, err, want)
			}
			got = append(got, buf[:n]...)
		}
		if string(got) != want {
			t.Fatalf("the instance read %q, want %q", got, want)
		}
	}
	// The PING is on the wire, unanswered, before the SLAVEOF is sent.
	l.Apply(msg.Send{ID: 1, Tag: 1, Args: []string{"PING"}})
	readAll(string(appendCommand(nil, "PING")))
	l.Apply(msg.Send{ID: 1, Tag: 2, Args: []string{"SLAVEOF", "10.0.0.2", "6379"}})
	readAll(string(appendCommand(nil, "SLAVEOF", "10.0.0.2", "6379")))
	if _, err := srv.Write([]byte("+PONG\r\n+OK\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		tag   uint64
		reply string
	}{{1, "PONG"}, {2, "OK"}} {
		r := expect[msg.CommandReply](t, s.next(t, 1))
		if r.Tag != w.tag || r.Reply.Str != w.reply {
			t.Fatalf("reply tag %d %+v, want tag %d %q", r.Tag, r.Reply, w.tag, w.reply)
		}
	}
	// Written, then closed before any reply: the bytes stay with the
	// instance, followed by the end of the connection.
	l.Apply(msg.Send{ID: 1, Tag: 3, Args: []string{"PING"}})
	readAll(string(appendCommand(nil, "PING")))
	l.Apply(msg.Send{ID: 1, Tag: 4, Args: []string{"SLAVEOF", "NO", "ONE"}})
	readAll(string(appendCommand(nil, "SLAVEOF", "NO", "ONE")))
	l.Apply(msg.CloseLink{ID: 1})
	buf := make([]byte, 256)
	if n, err := srv.Read(buf); err == nil {
		t.Fatalf("after CloseLink the instance read %q, want the end of the connection", buf[:n])
	}
	l.Close()
	s.none(t, 1)
}

// TestLinksServedByLoop checks which path serves a plain TCP link: the
// event loop where the system has one and useLoops is on, else goroutines.
func TestLinksServedByLoop(t *testing.T) {
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr})
	openPubSub(t, l, s, msg.OpenLink{ID: 2, Addr: srv.addr})
	call(t, l, s, 1, 1, "PING")
	l.mu.Lock()
	lks := []*link{l.links[1], l.links[2]}
	l.mu.Unlock()
	for _, lk := range lks {
		lk.mu.Lock()
		onLoop, carrier := lk.nc != nil, lk.carrier
		lk.mu.Unlock()
		if mergeLinks && lk.spec.Kind == msg.PubSubLink {
			if carrier != lks[0] {
				t.Errorf("link %d rides %p, want link 1", lk.spec.ID, carrier)
			}
			continue
		}
		if want := useLoops && l.loops != nil; onLoop != want {
			t.Errorf("link %d served by a loop: %v, want %v", lk.spec.ID, onLoop, want)
		}
	}
	if useLoops && runtime.GOOS == "linux" && l.loops == nil {
		t.Error("no event loop on Linux")
	}
}

// TestLinksHoldWritesOncePerLink: between Hold and Release the Sends to a
// loop link are only encoded, the link listed once for its loop; Release
// writes them in one write and the replies come in order.
func TestLinksHoldWritesOncePerLink(t *testing.T) {
	if !useLoops || noLoops(t) {
		t.Skip("no event loop on this system")
	}
	srv := startServer(t)
	l, s := newTestLinks(t, Options{})
	openCmd(t, l, s, msg.OpenLink{ID: 1, Addr: srv.addr})
	call(t, l, s, 1, 1, "PING")
	l.mu.Lock()
	lk := l.links[1]
	l.mu.Unlock()
	l.Hold()
	for tag := uint64(2); tag <= 4; tag++ {
		l.Apply(msg.Send{ID: 1, Tag: tag, Args: []string{"ECHO", strconv.FormatUint(tag, 10)}})
	}
	lk.mu.Lock()
	out, due := string(lk.out), lk.flushDue
	lk.mu.Unlock()
	l.held.mu.Lock()
	listed := len(l.held.due)
	l.held.mu.Unlock()
	if strings.Count(out, "ECHO") != 3 || !due || listed != 1 {
		t.Fatalf("held: out %q (want 3 ECHOs), flush due %v, links listed %d (want 1)", out, due, listed)
	}
	l.Release()
	for tag := uint64(2); tag <= 4; tag++ {
		r := expect[msg.CommandReply](t, s.next(t, 1))
		if r.Tag != tag || !reflect.DeepEqual(r.Reply, str(strconv.FormatUint(tag, 10))) {
			t.Fatalf("reply %d: %+v, want tag %d", tag, r, tag)
		}
	}
}

// noLoops reports whether the Links of this system have no event loop.
func noLoops(t *testing.T) bool {
	l, _ := newTestLinks(t, Options{})
	return l.loops == nil
}
