package sim_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/inforeply"
	"github.com/go-sentinel/go-sentinel/internal/sim"
	"github.com/go-sentinel/go-sentinel/internal/transcript"
)

// TestServerTranscripts runs the transcripts in testdata/server: each
// drives modelled Redis servers with commands sent as clients send them
// (no Sentinel), to pin the server model down: CLIENT PAUSE, FAILOVER,
// writes, replication and what it keeps or throws away. The format is
// TestFleetTranscripts's. The commands:
//
//	servers [seed=N] NAME...          a fresh cluster: the first server is a master at
//	                                  sim.ServerAddr(0), the others its replicas, in sync
//	set SERVER KEY=VALUE...           lag=D sync-delay=D reject-psync=BOOL link-down=BOOL
//	client NAME SERVER                a Client connected to SERVER
//	send NAME WORD...                 the client sends one command (no reply awaited)
//	run DURATION                      advance the clock; prints every reply the clients
//	                                  received, `+T name: COMMAND -> REPLY`
//	await SERVER STATE [DURATION]     run until the server's master_failover_state is
//	                                  STATE (at most DURATION, 10s by default)
//	pending NAME                      the client's commands not answered yet
//	info SERVER...                    role, master, link, offset and failover state
//	data SERVER...                    each server's writes and offset
//	get SERVER KEY                    the key's value on that server
//	writer NAME SERVER [every=D]      a direct Writer to SERVER
//	stop NAME                         stop a Writer
//	writes NAME                       a Writer's attempts, acknowledgements, and the
//	                                  acknowledgements missing from the master
//	crash/restart NAME, partition A,B | C,D, heal
//	invariants                        "ok", or the simulator's broken invariant
//
// SERVER_TRACE=1 logs the simulator's trace of each file's last cluster.
func TestServerTranscripts(t *testing.T) {
	transcript.Glob(t, "testdata/server/*.txt", func(t *testing.T, path string) {
		t.Parallel()
		m := &model{t: t}
		transcript.Run(t, path, func(b transcript.Block) []string {
			got := m.run(b.Fields())
			if m.rec != nil && m.rec.msg != "" && !m.reported {
				m.reported = true
				t.Errorf("%s:%d: %s: %s", b.Path, b.Line, b.Cmd, m.rec.msg)
			}
			return got
		})
		if os.Getenv("SERVER_TRACE") != "" && m.c != nil {
			t.Logf("trace of the last cluster of %s:\n%s", path, m.c.TraceString())
		}
	})
}

// model is the state of one server transcript.
type model struct {
	t        *testing.T
	c        *sim.Cluster
	rec      *recorder
	reported bool
	seen     map[string]int // replies of each client already printed
}

func (m *model) run(f []string) []string {
	cmd, args := f[0], f[1:]
	if cmd != "servers" && m.c == nil {
		m.t.Fatalf("%q before servers", cmd)
	}
	c := m.c
	switch cmd {
	case "servers":
		return m.servers(args)
	case "set":
		m.set(args)
	case "client":
		m.want(f, 2)
		c.AddClient(args[0]).Connect(args[1])
	case "send":
		if len(args) < 2 {
			m.t.Fatalf("send: want NAME WORD...")
		}
		m.client(args[0]).Send(args[1:]...)
	case "run":
		m.want(f, 1)
		c.Run(m.duration(args[0]))
		return m.replies()
	case "await":
		return m.await(args)
	case "pending":
		m.want(f, 1)
		return []string{fmt.Sprintf("%s: %d pending", args[0], m.client(args[0]).Pending())}
	case "info":
		var out []string
		for _, name := range args {
			out = append(out, m.info(m.server(name)))
		}
		return out
	case "data":
		var out []string
		for _, name := range args {
			s := m.server(name)
			text := fmt.Sprintf("%s: %d writes, offset %d", name, len(s.Log()), s.ReplOffset)
			for _, k := range s.Keys() {
				if strings.HasSuffix(k, ":counter") {
					v, _ := s.Get(k)
					text += fmt.Sprintf(", %s=%s", k, v)
				}
			}
			out = append(out, text)
		}
		return out
	case "get":
		m.want(f, 2)
		if v, ok := m.server(args[0]).Get(args[1]); ok {
			return []string{v}
		}
		return []string{"(nil)"}
	case "writer":
		return m.writer(args)
	case "stop":
		m.want(f, 1)
		m.writerNamed(args[0]).Stop()
	case "writes":
		m.want(f, 1)
		return m.writes(m.writerNamed(args[0]))
	case "crash", "restart":
		m.want(f, 1)
		if cmd == "crash" {
			c.Crash(args[0])
		} else {
			c.Restart(args[0])
		}
	case "partition":
		a, b, ok := strings.Cut(strings.Join(args, " "), "|")
		if !ok {
			m.t.Fatalf("partition: want A,B | C,D")
		}
		c.Partition(strings.Split(strings.TrimSpace(a), ","), strings.Split(strings.TrimSpace(b), ","))
	case "heal":
		c.Heal()
	case "invariants":
		if err := c.Err(); err != nil {
			return []string{err.Error()}
		}
		return []string{"ok"}
	default:
		m.t.Fatalf("unknown command %q", cmd)
	}
	return nil
}

// servers builds the cluster of a transcript.
func (m *model) servers(args []string) []string {
	o := sim.Options{Seed: 1}
	var names []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "seed="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				m.t.Fatalf("bad seed %q", v)
			}
			o.Seed = n
			continue
		}
		names = append(names, a)
	}
	if len(names) == 0 {
		m.t.Fatalf("servers: want at least one name")
	}
	m.rec = &recorder{}
	m.reported = false
	m.c = sim.New(m.rec, o)
	m.seen = map[string]int{}
	master := m.c.AddServer(names[0], sim.ServerAddr(0))
	for k, name := range names[1:] {
		m.c.AddReplica(name, sim.ServerAddr(k+1), master)
	}
	var out []string
	for _, s := range m.c.Servers() {
		out = append(out, m.info(s))
	}
	return out
}

