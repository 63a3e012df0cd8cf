package links

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// waitLimit bounds every wait in these tests.
const waitLimit = 10 * time.Second

// testServer is a redis-server process started for one test.
type testServer struct {
	addr   settings.Addr
	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

// startServer starts `redis-server` on a free port of 127.0.0.1 with the
// given extra config lines (rename-command is only accepted in a config
// file; "{port}" in them stands for the chosen port), waits until it accepts connections, and kills it in t.Cleanup. It
// skips the test when redis-server is not installed.
func startServer(t testing.TB, conf ...string) *testServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed; skipping the link tests that need a real instance")
	}
	dir := t.TempDir()
	for attempt := range 5 {
		port := freePort(t)
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndaemonize no\ndir %s\n%s\n",
			port, dir, strings.ReplaceAll(strings.Join(conf, "\n"), "{port}", strconv.Itoa(port)))
		path := filepath.Join(dir, fmt.Sprintf("redis-%d.conf", attempt))
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("redis-%d.log", attempt)))
		if err != nil {
			t.Fatal(err)
		}
		s := &testServer{addr: settings.Addr{Host: "127.0.0.1", Port: port}, exited: make(chan struct{})}
		s.cmd = exec.Command(bin, path)
		s.cmd.Stdout, s.cmd.Stderr = logf, logf
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = s.cmd.Wait()
			_ = logf.Close()
			close(s.exited)
		}()
		t.Cleanup(s.kill)
		if s.waitReady() {
			return s
		}
		s.kill()
	}
	t.Fatal("redis-server did not start")
	return nil
}

func (s *testServer) waitReady() bool {
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return false // e.g. the port was taken meanwhile
		default:
		}
		c, err := net.DialTimeout("tcp", s.addr.String(), time.Second)
		if err == nil {
			_ = c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	return false
}

// kill ends the server process and waits for it; it may be called again.
func (s *testServer) kill() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// rawClient is a minimal RESP2 client for test set-up that sends nothing of
// its own (unlike go-redis), so it can run MONITOR and leave no trace.
type rawClient struct {
	t testing.TB
	c net.Conn
	r *bufio.Reader
}

// redisErr is an error reply read by rawClient.
type redisErr string

func (e redisErr) Error() string { return string(e) }

func dialRaw(t testing.TB, addr settings.Addr, auth ...string) *rawClient {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr.String(), waitLimit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	rc := &rawClient{t: t, c: c, r: bufio.NewReader(c)}
	if len(auth) > 0 {
		if r := rc.do(append([]string{"AUTH"}, auth...)...); r != "OK" {
			t.Fatalf("AUTH: %v", r)
		}
	}
	return rc
}

func (rc *rawClient) send(args ...string) {
	rc.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_ = rc.c.SetWriteDeadline(time.Now().Add(waitLimit))
	if _, err := io.WriteString(rc.c, b.String()); err != nil {
		rc.t.Fatal(err)
	}
}

// read reads one reply: string, redisErr, int64, nil or []any.
func (rc *rawClient) read() any {
	rc.t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(waitLimit))
	v, err := rc.readOne()
	if err != nil {
		rc.t.Fatal(err)
	}
	return v
}

func (rc *rawClient) readOne() (any, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return redisErr(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = rc.readOne(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad reply line %q", line)
}

func (rc *rawClient) do(args ...string) any {
	rc.t.Helper()
	rc.send(args...)
	return rc.read()
}

// sink collects delivered inputs per link id, never blocking the adapter.
type sink struct {
	mu    sync.Mutex
	chans map[msg.LinkID]chan msg.Input
	// connected records LinkConnected per link, with how many inputs of
	// the link had been queued before it; it is kept out of the queues so
	// that tests read the other inputs in sequence.
	connected map[msg.LinkID]int
}

// connectedAfter reports whether id was reported connected and how many
// other inputs of id came before that.
func (s *sink) connectedAfter(id msg.LinkID) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.connected[id]
	return n, ok
}

func (s *sink) ch(id msg.LinkID) chan msg.Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chans == nil {
		s.chans = make(map[msg.LinkID]chan msg.Input)
	}
	c, ok := s.chans[id]
	if !ok {
		c = make(chan msg.Input, 100000)
		s.chans[id] = c
	}
	return c
}

func (s *sink) deliver(in msg.Input) {
	if c, ok := in.(msg.LinkConnected); ok {
		q := s.ch(c.ID)
		s.mu.Lock()
		if s.connected == nil {
			s.connected = map[msg.LinkID]int{}
		}
		s.connected[c.ID] = len(q)
		s.mu.Unlock()
		return
	}
	s.ch(inputID(in)) <- in
}

// next returns the next input for id, failing the test after waitLimit.
func (s *sink) next(t *testing.T, id msg.LinkID) msg.Input {
	t.Helper()
	select {
	case in := <-s.ch(id):
		return in
	case <-time.After(waitLimit):
		t.Fatalf("link %d: nothing delivered within %v", id, waitLimit)
		return nil
	}
}

// none fails if anything is queued for id; call it after Links.Close, when
// nothing can arrive any more.
func (s *sink) none(t *testing.T, id msg.LinkID) {
	t.Helper()
	select {
	case in := <-s.ch(id):
		t.Fatalf("link %d: unexpected %T %+v", id, in, in)
	default:
	}
}

func inputID(in msg.Input) msg.LinkID {
	switch in := in.(type) {
	case msg.LinkClosed:
		return in.ID
	case msg.LinkLocalAddr:
		return in.ID
	case msg.CommandReply:
		return in.ID
	case msg.PubSubActivity:
		return in.ID
	case msg.PubSubMessage:
		return in.ID
	}
	panic(fmt.Sprintf("unexpected input %T", in))
}

// expect asserts that in is a T.
func expect[T msg.Input](t *testing.T, in msg.Input) T {
	t.Helper()
	v, ok := in.(T)
	if !ok {
		var zero T
		t.Fatalf("got %T %+v, want %T", in, in, zero)
	}
	return v
}

// newTestLinks returns a Links delivering into a new sink, closed in
// t.Cleanup.
func newTestLinks(t *testing.T, opts Options) (*Links, *sink) {
	t.Helper()
	s := &sink{}
	opts.Deliver = s.deliver
	opts.Logf = t.Logf
	l := New(opts)
	t.Cleanup(l.Close)
	return l, s
}
