package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// ErrLostWrites wraps the error CheckNoLostWrites returns when an
// acknowledged write is missing from the master.
var ErrLostWrites = errors.New("sim: acknowledged writes lost")

// WriterOptions configure a Writer. Zero fields take the defaults noted.
type WriterOptions struct {
	// Server, when set, makes a direct writer: it always writes to that
	// server and never asks a Sentinel.
	Server string
	// Sentinel is the node a following writer asks for the master's
	// address (GET-MASTER-ADDR-BY-NAME): at the start, after its
	// connection closed, and after a -READONLY; "s1" if empty.
	Sentinel string
	// Master is the master name it asks for; "m" if empty.
	Master string
	// Every is the wait between a write's reply and the next write;
	// 10 ms if zero.
	Every time.Duration
	// Retry is the wait before trying again after a refused or closed
	// connection, a -READONLY, or a failed ask; 100 ms if zero.
	Retry time.Duration
}

// Writer is a simulated application that writes, one write at a time,
// to the server it believes is the master. A write is the transaction
// MULTI, INCR <name>:counter, SET <name>:<seq> <seq>, EXEC; when EXEC
// answers with the results the write is acknowledged, and the Writer
// records which server acknowledged it and when.
type Writer struct {
	c *Cluster
	// Name is the writer's endpoint name (that of its Client).
	Name string

	cl       *Client
	opts     WriterOptions
	seq      int
	cur      *pendingWrite
	acks     []Ack
	attempts int
	gen      int // the one scheduled step that may run
	stopped  bool
}

// pendingWrite is the write in flight: its number, how many of its four
// replies came, and the first error among them.
type pendingWrite struct {
	seq     int
	replies int
	err     string
}

// Ack is one acknowledged write of a Writer: its number and key, the
// server that acknowledged it, when, and the counter value its INCR gave.
type Ack struct {
	Seq     int
	Key     string
	Server  string
	At      time.Time
	Counter int64
}

// AddWriter adds a Writer called name (an endpoint, like a Client) and
// starts it: it connects and writes until Stop.
func (c *Cluster) AddWriter(name string, o WriterOptions) *Writer {
	if o.Server == "" && o.Sentinel == "" {
		o.Sentinel = "s1"
	}
	if o.Master == "" {
		o.Master = masterNameDefault
	}
	if o.Every <= 0 {
		o.Every = 10 * time.Millisecond
	}
	if o.Retry <= 0 {
		o.Retry = 100 * time.Millisecond
	}
	w := &Writer{c: c, Name: name, cl: c.AddClient(name), opts: o}
	w.cl.onReply = w.reply
	w.cl.onClose = func(string) {
		w.cur = nil
		w.after(o.Retry, w.connect)
	}
	c.writers = append(c.writers, w)
	c.tracef(name, "writer started (%s)", w.follows())
	w.after(0, w.connect)
	return w
}

// masterNameDefault is the master name Topology and WriterOptions default
// to.
const masterNameDefault = "m"

// follows names what the writer writes to, for the trace.
func (w *Writer) follows() string {
	if w.opts.Server != "" {
		return "server " + w.opts.Server
	}
	return "master " + w.opts.Master + " per " + w.opts.Sentinel
}

// Writer returns the Writer called name, or nil.
func (c *Cluster) Writer(name string) *Writer {
	for _, w := range c.writers {
		if w.Name == name {
			return w
		}
	}
	return nil
}

// Stop ends the writer's writing: no new write starts; the one in flight
// still counts if it is acknowledged.
func (w *Writer) Stop() {
	w.stopped = true
	w.gen++
	w.c.tracef(w.Name, "writer stopped")
}

// Acked returns the writer's acknowledged writes, in order.
func (w *Writer) Acked() []Ack { return append([]Ack(nil), w.acks...) }

// Attempts returns how many writes the writer started.
func (w *Writer) Attempts() int { return w.attempts }

// Client returns the writer's Client.
func (w *Writer) Client() *Client { return w.cl }