// set changes a server's knobs.
func (m *model) set(args []string) {
	if len(args) < 2 {
		m.t.Fatalf("set: want SERVER KEY=VALUE...")
	}
	s := m.server(args[0])
	for _, kv := range args[1:] {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "lag":
			s.ReplLag = m.duration(v)
		case "sync-delay":
			s.SyncDelay = m.duration(v)
		case "reject-psync":
			s.RejectPSync = v == "true"
		case "link-down":
			s.LinkDown = v == "true"
		default:
			m.t.Fatalf("set: unknown knob %q", k)
		}
	}
}

// replies prints the replies the clients received since the last time.
func (m *model) replies() []string {
	var out []string
	type line struct {
		at   time.Time
		text string
	}
	var lines []line
	for _, name := range m.clientNames() {
		reps := m.c.Client(name).Replies()
		for _, r := range reps[m.seen[name]:] {
			text := fmt.Sprintf("%s: %s -> %s", name, strings.Join(r.Command, " "), r)
			if r.Closed != "" {
				text = fmt.Sprintf("%s: %s (%s)", name, r, r.Server)
			}
			lines = append(lines, line{r.At, text})
		}
		m.seen[name] = len(reps)
	}
	// Stable by time, then by client order.
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].at.Before(lines[j-1].at); j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	for _, l := range lines {
		out = append(out, fmt.Sprintf("+%s %s", stamp(l.at.Sub(sim.DefaultStart)), l.text))
	}
	return out
}

// stamp renders a virtual time offset with milliseconds.
func stamp(d time.Duration) string {
	return fmt.Sprintf("%d.%03ds", int64(d/time.Second), int64(d%time.Second/time.Millisecond))
}

// clientNames returns the transcript's plain clients (not the writers'),
// in creation order.
func (m *model) clientNames() []string {
	var out []string
	for _, cl := range m.c.Clients() {
		if m.c.Writer(cl.Name) == nil {
			out = append(out, cl.Name)
		}
	}
	return out
}

// await runs until a server's failover state is the one named.
func (m *model) await(args []string) []string {
	if len(args) < 2 {
		m.t.Fatalf("await: want SERVER STATE [DURATION]")
	}
	s, state, d := m.server(args[0]), args[1], 10*time.Second
	if len(args) > 2 {
		d = m.duration(args[2])
	}
	if !m.c.RunUntil(func() bool { return s.FailoverState() == state }, d) {
		return append(m.replies(), fmt.Sprintf("%s still %s after %v", s.Name, s.FailoverState(), d))
	}
	return append(m.replies(), fmt.Sprintf("+%s %s %s", stamp(m.c.Elapsed()), s.Name, state))
}

// info renders the parts of a server's INFO the transcripts follow.
func (m *model) info(s *sim.Server) string {
	r := inforeply.Parse(s.Info())
	text := s.Name + " " + r.Role
	if r.Role == "slave" {
		link := "down"
		if r.MasterLinkUp {
			link = "up"
		}
		text += fmt.Sprintf(" of %s:%d link %s offset %d", r.MasterHost, r.MasterPort, link, r.SlaveReplOffset)
	} else {
		text += fmt.Sprintf(" offset %d replicas %d", s.ReplOffset, len(r.Replicas))
	}
	for _, l := range strings.Split(s.Info(), "\r\n") {
		if v, ok := strings.CutPrefix(l, "master_failover_state:"); ok {
			text += " " + v
		}
	}
	return text
}

// writer adds a direct Writer.
func (m *model) writer(args []string) []string {
	if len(args) < 2 {
		m.t.Fatalf("writer: want NAME SERVER [every=D]")
	}
	o := sim.WriterOptions{Server: args[1]}
	for _, a := range args[2:] {
		if v, ok := strings.CutPrefix(a, "every="); ok {
			o.Every = m.duration(v)
		}
	}
	m.c.AddWriter(args[0], o)
	return nil
}

// writes summarises a Writer: attempts, acknowledgements by server, and
// the acknowledged writes the master lacks.
func (m *model) writes(w *sim.Writer) []string {
	by := map[string]int{}
	var order []string
	for _, a := range w.Acked() {
		if by[a.Server] == 0 {
			order = append(order, a.Server)
		}
		by[a.Server]++
	}
	parts := []string{}
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s %d", s, by[s]))
	}
	out := []string{fmt.Sprintf("%s: %d attempted, %d acknowledged (%s)", w.Name, w.Attempts(), len(w.Acked()), strings.Join(parts, ", "))}
	if err := m.c.CheckNoLostWrites(w); err != nil {
		return append(out, err.Error())
	}
	return append(out, "no acknowledged write lost")
}

func (m *model) want(f []string, n int) {
	if len(f)-1 != n {
		m.t.Fatalf("%s: want %d arguments", strings.Join(f, " "), n)
	}
}

func (m *model) client(name string) *sim.Client {
	cl := m.c.Client(name)
	if cl == nil {
		m.t.Fatalf("no client %q", name)
	}
	return cl
}

func (m *model) server(name string) *sim.Server {
	s := m.c.Server(name)
	if s == nil {
		m.t.Fatalf("no server %q", name)
	}
	return s
}

func (m *model) writerNamed(name string) *sim.Writer {
	w := m.c.Writer(name)
	if w == nil {
		m.t.Fatalf("no writer %q", name)
	}
	return w
}

func (m *model) duration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		m.t.Fatalf("not a duration: %q", s)
	}
	return d
}
