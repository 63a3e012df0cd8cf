package respserver

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClientRepliesMatchRedis replays a session captured byte for byte
// from redis-sentinel 7.0.15 on one RESP2 connection.
func TestClientRepliesMatchRedis(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"client", "help"}, "*48\r\n+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+CACHING (YES|NO)\r\n+    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.\r\n+GETREDIR\r\n+    Return the client ID we are redirecting to when tracking is enabled.\r\n+GETNAME\r\n+    Return the name of the current connection.\r\n+ID\r\n+    Return the ID of the current connection.\r\n+INFO\r\n+    Return information about the current client connection.\r\n+KILL <ip:port>\r\n+    Kill connection made from <ip:port>.\r\n+KILL <option> <value> [<option> <value> [...]]\r\n+    Kill connections. Options are:\r\n+    * ADDR (<ip:port>|<unixsocket>:0)\r\n+      Kill connections made from the specified address\r\n+    * LADDR (<ip:port>|<unixsocket>:0)\r\n+      Kill connections made to specified local address\r\n+    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)\r\n+      Kill connections by type.\r\n+    * USER <username>\r\n+      Kill connections authenticated by <username>.\r\n+    * SKIPME (YES|NO)\r\n+      Skip killing current connection (default: yes).\r\n+LIST [options ...]\r\n+    Return information about client connections. Options:\r\n+    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)\r\n+      Return clients of specified type.\r\n+UNPAUSE\r\n+    Stop the current client pause, resuming traffic.\r\n+PAUSE <timeout> [WRITE|ALL]\r\n+    Suspend all, or just write, clients for <timeout> milliseconds.\r\n+REPLY (ON|OFF|SKIP)\r\n+    Control the replies sent to the current connection.\r\n+SETNAME <name>\r\n+    Assign the name <name> to the current connection.\r\n+UNBLOCK <clientid> [TIMEOUT|ERROR]\r\n+    Unblock the specified blocked client.\r\n+TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]\r\n+         [OPTIN] [OPTOUT] [NOLOOP]\r\n+    Control server assisted client side caching.\r\n+TRACKINGINFO\r\n+    Report tracking status for the current connection.\r\n+NO-EVICT (ON|OFF)\r\n+    Protect current client connection from eviction.\r\n+HELP\r\n+    Prints this help.\r\n"},
		{[]string{"client", "getredir"}, ":-1\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n"},
		{[]string{"client", "tracking", "on"}, "+OK\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*1\r\n$2\r\non\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n"},
		{[]string{"client", "getredir"}, ":0\r\n"},
		{[]string{"client", "caching", "yes"}, "-ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.\r\n"},
		{[]string{"client", "tracking", "on", "optin"}, "+OK\r\n"},
		{[]string{"client", "tracking", "off"}, "+OK\r\n"},
		{[]string{"client", "tracking", "on", "optin"}, "+OK\r\n"},
		{[]string{"client", "caching", "yes"}, "+OK\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*3\r\n$2\r\non\r\n$5\r\noptin\r\n$11\r\ncaching-yes\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n"},
		{[]string{"client", "caching", "no"}, "-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n"},
		{[]string{"client", "caching", "maybe"}, "-ERR syntax error\r\n"},
		{[]string{"client", "tracking", "off"}, "+OK\r\n"},
		{[]string{"client", "caching", "yes"}, "-ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled\r\n"},
		{[]string{"client", "tracking", "on", "bcast", "prefix", "a", "prefix", "b", "noloop"}, "+OK\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*3\r\n$2\r\non\r\n$5\r\nbcast\r\n$6\r\nnoloop\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{[]string{"client", "tracking", "on", "bcast", "prefix", "ab"}, "-ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.\r\n"},
		{[]string{"client", "tracking", "on", "bcast", "prefix", "c", "prefix", "cd"}, "-ERR Prefix 'c' overlaps with another provided prefix 'cd'. Prefixes for a single client must not overlap.\r\n"},
		{[]string{"client", "tracking", "on", "bcast", "prefix", "c"}, "+OK\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{[]string{"client", "tracking", "on", "prefix", "a"}, "-ERR PREFIX option requires BCAST mode to be enabled\r\n"},
		{[]string{"client", "tracking", "on", "optin", "optout"}, "-ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.\r\n"},
		{[]string{"client", "tracking", "off"}, "+OK\r\n"},
		{[]string{"client", "tracking", "on", "bcast"}, "+OK\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*1\r\n$0\r\n\r\n"},
		{[]string{"client", "tracking", "off"}, "+OK\r\n"},
		{[]string{"client", "tracking", "on", "optin", "optout"}, "-ERR You can't specify both OPTIN mode and OPTOUT mode\r\n"},
		{[]string{"client", "tracking", "on", "bcast", "optin"}, "-ERR OPTIN and OPTOUT are not compatible with BCAST\r\n"},
		{[]string{"client", "tracking", "maybe"}, "-ERR syntax error\r\n"},
		{[]string{"client", "tracking", "on", "redirect", "999"}, "-ERR The client ID you want redirect to does not exist\r\n"},
		{[]string{"client", "tracking", "on", "redirect", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"client", "tracking", "on", "foo"}, "-ERR syntax error\r\n"},
		{[]string{"client", "tracking", "on", "redirect"}, "-ERR syntax error\r\n"},
		{[]string{"client", "tracking", "on", "redirect", "0"}, "-ERR The client ID you want redirect to does not exist\r\n"},
		{[]string{"client", "tracking", "on", "optout"}, "+OK\r\n"},
		{[]string{"client", "tracking", "on", "optin"}, "-ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.\r\n"},
		{[]string{"client", "trackinginfo"}, "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$6\r\noptout\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n"},
		{[]string{"client", "tracking", "off"}, "+OK\r\n"},
		{[]string{"client", "no-evict", "on"}, "+OK\r\n"},
		{[]string{"client", "no-evict", "off"}, "+OK\r\n"},
		{[]string{"client", "no-evict", "maybe"}, "-ERR syntax error\r\n"},
		{[]string{"client", "unblock", "1"}, ":0\r\n"},
		{[]string{"client", "unblock", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"client", "unblock", "1", "foo"}, "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n"},
		{[]string{"client", "unblock", "x", "foo"}, "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n"},
		{[]string{"client", "unblock", "1", "error"}, ":0\r\n"},
		{[]string{"client", "unblock", "1", "timeout", "x"}, "-ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.\r\n"},
		{[]string{"client", "setinfo", "lib-name", "x"}, "-ERR unknown subcommand 'setinfo'. Try CLIENT HELP.\r\n"},
		{[]string{"client", "maint_notifications", "on"}, "-ERR unknown subcommand 'maint_notifications'. Try CLIENT HELP.\r\n"},
		{[]string{"client", "reply", "foo"}, "-ERR syntax error\r\n"},
		{[]string{"client", "pause", "x"}, "-ERR timeout is not an integer or out of range\r\n"},
		{[]string{"client", "pause", "-1"}, "-ERR timeout is negative\r\n"},
		{[]string{"client", "pause", "10", "foo"}, "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n"},
		{[]string{"client", "pause", "x", "foo"}, "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n"},
		{[]string{"client", "pause", "1", "2", "3"}, "-ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.\r\n"},
		{[]string{"client", "pause", "10", "write"}, "+OK\r\n"},
		{[]string{"client", "unpause"}, "+OK\r\n"},
		{[]string{"client", "list", "x"}, "-ERR syntax error\r\n"},
		{[]string{"client", "list", "type"}, "-ERR syntax error\r\n"},
		{[]string{"client", "list", "type", "foo"}, "-ERR Unknown client type 'foo'\r\n"},
		{[]string{"client", "list", "type", "normal", "x"}, "-ERR syntax error\r\n"},
		{[]string{"client", "list", "id"}, "-ERR syntax error\r\n"},
		{[]string{"client", "list", "id", "x"}, "-ERR Invalid client ID\r\n"},
		{[]string{"client", "list", "id", "-5"}, "$0\r\n\r\n"},
		{[]string{"client", "list", "id", "01"}, "-ERR Invalid client ID\r\n"},
		{[]string{"client", "kill"}, "-ERR wrong number of arguments for 'client|kill' command\r\n"},
		{[]string{"client", "kill", "a", "b", "c"}, "-ERR syntax error\r\n"},
		{[]string{"client", "kill", "id", "0"}, "-ERR client-id should be greater than 0\r\n"},
		{[]string{"client", "kill", "id", "x"}, "-ERR client-id should be greater than 0\r\n"},
		{[]string{"client", "kill", "id", "99999"}, ":0\r\n"},
		{[]string{"client", "kill", "type", "foo"}, "-ERR Unknown client type 'foo'\r\n"},
		{[]string{"client", "kill", "type", "master"}, ":0\r\n"},
		{[]string{"client", "kill", "skipme", "maybe"}, "-ERR syntax error\r\n"},
		{[]string{"client", "kill", "foo", "bar"}, "-ERR syntax error\r\n"},
		{[]string{"client", "kill", "1.2.3.4:5"}, "-ERR No such client\r\n"},
		{[]string{"client", "kill", "addr", "1.2.3.4:5"}, ":0\r\n"},
		{[]string{"client", "kill", "laddr", "1.2.3.4:5", "skipme", "yes"}, ":0\r\n"},
		{[]string{"client", "kill", "user", "nouser"}, "-ERR No such user 'nouser'\r\n"},
		{[]string{"client", "setname", "a", "b"}, "-ERR wrong number of arguments for 'client|setname' command\r\n"},
		{[]string{"client", "getname"}, "$-1\r\n"},
		{[]string{"client", "setname", "x"}, "+OK\r\n"},
		{[]string{"client", "getname"}, "$1\r\nx\r\n"},
		{[]string{"client", "setname", ""}, "+OK\r\n"},
		{[]string{"client", "getname"}, "$-1\r\n"},
		{[]string{"client"}, "-ERR wrong number of arguments for 'client' command\r\n"},
		{[]string{"client", "foo"}, "-ERR unknown subcommand 'foo'. Try CLIENT HELP.\r\n"},
		{[]string{"client", "setname", "a b"}, "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
	}
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	for _, tt := range tests {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}

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

func TestParseLongLong(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"12", 12, true}, {"-7", -7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"", 0, false}, {"-", 0, false},
		{"-0", 0, false}, {"01", 0, false}, {"+1", 0, false}, {" 1", 0, false},
		{"1 ", 0, false}, {"1x", 0, false}, {"0x10", 0, false},
	} {
		got, ok := parseLongLong(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseLongLong(%q) = %d, %v", tt.in, got, ok)
		}
	}
}
