package respserver

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClientReplyModes(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	// Each command is followed by a PING whose reply shows where the
	// stream stands: silenced commands leave nothing in between.
	c.Send("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n" +
		"*1\r\n$4\r\nPING\r\n" +
		"*1\r\n$3\r\nFOO\r\n" +
		"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n" +
		"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n")
	if got := c.Reply(); got != "+OK\r\n" {
		t.Fatalf("first reply after OFF/SKIP/ON: %q", got)
	}
	c.Send("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n" +
		"*2\r\n$4\r\nPING\r\n$1\r\na\r\n" +
		"*2\r\n$4\r\nPING\r\n$1\r\nb\r\n")
	if got := c.Reply(); got != "$1\r\nb\r\n" {
		t.Fatalf("SKIP silences exactly the next command: %q", got)
	}
	// Pushes are not silenced.
	if got := c.Do("SUBSCRIBE", "x"); got != "*3\r\n$9\r\nsubscribe\r\n$1\r\nx\r\n:1\r\n" {
		t.Fatalf("subscribe: %q", got)
	}
	if got := c.Do("CLIENT", "REPLY", "OFF"); got != "-ERR Can't execute 'client|reply': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n" {
		t.Fatalf("CLIENT REPLY while subscribed: %q", got)
	}
	c.Do("UNSUBSCRIBE")
	c.Do("HELLO", "3")
	c.Send("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\ny\r\n")
	if got := c.Reply(); got != ">3\r\n$9\r\nsubscribe\r\n$1\r\ny\r\n:1\r\n" {
		t.Fatalf("push under REPLY OFF: %q", got)
	}
}

func TestClientKillSelfAndFilters(t *testing.T) {
	_, _, addr := startServer(t, nil)
	a := dial(t, addr)
	b := dial(t, addr)
	b.Do("CLIENT", "SETNAME", "b")
	bid := strings.TrimSpace(strings.TrimPrefix(b.Do("CLIENT", "ID"), ":"))
	list := a.Do("CLIENT", "LIST", "ID", bid, "999", bid)
	if strings.Count(list, "name=b ") != 2 || strings.Count(list, "id=") != 2 {
		t.Fatalf("CLIENT LIST ID: %q", list)
	}
	if got := a.Do("CLIENT", "LIST", "TYPE", "pubsub"); got != "$0\r\n\r\n" {
		t.Fatalf("CLIENT LIST TYPE pubsub: %q", got)
	}
	if got := a.Do("CLIENT", "KILL", "ID", bid, "USER", "default"); got != ":1\r\n" {
		t.Fatalf("kill by id: %q", got)
	}
	if !b.Closed() {
		t.Fatal("b survived")
	}
	aid := strings.TrimSpace(strings.TrimPrefix(a.Do("CLIENT", "ID"), ":"))
	if got := a.Do("CLIENT", "KILL", "ID", aid); got != ":0\r\n" {
		t.Fatalf("SKIPME defaults to yes: %q", got)
	}
	a.Send("*6\r\n$6\r\nCLIENT\r\n$4\r\nKILL\r\n$2\r\nID\r\n$" + strconv.Itoa(len(aid)) + "\r\n" + aid + "\r\n$6\r\nSKIPME\r\n$2\r\nno\r\n*1\r\n$4\r\nPING\r\n")
	if got := a.Reply(); got != ":1\r\n" {
		t.Fatalf("killing itself replies first: %q", got)
	}
	// The pipelined PING must not run: the connection just closes.
	if !a.Closed() {
		t.Fatal("a client that killed itself stays connected")
	}
}