// after runs fn d from now, unless something else was scheduled since or
// the writer stopped.
func (w *Writer) after(d time.Duration, fn func()) {
	w.gen++
	g := w.gen
	w.c.sched.at(w.c.now.Add(d), func() {
		if w.gen == g && !w.stopped {
			fn()
		}
	})
}

// connect opens a connection to the server the writer should write to,
// asking its Sentinel first when it follows one, and starts writing.
func (w *Writer) connect() {
	if w.opts.Server != "" {
		w.cl.Connect(w.opts.Server)
		w.write()
		return
	}
	w.gen++
	g := w.gen
	w.cl.AskMaster(w.opts.Sentinel, w.opts.Master, func(a settings.Addr, ok bool, why string) {
		if w.gen != g || w.stopped {
			return
		}
		if !ok {
			w.after(w.opts.Retry, w.connect)
			return
		}
		w.cl.ConnectAddr(a)
		w.write()
	})
}

// write sends the next write on the current connection.
func (w *Writer) write() {
	if w.stopped || w.cur != nil || w.cl.cn == nil {
		return
	}
	w.seq++
	w.attempts++
	w.cur = &pendingWrite{seq: w.seq}
	n := strconv.Itoa(w.seq)
	w.cl.Send("MULTI")
	w.cl.Send("INCR", w.Name+":counter")
	w.cl.Send("SET", w.Name+":"+n, n)
	w.cl.Send("EXEC")
}

// reply takes one reply of the write in flight; EXEC's ends it.
func (w *Writer) reply(r ClientReply) {
	p := w.cur
	if p == nil {
		return
	}
	p.replies++
	if r.Reply.Kind == msg.ReplyError && p.err == "" {
		p.err = r.Reply.Str
	}
	if p.replies < 4 {
		return
	}
	w.cur = nil
	res := r.Reply
	if p.err == "" && res.Kind == msg.ReplyArray && len(res.Elems) == 2 && res.Elems[0].Kind == msg.ReplyInt {
		key := w.Name + ":" + strconv.Itoa(p.seq)
		w.acks = append(w.acks, Ack{Seq: p.seq, Key: key, Server: r.Server, At: w.c.now, Counter: res.Elems[0].Int})
		w.after(w.opts.Every, w.write)
		return
	}
	w.c.tracef(w.Name, "write %d failed: %s", p.seq, p.err)
	if strings.HasPrefix(p.err, "READONLY") && w.opts.Server == "" {
		w.cl.Close()
		w.after(w.opts.Retry, w.connect)
		return
	}
	w.after(w.opts.Retry, w.write)
}

// LostWrites returns the writes w had acknowledged that the current master
// (see Master) does not hold, all of them when there is no single running
// master, and how many they are.
func (c *Cluster) LostWrites(w *Writer) ([]Ack, int) {
	m := c.Master()
	var lost []Ack
	for _, a := range w.acks {
		if m == nil {
			lost = append(lost, a)
			continue
		}
		if _, ok := m.data.kv[a.Key]; !ok {
			lost = append(lost, a)
		}
	}
	return lost, len(lost)
}

// CheckNoLostWrites returns nil when the current master holds every write
// w had acknowledged, and otherwise an error (wrapping ErrLostWrites when
// writes are missing) naming the first few lost writes, who acknowledged
// them and when. Call it once the fleet has settled: replication may still
// be on its way during a failover.
func (c *Cluster) CheckNoLostWrites(w *Writer) error {
	m := c.Master()
	if m == nil {
		return fmt.Errorf("%s: no single running master to check its %d acknowledged writes against", w.Name, len(w.acks))
	}
	lost, n := c.LostWrites(w)
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %d of %d acknowledged writes are not on the master %s: %s", ErrLostWrites, w.Name, n, len(w.acks), m.Name, c.ackList(lost))
}

// ackList names the first five of acks, who acknowledged them and when,
// for an error message.
func (c *Cluster) ackList(acks []Ack) string {
	var b strings.Builder
	for i, a := range acks {
		if i == 5 {
			fmt.Fprintf(&b, ", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (acknowledged by %s at +%v)", a.Key, a.Server, a.At.Sub(c.start).Round(time.Millisecond))
	}
	return b.String()
}
