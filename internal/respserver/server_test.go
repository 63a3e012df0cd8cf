package respserver

import (
	"io"
	"math/rand"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/resptest"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// fakeBackend runs the core inline under a mutex.
type fakeBackend struct {
	mu        sync.Mutex
	core      *monitor.Sentinel
	persistOK bool
	shutdowns int
	execs     int    // Exec calls
	steps     int    // Steps of the core through Exec's Handle
	level     string // the last SetLogLevel's level
}

// countingHandle is the core's Handle that counts its Steps.
type countingHandle struct {
	monitor.Handle
	steps *int
}

func (h countingHandle) Step(now time.Time, in msg.Input) (msg.Answer, error) {
	*h.steps++
	return h.Handle.Step(now, in)
}

func (b *fakeBackend) Exec(fn func(monitor.Handle, time.Time)) (monitor.Outcome, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.execs++
	fn(countingHandle{Handle: b.core, steps: &b.steps}, time.Now())
	var out monitor.Outcome
	for _, a := range b.core.Ready().Actions {
		if _, ok := a.(msg.PersistConfig); ok && !b.persistOK {
			out.PersistErr = io.ErrShortWrite
		}
	}
	return out, nil
}

func (b *fakeBackend) View() *view.View {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.core.View()
}

func (b *fakeBackend) LogLevel() string { return "notice" }

// SetLogLevel records level; it runs inside Exec, under the lock.
func (b *fakeBackend) SetLogLevel(level string) { b.level = level }

func (b *fakeBackend) Shutdown() {
	b.mu.Lock()
	b.shutdowns++
	b.mu.Unlock()
}

const testID = "0123456789abcdef0123456789abcdef01234567"

func startServer(t *testing.T, mutate func(*Options)) (*Server, *fakeBackend, string) {
	t.Helper()
	srv, be := newTestServer(mutate)
	addr := serveTestServer(t, srv)
	return srv, be, addr
}

// newTestServer returns a server over a fakeBackend, not serving yet.
func newTestServer(mutate func(*Options)) (*Server, *fakeBackend) {
	p := settings.Persisted{MyID: testID, Masters: []settings.MasterSpec{
		settings.NewMasterSpec("mymaster", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2),
	}}
	be := &fakeBackend{core: monitor.New(p, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now()), persistOK: true}
	be.core.Ready()
	opts := Options{Backend: be, Info: ServerInfo{Version: "7.0.15", Port: 26379}}
	if mutate != nil {
		mutate(&opts)
	}
	return New(opts), be
}

// serveTestServer serves srv on a loopback port until the test ends and
// returns its address.
func serveTestServer(t testing.TB, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.ServeListener(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// dial opens a raw RESP connection to the test server.
func dial(t *testing.T, addr string) *resptest.Conn { return resptest.Dial(t, addr) }

func TestCommands(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "+PONG\r\n"},
		{[]string{"ping", "hi"}, "$2\r\nhi\r\n"},
		{[]string{"PING", "a", "b"}, "-ERR wrong number of arguments for 'ping' command\r\n"},
		{[]string{"QUIT"}, "-ERR unknown command 'QUIT', with args beginning with: \r\n"},
		{[]string{"FOO", "bar", "baz"}, "-ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' \r\n"},
		{[]string{"SENTINEL"}, "-ERR wrong number of arguments for 'sentinel' command\r\n"},
		{[]string{"SENTINEL", "FOO"}, "-ERR unknown subcommand 'FOO'. Try SENTINEL HELP.\r\n"},
		{[]string{"CLIENT", "SETINFO", "lib-name", "x"}, "+OK\r\n"},
		{[]string{"SENTINEL", "MYID", "x"}, "-ERR wrong number of arguments for 'sentinel|myid' command\r\n"},
		{[]string{"sentinel", "myid"}, "$40\r\n" + testID + "\r\n"},
		{[]string{"SENTINEL", "FLUSHCONFIG"}, "+OK\r\n"},
		{[]string{"ROLE"}, "*2\r\n$8\r\nsentinel\r\n*1\r\n$8\r\nmymaster\r\n"},
		{[]string{"HELLO", "4"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"HELLO", "x"}, "-ERR Protocol version is not an integer or out of range\r\n"},
		{[]string{"HELLO", "3", "FOO"}, "-ERR Syntax error in HELLO option 'FOO'\r\n"},
		{[]string{"AUTH", "x"}, "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n"},
		{[]string{"AUTH", "a", "b"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{[]string{"AUTH", "a", "b", "c"}, "-ERR syntax error\r\n"},
		{[]string{"INFO", "replication"}, "$0\r\n\r\n"},
		{[]string{"CLIENT", "GETNAME"}, "$-1\r\n"},
		{[]string{"CLIENT", "SETNAME", "a b"}, "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{[]string{"CLIENT", "SETNAME", "me"}, "+OK\r\n"},
		{[]string{"CLIENT", "GETNAME"}, "$2\r\nme\r\n"},
		{[]string{"CLIENT", "KILL", "1.2.3.4:5"}, "-ERR No such client\r\n"},
		{[]string{"SHUTDOWN", "bogus"}, "-ERR syntax error\r\n"},
	}
	for _, tt := range tests {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}

func TestHello(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	id := strings.TrimSpace(strings.TrimPrefix(c.Do("CLIENT", "ID"), ":"))
	want3 := "%6\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:" + id +
		"\r\n$4\r\nmode\r\n$8\r\nsentinel\r\n$7\r\nmodules\r\n*0\r\n"
	if got := c.Do("HELLO", "3"); got != want3 {
		t.Fatalf("HELLO 3:\n got %q\nwant %q", got, want3)
	}
	if got := c.Do("SENTINEL", "NOPE"); got[0] != '-' {
		t.Fatalf("got %q", got)
	}
	if got := c.Do("CLIENT", "GETNAME"); got != "_\r\n" {
		t.Fatalf("RESP3 null: %q", got)
	}
	if got := c.Do("CLIENT", "INFO"); !strings.HasPrefix(got, "=") || !strings.Contains(got, "resp=3") {
		t.Fatalf("CLIENT INFO in RESP3: %q", got)
	}
	if got := c.Do("HELLO", "2", "SETNAME", "x"); !strings.HasPrefix(got, "*12\r\n") {
		t.Fatalf("HELLO 2: %q", got)
	}
	if got := c.Do("CLIENT", "GETNAME"); got != "$1\r\nx\r\n" {
		t.Fatalf("SETNAME through HELLO: %q", got)
	}
}

func TestInlineAndPipeline(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	c.Send("PING\r\n\n")
	if got := c.Reply(); got != "+PONG\r\n" {
		t.Fatalf("inline: %q", got)
	}
	c.Send("PING\r\nPING x\r\nCLIENT SETNAME pipelined\r\n")
	for _, want := range []string{"+PONG\r\n", "$1\r\nx\r\n", "+OK\r\n"} {
		if got := c.Reply(); got != want {
			t.Fatalf("pipelined: got %q want %q", got, want)
		}
	}
	// Nothing else arrives: the blank inline line gave no reply.
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("after pipeline: %q", got)
	}
}

func TestMalformedFrameClosesOnlyThatConnection(t *testing.T) {
	_, _, addr := startServer(t, nil)
	good := dial(t, addr)
	bad := dial(t, addr)
	if got := bad.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("got %q", got)
	}
	bad.Send("*x\r\n")
	if got := bad.Reply(); got != "-ERR Protocol error: invalid multibulk length\r\n" {
		t.Fatalf("got %q", got)
	}
	if !bad.Closed() {
		t.Fatal("connection with a malformed frame stayed open")
	}
	if got := good.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("other connection: %q", got)
	}
}

func TestRequirePass(t *testing.T) {
	users, err := acl.New("s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, addr := startServer(t, func(o *Options) { o.Users = users })
	c := dial(t, addr)
	if got := c.Do("PING"); got != "-NOAUTH Authentication required.\r\n" {
		t.Fatalf("before auth: %q", got)
	}
	if got := c.Do("FOO"); !strings.HasPrefix(got, "-ERR unknown command") {
		t.Fatalf("unknown command comes before NOAUTH, as in Redis: %q", got)
	}
	if got := c.Do("HELLO", "3"); !strings.HasPrefix(got, "-NOAUTH HELLO must be called") {
		t.Fatalf("HELLO without auth: %q", got)
	}
	if got := c.Do("AUTH", "wrong"); got != "-WRONGPASS invalid username-password pair or user is disabled.\r\n" {
		t.Fatalf("wrong pass: %q", got)
	}
	if got := c.Do("AUTH", "s3cret"); got != "+OK\r\n" {
		t.Fatalf("auth: %q", got)
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("after auth: %q", got)
	}
	c2 := dial(t, addr)
	if got := c2.Do("HELLO", "3", "AUTH", "default", "s3cret"); !strings.HasPrefix(got, "%6") {
		t.Fatalf("HELLO AUTH: %q", got)
	}
}

func TestUsersFromConfigLines(t *testing.T) {
	u, err := acl.New("", [][]string{{"default", "off"}, {"admin", "on", ">pw", "~*", "+@all"}})
	if err != nil {
		t.Fatal(err)
	}
	if u.DefaultOpen() {
		t.Error("default off must not be open")
	}
	if !u.Authenticate("admin", "pw") || u.Authenticate("admin", "nope") || u.Authenticate("ghost", "pw") {
		t.Error("admin authentication wrong")
	}
}

func TestPubSubRESP2(t *testing.T) {
	srv, _, addr := startServer(t, nil)
	c := dial(t, addr)
	if got := c.Do("SUBSCRIBE", "+sdown"); got != "*3\r\n$9\r\nsubscribe\r\n$6\r\n+sdown\r\n:1\r\n" {
		t.Fatalf("subscribe: %q", got)
	}
	if got := c.Do("PSUBSCRIBE", "*"); got != "*3\r\n$10\r\npsubscribe\r\n$1\r\n*\r\n:2\r\n" {
		t.Fatalf("psubscribe: %q", got)
	}
	if got := c.Do("PING"); got != "*2\r\n$4\r\npong\r\n$0\r\n\r\n" {
		t.Fatalf("ping while subscribed: %q", got)
	}
	if got := c.Do("INFO"); got != "-ERR Can't execute 'info': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n" {
		t.Fatalf("info while subscribed: %q", got)
	}
	if n := srv.Publish("+sdown", "master mymaster 127.0.0.1 6379"); n != 2 {
		t.Fatalf("delivered to %d", n)
	}
	got := c.Reply() + c.Reply()
	want := "*3\r\n$7\r\nmessage\r\n$6\r\n+sdown\r\n$30\r\nmaster mymaster 127.0.0.1 6379\r\n" +
		"*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$6\r\n+sdown\r\n$30\r\nmaster mymaster 127.0.0.1 6379\r\n"
	if got != want {
		t.Fatalf("messages:\n got %q\nwant %q", got, want)
	}
	if got := c.Do("UNSUBSCRIBE"); got != "*3\r\n$11\r\nunsubscribe\r\n$6\r\n+sdown\r\n:1\r\n" {
		t.Fatalf("unsubscribe: %q", got)
	}
	if got := c.Do("PUNSUBSCRIBE"); got != "*3\r\n$12\r\npunsubscribe\r\n$1\r\n*\r\n:0\r\n" {
		t.Fatalf("punsubscribe: %q", got)
	}
	if got := c.Do("PUNSUBSCRIBE"); got != "*3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n" {
		t.Fatalf("punsubscribe with none: %q", got)
	}
}

func TestPubSubRESP3(t *testing.T) {
	srv, _, addr := startServer(t, nil)
	c := dial(t, addr)
	c.Do("HELLO", "3")
	if got := c.Do("SUBSCRIBE", "+switch-master"); got != ">3\r\n$9\r\nsubscribe\r\n$14\r\n+switch-master\r\n:1\r\n" {
		t.Fatalf("subscribe: %q", got)
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("ping: %q", got)
	}
	if got := c.Do("SENTINEL", "MYID"); got != "$40\r\n"+testID+"\r\n" {
		t.Fatalf("commands are allowed while subscribed in RESP3: %q", got)
	}
	srv.Publish("+switch-master", "mymaster 127.0.0.1 6379 127.0.0.1 6380")
	if got := c.Reply(); got != ">3\r\n$7\r\nmessage\r\n$14\r\n+switch-master\r\n$38\r\nmymaster 127.0.0.1 6379 127.0.0.1 6380\r\n" {
		t.Fatalf("push: %q", got)
	}
}

func TestInfo(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	all := c.Do("INFO")
	for _, want := range []string{"# Server\r\n", "redis_version:7.0.15\r\n", "redis_mode:sentinel\r\n", "maxclients:",
		"used_cpu_user:", "# Sentinel\r\nsentinel_masters:1\r\nsentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\nsentinel_total_tilt:0\r\nsentinel_running_scripts:0\r\n",
		"master0:name=mymaster,status=ok,address=127.0.0.1:6379,slaves=0,sentinels=1\r\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
	for _, absent := range []string{"used_memory", "rdb_last_bgsave", "master_repl_offset", "cluster_enabled"} {
		if strings.Contains(all, absent) {
			t.Errorf("INFO has %q", absent)
		}
	}
	two := c.Do("INFO", "server", "SENTINEL")
	if !strings.Contains(two, "\r\n\r\n# Sentinel\r\n") || strings.Contains(two, "# CPU") {
		t.Errorf("INFO server sentinel: %q", two)
	}
	if !strings.HasSuffix(two, "sentinels=1\r\n\r\n") {
		t.Errorf("sections end with CRLF: %q", two[len(two)-40:])
	}
}

func TestClientListAndKill(t *testing.T) {
	_, _, addr := startServer(t, nil)
	a := dial(t, addr)
	b := dial(t, addr)
	b.Do("CLIENT", "SETNAME", "victim")
	list := a.Do("CLIENT", "LIST")
	if !strings.Contains(list, "name=victim") || strings.Count(list, "id=") != 2 {
		t.Fatalf("CLIENT LIST: %q", list)
	}
	if got := a.Do("CLIENT", "KILL", "TYPE", "normal"); got != ":1\r\n" {
		t.Fatalf("kill count: %q", got)
	}
	if !b.Closed() {
		t.Fatal("killed client still connected")
	}
	if got := a.Do("CLIENT", "KILL", "TYPE", "bogus"); got != "-ERR Unknown client type 'bogus'\r\n" {
		t.Fatalf("bad type: %q", got)
	}
}

func TestShutdownCallsBackend(t *testing.T) {
	_, be, addr := startServer(t, nil)
	c := dial(t, addr)
	c.Send("*1\r\n$8\r\nSHUTDOWN\r\n")
	if !c.Closed() {
		t.Fatal("SHUTDOWN must not reply")
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if be.shutdowns != 1 {
		t.Fatalf("shutdowns = %d", be.shutdowns)
	}
}

func TestFlushConfigFailure(t *testing.T) {
	_, be, addr := startServer(t, nil)
	// Under the lock: a client served by a loop reaches Exec through no
	// Go I/O, which gives the race detector no ordering to see.
	be.mu.Lock()
	be.persistOK = false
	be.mu.Unlock()
	c := dial(t, addr)
	if got := c.Do("SENTINEL", "FLUSHCONFIG"); got != "-ERR Failed to save config file. Check server logs.\r\n" {
		t.Fatalf("got %q", got)
	}
}

// TestConfigSetStepsOnce checks that SENTINEL CONFIG SET steps the core
// once, whether loglevel is among its pairs, alone or absent, and sets
// the loglevel in the same Exec.
func TestConfigSetStepsOnce(t *testing.T) {
	_, be, addr := startServer(t, func(o *Options) { o.Surface = commands.Surface72 })
	c := dial(t, addr)
	for _, tt := range []struct {
		args  []string
		level string
	}{
		{[]string{"announce-port", "5", "loglevel", "debug"}, "debug"},
		{[]string{"loglevel", "WARNING"}, "warning"},
		{[]string{"announce-ip", "10.0.0.1"}, ""},
	} {
		be.mu.Lock()
		be.execs, be.steps, be.level = 0, 0, ""
		be.mu.Unlock()
		if got := c.Do(append([]string{"SENTINEL", "CONFIG", "SET"}, tt.args...)...); got != "+OK\r\n" {
			t.Fatalf("%v: %q", tt.args, got)
		}
		be.mu.Lock()
		execs, steps, level := be.execs, be.steps, be.level
		be.mu.Unlock()
		if execs != 1 || steps != 1 || level != tt.level {
			t.Errorf("%v: %d Execs, %d Steps, loglevel %q; want 1, 1, %q", tt.args, execs, steps, level, tt.level)
		}
	}
	if got := c.Do("SENTINEL", "CONFIG", "GET", "announce-*"); !strings.Contains(got, "10.0.0.1") || !strings.Contains(got, "$1\r\n5\r\n") {
		t.Errorf("CONFIG GET announce-* = %q", got)
	}
}

func TestIsLocal(t *testing.T) {
	for _, tt := range []struct {
		ip   string
		want bool
	}{{"127.0.0.1", true}, {"127.3.4.5", false}, {"::1", true}, {"10.1.2.3", false}, {"192.168.1.1", false}} {
		if got := IsLocal(&net.TCPAddr{IP: net.ParseIP(tt.ip)}); got != tt.want {
			t.Errorf("IsLocal(%s) = %v", tt.ip, got)
		}
	}
}

func TestListenAddrs(t *testing.T) {
	addrs, opt := listenAddrs([]string{"127.0.0.1", "-::1", "*", "::*"}, 26379)
	want := []string{"127.0.0.1:26379", "[::1]:26379", "0.0.0.0:26379", "[::]:26379"}
	for i := range want {
		if addrs[i] != want[i] {
			t.Errorf("addr %d = %s want %s", i, addrs[i], want[i])
		}
	}
	if opt[0] || !opt[1] {
		t.Errorf("optional = %v", opt)
	}
}