func TestClientTrackingRedirect(t *testing.T) {
	_, _, addr := startServer(t, nil)
	a := dial(t, addr)
	b := dial(t, addr)
	bid := strings.TrimPrefix(strings.TrimSpace(b.Do("CLIENT", "ID")), ":")
	if got := a.Do("CLIENT", "TRACKING", "ON", "REDIRECT", bid, "REDIRECT", bid); got != "-ERR A client can only redirect to a single other client\r\n" {
		t.Fatalf("two redirects: %q", got)
	}
	if got := a.Do("CLIENT", "TRACKING", "ON", "REDIRECT", bid, "OPTIN"); got != "+OK\r\n" {
		t.Fatalf("redirect: %q", got)
	}
	if got := a.Do("CLIENT", "GETREDIR"); got != ":"+bid+"\r\n" {
		t.Fatalf("GETREDIR: %q", got)
	}
	a.Do("HELLO", "3")
	want := "%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$5\r\noptin\r\n$8\r\nredirect\r\n:" + bid + "\r\n$8\r\nprefixes\r\n*0\r\n"
	if got := a.Do("CLIENT", "TRACKINGINFO"); got != want {
		t.Fatalf("TRACKINGINFO:\n got %q\nwant %q", got, want)
	}
	// CACHING lasts until a command other than CLIENT.
	a.Do("CLIENT", "CACHING", "YES")
	if got := a.Do("CLIENT", "TRACKINGINFO"); !strings.Contains(got, "caching-yes") {
		t.Fatalf("caching flag: %q", got)
	}
	a.Do("PING")
	if got := a.Do("CLIENT", "TRACKINGINFO"); strings.Contains(got, "caching-yes") {
		t.Fatalf("caching flag after PING: %q", got)
	}
}

func TestClientPause(t *testing.T) {
	_, _, addr := startServer(t, nil)
	a := dial(t, addr)
	b := dial(t, addr)
	const pause = 300 * time.Millisecond
	start := time.Now()
	if got := a.Do("CLIENT", "PAUSE", strconv.Itoa(int(pause/time.Millisecond)), "WRITE"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if got := b.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING under WRITE pause: %q", got)
	}
	if got := b.Do("PUBLISH", "x", "y"); got != "-ERR Only HELLO messages are accepted by Sentinel instances.\r\n" {
		t.Fatalf("PUBLISH: %q", got)
	}
	if waited := time.Since(start); waited < pause {
		t.Fatalf("PUBLISH ran %v after a %v WRITE pause", waited, pause)
	}
	start = time.Now()
	a.Do("CLIENT", "PAUSE", strconv.Itoa(int(pause/time.Millisecond)))
	if got := b.Do("CLIENT", "UNPAUSE"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if waited := time.Since(start); waited < pause {
		t.Fatalf("an ALL pause let CLIENT UNPAUSE run after %v", waited)
	}
	// UNPAUSE lifts a long WRITE pause at once for the held client.
	a.Do("CLIENT", "PAUSE", "60000", "WRITE")
	start = time.Now()
	b.Send("*3\r\n$7\r\nPUBLISH\r\n$1\r\nx\r\n$1\r\ny\r\n")
	if got := a.Do("CLIENT", "UNPAUSE"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if got := b.Reply(); !strings.HasPrefix(got, "-ERR Only HELLO") || time.Since(start) > 30*time.Second {
		t.Fatalf("held PUBLISH after UNPAUSE: %q after %v", got, time.Since(start))
	}
	// A 0 timeout pauses nothing.
	a.Do("CLIENT", "PAUSE", "0")
	if got := b.Do("PING"); got != "+PONG\r\n" {
		t.Fatal(got)
	}
}

// TestClientSetinfoInClientList checks that CLIENT INFO and CLIENT LIST
// end with Redis 7.2's lib-name and lib-ver fields, which CLIENT SETINFO
// sets and an empty value clears.
func TestClientSetinfoInClientList(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("CLIENT", "INFO"); !strings.HasSuffix(got, " resp=2 lib-name= lib-ver=\n\r\n") {
		t.Fatalf("CLIENT INFO before SETINFO: %q", got)
	}
	c.Do("CLIENT", "SETINFO", "LIB-NAME", "go-redis(,go1.26)")
	c.Do("CLIENT", "SETINFO", "lib-ver", "9.23.0")
	want := " resp=2 lib-name=go-redis(,go1.26) lib-ver=9.23.0\n"
	if got := c.Do("CLIENT", "INFO"); !strings.HasSuffix(got, want+"\r\n") {
		t.Errorf("CLIENT INFO: %q", got)
	}
	if got := c.Do("CLIENT", "LIST", "ID", "1"); !strings.HasSuffix(got, want+"\r\n") {
		t.Errorf("CLIENT LIST: %q", got)
	}
	c.Do("CLIENT", "SETINFO", "lib-name", "")
	if got := c.Do("CLIENT", "INFO"); !strings.HasSuffix(got, " lib-name= lib-ver=9.23.0\n\r\n") {
		t.Errorf("CLIENT INFO after clearing lib-name: %q", got)
	}
}
