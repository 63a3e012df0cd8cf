package respserver

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/acl"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// logCapture is a Logger that hands every line to the test.
type logCapture struct {
	lines chan string
}

func newLogCapture() *logCapture { return &logCapture{lines: make(chan string, 1000)} }

func (l *logCapture) put(level, format string, args ...any) {
	select {
	case l.lines <- level + " " + fmt.Sprintf(format, args...):
	default:
	}
}
func (l *logCapture) Debugf(f string, a ...any)   { l.put("debug", f, a...) }
func (l *logCapture) Verbosef(f string, a ...any) { l.put("verbose", f, a...) }
func (l *logCapture) Noticef(f string, a ...any)  { l.put("notice", f, a...) }
func (l *logCapture) Warningf(f string, a ...any) { l.put("warning", f, a...) }

// wait returns the first line matching re, failing after 10 s.
func (l *logCapture) wait(t *testing.T, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line := <-l.lines:
			if rx.MatchString(line) {
				return line
			}
		case <-timeout:
			t.Fatalf("no log line matching %q", re)
		}
	}
}

// poll returns a line matching re if one was logged already.
func (l *logCapture) poll(re string) (string, bool) {
	rx := regexp.MustCompile(re)
	for {
		select {
		case line := <-l.lines:
			if rx.MatchString(line) {
				return line, true
			}
		default:
			return "", false
		}
	}
}

// clientLine is the start of Redis's client description in log lines.
const clientLine = `id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name=\S* age=\d+ idle=\d+ flags=`

// readUntilClosed reads c until the server closes it and returns what came.
func readUntilClosed(t *testing.T, c net.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server did not close the connection; got %.100q", b)
	}
	return string(b)
}

// fuzzServer is a server with a fresh core behind a fakeBackend, serving
// no listener: connections are handed to it with serveConn.
func fuzzServer(t *testing.T, requirepass string) *Server {
	p := settings.Persisted{MyID: testID, Masters: []settings.MasterSpec{
		settings.NewMasterSpec("mymaster", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2),
	}}
	be := &fakeBackend{core: monitor.New(p, monitor.Options{}, rand.New(rand.NewSource(1)), time.Now()), persistOK: true}
	be.core.Ready()
	users, err := acl.New(requirepass, nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Backend: be, Users: users, Info: ServerInfo{Version: "7.0.15", Port: 26379},
		QueryBufferLimit: 1 << 20, MaxBulkLen: 1 << 20})
}

func TestServeConnOverPipe(t *testing.T) {
	srv := fuzzServer(t, "")
	defer srv.Close()
	cli, conn := net.Pipe()
	defer cli.Close()
	srv.serveConn(conn)
	go cli.Write([]byte("PING\r\n*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n"))
	rd := bufio.NewReader(cli)
	for _, want := range []string{"+PONG\r\n", "$2\r\n", "hi\r\n"} {
		if got, err := rd.ReadString('\n'); got != want {
			t.Fatalf("got %q %v, want %q", got, err, want)
		}
	}
}

