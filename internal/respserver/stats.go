package respserver

import (
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// stats are the counters INFO stats and INFO clients show, computed as
// Redis 7.0.15 computes them.
type stats struct {
	connections atomic.Int64
	rejected    atomic.Int64
	commands    atomic.Int64
	// netInput and netOutput are the bytes read from and written to
	// clients (above TLS, as Redis's connRead/connWrite count them);
	// replies to refused connections are not counted, as in Redis.
	netInput  atomic.Int64
	netOutput atomic.Int64
	// writerStarts counts the writer goroutines started (not in INFO: the
	// tests read it to see that replies are written inline).
	writerStarts atomic.Int64
	// errorReplies counts error replies, nested ones included
	// (total_error_replies).
	errorReplies atomic.Int64

	mu sync.Mutex
	// inst are the instantaneous metrics (commands, input bytes, output
	// bytes), sampled every 100 ms.
	inst [instMetrics]instMetric
	// peakIn and peakOut are the largest client query and output buffer
	// seen in each of the last seconds (client_recent_max_*_buffer).
	peakIn, peakOut [peakSlots]peakSlot
	// peakInSec and peakInMax copy peakIn's slot of the last second a
	// query was noted in (noteQuery's hint; a stale hint only costs the
	// lock).
	peakInSec, peakInMax atomic.Int64
}

// The instantaneous metrics, Redis's STATS_METRIC_COMMAND, _NET_INPUT and
// _NET_OUTPUT.
const (
	instCommands = iota
	instNetInput
	instNetOutput
	instMetrics
)

// instSamples is Redis's STATS_METRIC_SAMPLES: an instantaneous metric is
// the mean of the last 16 samples, taken every instSamplePeriod (serverCron's
// run_with_period(100)), so it spans the last 1.6 s.
const (
	instSamples      = 16
	instSamplePeriod = 100 * time.Millisecond
)

// instMetric is one instantaneous metric: Redis's inst_metric.
type instMetric struct {
	lastSampleTime  int64 // ms
	lastSampleCount int64
	samples         [instSamples]int64
	idx             int
}

// track adds a sample: the rate per second since the previous sample
// (Redis's trackInstantaneousMetric, integer arithmetic included).
func (m *instMetric) track(nowMs, reading int64) {
	t := nowMs - m.lastSampleTime
	ops := reading - m.lastSampleCount
	var perSec int64
	if t > 0 {
		perSec = ops * 1000 / t
	}
	m.samples[m.idx] = perSec
	m.idx = (m.idx + 1) % instSamples
	m.lastSampleTime = nowMs
	m.lastSampleCount = reading
}

// value is the mean of the samples (Redis's getInstantaneousMetric).
func (m *instMetric) value() int64 {
	var sum int64
	for _, s := range m.samples {
		sum += s
	}
	return sum / instSamples
}

// peakSlots is Redis's CLIENTS_PEAK_MEM_USAGE_SLOTS: the recent maximum
// is over the last 8 seconds.
const peakSlots = 8

// peakSlot is the largest value seen during one second.
type peakSlot struct {
	sec int64 // Unix second the slot holds
	max int64
}

// note records v in the slot of second sec (sec % 8, as Redis indexes
// them by unixtime), forgetting what the slot held for an older second.
func notePeak(slots *[peakSlots]peakSlot, sec, v int64) {
	s := &slots[sec%peakSlots]
	if s.sec != sec {
		*s = peakSlot{sec: sec}
	}
	if v > s.max {
		s.max = v
	}
}

// recentPeak is the largest value of the slots of the last 8 seconds
// (Redis's getExpansiveClientsInfo).
func recentPeak(slots *[peakSlots]peakSlot, sec int64) int64 {
	var m int64
	for _, s := range slots {
		if age := sec - s.sec; age >= 0 && age < peakSlots && s.max > m {
			m = s.max
		}
	}
	return m
}

// replyChunkBytes is Redis's PROTO_REPLY_CHUNK_BYTES, the static reply
// buffer every client has: output buffer memory (client_recent_max_output_
// buffer) only counts what a reply needs beyond it.
const replyChunkBytes = 16 * 1024

// noteQuery records the size of a query read from a client at now, for
// client_recent_max_input_buffer. Redis samples each client's query
// buffer allocation once a second; go-sentinel records instead the
// largest query of each second (the bytes the request reader took for
// it), which is what makes that buffer grow in Redis.
func (st *stats) noteQuery(n int, now time.Time) {
	sec := now.Unix()
	// Most queries are no larger than one already noted this second: the
	// hint spares them the lock every connection's commands would share.
	if sec == st.peakInSec.Load() && int64(n) <= st.peakInMax.Load() {
		return
	}
	st.mu.Lock()
	notePeak(&st.peakIn, sec, int64(n))
	slot := st.peakIn[sec%peakSlots]
	st.peakInSec.Store(slot.sec)
	st.peakInMax.Store(slot.max)
	st.mu.Unlock()
}

// noteOutput records the bytes waiting to be written to a client when it
// is sampled at now (once a second, like Redis's clientsCron), for
// client_recent_max_output_buffer.
func (st *stats) noteOutput(n int, now time.Time) {
	if n <= replyChunkBytes {
		return
	}
	st.mu.Lock()
	notePeak(&st.peakOut, now.Unix(), int64(n-replyChunkBytes))
	st.mu.Unlock()
}

// recentMaxBuffers returns client_recent_max_input_buffer and
// client_recent_max_output_buffer at now.
func (st *stats) recentMaxBuffers(now time.Time) (in, out int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return recentPeak(&st.peakIn, now.Unix()), recentPeak(&st.peakOut, now.Unix())
}

// sample takes one sample of each instantaneous metric at now.
func (st *stats) sample(now time.Time) {
	ms := now.UnixMilli()
	st.mu.Lock()
	st.inst[instCommands].track(ms, st.commands.Load())
	st.inst[instNetInput].track(ms, st.netInput.Load())
	st.inst[instNetOutput].track(ms, st.netOutput.Load())
	st.mu.Unlock()
}

// startSampling starts the instantaneous metrics at now, from zero counts
// (Redis's resetServerStats at start-up), so that the first sample covers
// the queries since then.
func (st *stats) startSampling(now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for k := range st.inst {
		st.inst[k] = instMetric{lastSampleTime: now.UnixMilli()}
	}
}

// instantaneous returns instantaneous_ops_per_sec and the input and output
// bytes per second.
func (st *stats) instantaneous() (ops, in, out int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.inst[instCommands].value(), st.inst[instNetInput].value(), st.inst[instNetOutput].value()
}

// countErrors adds the error replies v holds, itself or nested.
func (st *stats) countErrors(v Value) {
	if n := errorsIn(v); n > 0 {
		st.errorReplies.Add(int64(n))
	}
}

func errorsIn(v Value) int {
	switch v := v.(type) {
	case Err:
		return 1
	case Array:
		return errorsInList(v)
	case Map:
		return errorsInList(v)
	}
	return 0
}

func errorsInList(vs []Value) int {
	n := 0
	for _, e := range vs {
		n += errorsIn(e)
	}
	return n
}

// sampleStats samples the instantaneous metrics every 100 ms and every
// client's output backlog every second, until the server is closed.
func (s *Server) sampleStats() {
	defer s.wg.Done()
	s.stats.startSampling(s.now())
	tick := time.NewTicker(instSamplePeriod)
	defer tick.Stop()
	var cs []*Client
	for n := 0; ; n++ {
		<-tick.C
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
		now := s.now()
		s.stats.sample(now)
		if n%int(time.Second/instSamplePeriod) == 0 {
			cs = s.sampleClients(now, cs[:0])
		}
	}
}

// sampleClients records every client's output backlog at now. It lists
// the clients in buf (appendClients) and returns it, emptied, for reuse.
func (s *Server) sampleClients(now time.Time, buf []*Client) []*Client {
	buf = s.appendClients(buf)
	for _, c := range buf {
		used, _ := c.outputUsage()
		s.stats.noteOutput(int(used), now)
	}
	clear(buf)
	return buf[:0]
}

// countingListener counts the bytes its connections read and write in
// stats (total_net_input_bytes, total_net_output_bytes). It wraps a TLS
// listener from outside, so the bytes are the clear-text ones, as Redis
// counts them.
type countingListener struct {
	net.Listener
	st *stats
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, st: l.st}, nil
}

// countingConn is a connection of a countingListener.
type countingConn struct {
	net.Conn
	st *stats
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.st.netInput.Add(int64(n))
	return n, err
}

// Write counts p before writing it (and takes back what was not
// written), so a client that read a reply never sees INFO without it.
func (c *countingConn) Write(p []byte) (int, error) {
	c.st.netOutput.Add(int64(len(p)))
	n, err := c.Conn.Write(p)
	if n < len(p) {
		c.st.netOutput.Add(int64(n - len(p)))
	}
	return n, err
}

// uncounted returns the connection under a countingConn, for what Redis
// writes without counting it (the refusal of a connection) and for type
// checks (*net.TCPConn).
func uncounted(c net.Conn) net.Conn {
	if cc, ok := c.(*countingConn); ok {
		return cc.Conn
	}
	return c
}

func sortClients(cs []*Client) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
}