// TestMaxclients: past maxclients a connection gets Redis's error and is
// closed; the others are served.
func TestMaxclients(t *testing.T) {
	srv, _, addr := startServer(t, func(o *Options) { o.Maxclients = 2 })
	a, b := dial(t, addr), dial(t, addr)
	for _, c := range []interface{ Do(...string) string }{a, b} {
		if got := c.Do("PING"); got != "+PONG\r\n" {
			t.Fatal(got)
		}
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if got := readUntilClosed(t, nc); got != "-ERR max number of clients reached\r\n" {
		t.Fatalf("third client got %q", got)
	}
	if got := a.Do("PING"); got != "+PONG\r\n" {
		t.Fatal(got)
	}
	if got := srv.stats.rejected.Load(); got != 1 {
		t.Errorf("rejected_connections %d, want 1", got)
	}
}

// subscriber connects and subscribes to ch; the caller reads the rest.
func subscriber(t *testing.T, addr, ch string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fmt.Fprintf(nc, "SUBSCRIBE %s\r\n", ch)
	want := fmt.Sprintf("*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n", len(ch), ch)
	buf := make([]byte, len(want))
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != want {
		t.Fatalf("subscribe: %q %v", buf, err)
	}
	_ = nc.SetReadDeadline(time.Time{})
	return nc
}

// TestPubSubHardLimit: a subscriber that does not read is closed when its
// pending output reaches the pub/sub hard limit, with Redis's log line;
// the other subscribers keep their messages.
func TestPubSubHardLimit(t *testing.T) {
	log := newLogCapture()
	srv, _, addr := startServer(t, func(o *Options) {
		o.Logger = log
		o.OutputLimits = &OutputLimits{PubSub: OutputLimit{Hard: 256 << 10}}
	})
	slow := subscriber(t, addr, "ch")
	reader := subscriber(t, addr, "ch")
	got := make(chan string, 1)
	go func() {
		rd := bufio.NewReader(reader)
		for {
			l, err := rd.ReadString('\n')
			if err != nil {
				close(got)
				return
			}
			if strings.HasPrefix(l, "x") || l == "last\r\n" {
				got <- l
			}
		}
	}()
	// One message at a time, each read by the other subscriber before the
	// next: only the slow one falls behind.
	msg := strings.Repeat("x", 16<<10)
	sent := 0
	var line string
	for ; sent < 20000 && line == ""; sent++ {
		srv.Publish("ch", msg)
		select {
		case _, ok := <-got:
			if !ok {
				t.Fatalf("the reading subscriber was closed after %d messages", sent)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the reading subscriber got nothing")
		}
		line, _ = log.poll("overcoming of output buffer limits")
	}
	if line == "" {
		t.Fatalf("%d messages of 16 KiB published, the slow subscriber is still there", sent)
	}
	if !regexp.MustCompile(`^warning Client ` + clientLine + `P .* scheduled to be closed ASAP for overcoming of output buffer limits\.$`).MatchString(line) {
		t.Errorf("log line %q", line)
	}
	readUntilClosed(t, slow)
	if n := srv.Publish("ch", "last"); n != 1 {
		t.Errorf("last message reached %d subscribers, want 1", n)
	}
	if l := <-got; l != "last\r\n" {
		t.Errorf("reading subscriber got %q", l)
	}
	t.Logf("slow subscriber closed after %d messages of 16 KiB", sent)
}

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestPubSubSoftLimit: over the soft limit a subscriber is closed only once
// it stayed over it for more than the soft seconds, by the next message or
// by the once-a-second check.
func TestPubSubSoftLimit(t *testing.T) {
	for _, byCron := range []bool{false, true} {
		log := newLogCapture()
		clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
		srv, _, _ := startServer(t, func(o *Options) {
			o.Logger = log
			o.Now = clock.now
			o.OutputLimits = &OutputLimits{PubSub: OutputLimit{Soft: 128 << 10, SoftSeconds: 2}}
		})
		// Over net.Pipe nothing is buffered on the way: what the
		// subscriber does not read stays queued.
		cli, conn := net.Pipe()
		defer cli.Close()
		srv.serveConn(conn)
		go cli.Write([]byte("SUBSCRIBE ch\r\n"))
		ack := "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
		buf := make([]byte, len(ack))
		if _, err := io.ReadFull(cli, buf); err != nil || string(buf) != ack {
			t.Fatalf("subscribe: %q %v", buf, err)
		}
		c := srv.clientList()[0]
		msg := strings.Repeat("y", 16<<10)
		for used, _ := c.outputUsage(); limitUsage(used) < 128<<10; used, _ = c.outputUsage() {
			srv.Publish("ch", msg)
		}
		clock.add(2 * time.Second) // not more than 2 s yet
		srv.Publish("ch", msg)
		if c.checkOutputLimits(clock.now().Unix()) {
			t.Fatal("closed before the soft seconds passed")
		}
		clock.add(time.Second)
		client := `^warning Client id=\d+ addr=pipe laddr=pipe fd=\d+ name= age=\d+ idle=\d+ flags=P .*`
		if byCron {
			if !c.checkOutputLimits(clock.now().Unix()) {
				t.Fatal("not closed by the periodic check")
			}
			log.wait(t, client+` closed for overcoming of output buffer limits\.$`)
		} else {
			srv.Publish("ch", msg)
			log.wait(t, client+` scheduled to be closed ASAP for overcoming of output buffer limits\.$`)
		}
	}
}

// TestQueryBufferLimit: a request growing past the query buffer limit
// closes the connection without a reply, with Redis's log line.
func TestQueryBufferLimit(t *testing.T) {
	log := newLogCapture()
	_, _, addr := startServer(t, func(o *Options) {
		o.Logger = log
		o.QueryBufferLimit = 1 << 20
	})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	go func() {
		fmt.Fprintf(nc, "*3\r\n$7\r\nPUBLISH\r\n$1\r\nc\r\n$%d\r\n", 2<<20)
		_, _ = nc.Write([]byte(strings.Repeat("z", 2<<20)))
	}()
	if got := readUntilClosed(t, nc); got != "" {
		t.Errorf("got %.100q, want no reply", got)
	}
	log.wait(t, `^warning Closing client that reached max query buffer length: `+clientLine+`N .* \(qbuf initial bytes: "z+"\)$`)
}

// TestProtocolErrorLogged: a malformed request gets Redis's error, the
// connection closes, and the verbose log has Redis's line.
func TestProtocolErrorLogged(t *testing.T) {
	log := newLogCapture()
	_, _, addr := startServer(t, func(o *Options) { o.Logger = log })
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprint(nc, "PING\r\n*1\r\n$x\r\nPING\r\n")
	if got := readUntilClosed(t, nc); got != "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n" {
		t.Errorf("got %q", got)
	}
	log.wait(t, `^verbose Protocol error \(invalid bulk length\) from client: `+clientLine+`N .*\. Query buffer during protocol error: '\$x\.\.PING\.\.'$`)
}

// TestNormalClientBackpressure: a client that sends commands without
// reading the replies is not read from once 1 MiB of replies waits, and
// loses nothing: when it reads, every reply comes.
func TestNormalClientBackpressure(t *testing.T) {
	srv := fuzzServer(t, "")
	defer srv.Close()
	cli, conn := net.Pipe()
	defer cli.Close()
	srv.serveConn(conn)
	sent := 0
	for ; sent < 100000; sent++ {
		// net.Pipe has no buffer: a write returns once the server read it.
		_ = cli.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err := cli.Write([]byte("INFO\r\n")); err != nil {
			break
		}
	}
	c := srv.clientList()[0]
	used, _ := c.outputUsage()
	if sent == 100000 || used < replyBacklog || used > replyBacklog+64<<10 {
		t.Fatalf("after %d commands the server still reads; %d bytes of replies wait", sent, used)
	}
	t.Logf("the server stopped reading after %d INFO commands, %d bytes of replies waiting", sent, used)
	_ = cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(cli)
	for i := 0; i < sent; i++ {
		l, err := rd.ReadString('\n')
		if err != nil || !strings.HasPrefix(l, "$") {
			t.Fatalf("reply %d: %q %v", i, l, err)
		}
		n := 0
		fmt.Sscanf(l, "$%d", &n)
		if _, err := rd.Discard(n + 2); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSubscriberPipelineClosedAtLimit: a subscribed client's own replies
// count against the pub/sub limit, as in Redis: one that pipelines PINGs
// without reading is closed at the hard limit.
func TestSubscriberPipelineClosedAtLimit(t *testing.T) {
	log := newLogCapture()
	_, _, addr := startServer(t, func(o *Options) {
		o.Logger = log
		o.OutputLimits = &OutputLimits{PubSub: OutputLimit{Hard: 1 << 20}}
	})
	nc := subscriber(t, addr, "ch")
	ping := fmt.Sprintf("PING %s\r\n", strings.Repeat("p", 60000))
	go func() {
		for i := 0; i < 2000; i++ { // 120 MB, far more than kernel buffers and the limit
			if _, err := nc.Write([]byte(ping)); err != nil {
				return
			}
		}
	}()
	log.wait(t, `^warning Client `+clientLine+`P .* scheduled to be closed ASAP for overcoming of output buffer limits\.$`)
	readUntilClosed(t, nc)
}

// TestLimitUsage: the output a client-output-buffer-limit sees is what
// overflows Redis's 16 KiB reply buffer, in whole 16 KiB blocks.
func TestLimitUsage(t *testing.T) {
	for _, tc := range []struct{ queued, want int64 }{
		{0, 0}, {2500, 0}, {16 << 10, 0}, {16<<10 + 1, 16 << 10},
		{32 << 10, 16 << 10}, {32<<10 + 1, 32 << 10}, {1 << 20, 1<<20 - 16<<10},
	} {
		if got := limitUsage(tc.queued); got != tc.want {
			t.Errorf("limitUsage(%d) = %d, want %d", tc.queued, got, tc.want)
		}
	}
}

// TestNormalLimitBeyondReplyBuffer: with client-output-buffer-limit
// normal 1kb 0 0, an INFO reply (2.5 KB) waiting to be read does not close
// the client, as in Redis, whose reply buffer holds it; replies piling up
// beyond 16 KiB do.
func TestNormalLimitBeyondReplyBuffer(t *testing.T) {
	log := newLogCapture()
	srv, _ := newTestServer(func(o *Options) {
		o.Logger = log
		o.OutputLimits = &OutputLimits{Normal: OutputLimit{Hard: 1 << 10}, PubSub: DefaultOutputLimits.PubSub}
	})
	defer srv.Close()
	cli, conn := net.Pipe()
	defer cli.Close()
	srv.serveConn(conn)
	// net.Pipe has no buffer: the replies wait in the server until read.
	if _, err := cli.Write([]byte("INFO\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(cli)
	l, err := rd.ReadString('\n')
	n := 0
	if _, serr := fmt.Sscanf(l, "$%d", &n); err != nil || serr != nil || n < 1<<10 {
		t.Fatalf("INFO: %q %v", l, err)
	}
	if _, err := rd.Discard(n + 2); err != nil {
		t.Fatal(err)
	}
	if l, err := rd.ReadString('\n'); l != "+PONG\r\n" {
		t.Fatalf("PING: %q %v", l, err)
	}
	go func() {
		for i := 0; i < 20; i++ { // 50 KB of INFO replies, never read
			if _, err := cli.Write([]byte("INFO\r\n")); err != nil {
				return
			}
		}
	}()
	log.wait(t, `^warning Client id=\d+ addr=pipe laddr=pipe .* flags=N .* scheduled to be closed ASAP for overcoming of output buffer limits\.$`)
}
