// Package node runs one Sentinel: the goroutine that owns the core, the
// clock that ticks it, and the adapters that carry out what it asks for
// (config rewrites, pub/sub, logs). Everything else reaches the core
// through Exec.
package node

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// Logger is the logging a node needs.
type Logger interface {
	Debugf(format string, args ...any)
	Verbosef(format string, args ...any)
	Noticef(format string, args ...any)
	Warningf(format string, args ...any)
}

// Effects are the adapters the loop hands the core's output to. Every
// field must be set: an action nobody carries out is a defect, not a log
// line.
type Effects struct {
	// Persist rewrites the config file from p.
	Persist func(p settings.Persisted, t settings.Timing) error
	// Publish delivers an event to local pub/sub subscribers.
	Publish func(channel, msg string)
	// Exit ends the process at once with code (SENTINEL SIMULATE-FAILURE
	// crashes): the loop carries out nothing after it.
	Exit func(code int)
	// Links carries out OpenLink, CloseLink and Send.
	Links LinkEffects
	// Scripts carries out StartScript and KillScript.
	Scripts ScriptEffects
	// Observe, if set, sees every event after it was published (the
	// metrics). It runs on the loop and must not block.
	Observe func(ev event.Event)
	// AfterTick, if set, is told after every tick and its output whether
	// the Sentinel is quiet: the core says so (monitor.Sentinel.Quiet),
	// fewer than maxBatch inputs wait and the tick came less than
	// maxQuietLateness after it was due. It runs on the loop and must not
	// block (procGovernor).
	AfterTick func(quiet bool)
}

// LinkEffects carries out the core's link actions (links.Links).
type LinkEffects interface {
	OpenLink(msg.OpenLink)
	CloseLink(msg.CloseLink)
	Send(msg.Send)
}

// LinkBatcher is a LinkEffects that can gather the Sends of one Ready
// and write each link once (links.Links): the loop calls Hold before it
// carries out a Ready and Release after.
type LinkBatcher interface {
	Hold()
	Release()
}

// ScriptEffects carries out the core's script actions.
type ScriptEffects interface {
	StartScript(msg.StartScript)
	KillScript(msg.KillScript)
}

// inputQueueLen bounds the inputs waiting for the loop (the inbox); link
// adapters block briefly when it is full. A queue of 4,096 (tried for issue 19)
// blocked link goroutines before they read their replies: 362 +sdown and
// 6 failovers of healthy masters per run at 1,000 masters, against 0 and
// 0 with this one in the same session.
const inputQueueLen = 1 << 16

// Loop owns a core. Run must be called once; every other method is safe
// from any goroutine.
type Loop struct {
	core *monitor.Sentinel
	log  Logger
	fx   Effects
	now  func() time.Time
	// wall is the wall clock Tick compares for TILT (clock.go); now
	// unless the node sets it.
	wall func() time.Time

	// view is the core's View, stored before the output of a batch (a
	// Step, a Tick, an Exec) is carried out: see View. unpublished counts
	// the inputs since it was stored.
	view        atomic.Pointer[view.View]
	unpublished int

	execs chan execReq
	// in is where inputs wait; taken is the loop's last take from it, of
	// which the first next were stepped (see nextInput).
	in    *inbox
	taken []msg.Input
	next  int
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	// dirty is set while a deferrable PersistConfig waits to be written
	// (since dirtySince); see flushIfIdle.
	dirty      bool
	dirtySince time.Time
}

// tickSpacing bounds the share of the loop's time that ticks take: the
// next tick comes at least tickSpacing times as long as the last tick and
// its output took after it (ticks at most a fifth of the time). A tick
// walks every instance; with 1,000 masters one takes about 20 ms, and the
// fast ticks the core asks for while something happens (Accel.BusyTick,
// 20 ms) would leave no time for replies and votes: the loop fell seconds
// behind and elections split.
const tickSpacing = 4

// maxTickGap caps that spacing below Redis's TILT trigger (2 s), so that
// the loop's own pacing never sets off TILT: at 1,000 masters on a
// saturated machine a tick and its output took 500 ms of wall time, the
// uncapped gap reached 2 s, and every Sentinel entered TILT again and
// again while a rack's masters waited for a failover (issue 19). TILT
// still comes when the loop itself falls 2 s behind. A first cap (400
// ms) let ticks judge SDOWN while thousands of replies waited in the
// input queue (17,552 +sdown of healthy masters in one run): every tick
// now steps the inputs already waiting first (Run).
const maxTickGap = time.Second

// tickGap is how long after a tick whose Tick and output took took the
// next one may come at the earliest, when the core asks for it in next.
func tickGap(next, took time.Duration) time.Duration {
	return max(next, min(tickSpacing*took, maxTickGap))
}

// maxQuietLateness is how late a tick may come for the loop to call the
// Sentinel quiet (Effects.AfterTick): a later one says the process is
// short of CPU, and should not be held to one P.
const maxQuietLateness = 250 * time.Millisecond

// maxDeferredPersist bounds how long a deferrable config rewrite waits
// for the loop to be idle.
const maxDeferredPersist = time.Second

type execReq struct {
	fn    func(monitor.Handle, time.Time)
	reply chan monitor.Outcome
}

// NewLoop wraps core. now is the core's clock (the monotonic clock in
// production, clock.go), which Tick also compares for TILT unless the
// node sets the loop's wall clock. It
// panics if a field of fx other than Observe is nil.
func NewLoop(core *monitor.Sentinel, log Logger, fx Effects, now func() time.Time) *Loop {
	if fx.Persist == nil || fx.Publish == nil || fx.Exit == nil || fx.Links == nil || fx.Scripts == nil {
		panic("node: NewLoop needs every Effects field")
	}
	l := &Loop{
		core:  core,
		log:   log,
		fx:    fx,
		now:   now,
		wall:  now,
		execs: make(chan execReq),
		in:    newInbox(),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	l.view.Store(core.View()) // Run has not started: the core is ours
	return l
}

// Run drives the core until Stop: ticks at the core's randomised period
// and runs Exec requests in between. It handles what New produced first.
func (l *Loop) Run() {
	defer close(l.done)
	defer l.in.close()
	l.drain()
	first := l.core.NextTickIn()
	timer := time.NewTimer(first)
	defer timer.Stop()
	due := l.now().Add(first) // when the timer is set to fire
	for {
		select {
		case <-l.stop:
			if _, err := l.core.Step(l.now(), msg.Shutdown{}); err != nil {
				l.log.Warningf("shutdown: %v", err)
			}
			l.drain()
			return
		case <-l.in.ready:
			if in, ok := l.nextInput(); ok {
				l.stepInput(in)
				l.batch(nil)
			}
		case req := <-l.execs:
			req.fn(l.core, l.now())
			l.batch([]execReq{req})
		case <-timer.C:
			l.catchUp()
			start := l.now()
			l.core.Tick(start, l.wall())
			l.drain()
			late := start.Sub(due)
			gap := tickGap(l.core.NextTickIn(), l.now().Sub(start))
			timer.Reset(gap)
			due = l.now().Add(gap)
			if l.fx.AfterTick != nil {
				l.fx.AfterTick(l.core.Quiet() && l.waiting() < maxBatch && late < maxQuietLateness)
			}
		}
		if l.next < len(l.taken) {
			l.in.rearm() // a batch left inputs of its take unstepped
		}
		l.flushIfIdle()
	}
}

// catchUp steps the inputs waiting when a tick is due, and carries out
// what they produced, before the tick: a tick judges SDOWN and timeouts
// from the replies the core has seen, and a reply already received must
// not be judged missing because it waited in the queue.
func (l *Loop) catchUp() {
	for n := l.waiting(); n > 0; {
		k := min(n, maxBatch)
		for range k {
			in, _ := l.nextInput() // n counted them: they are there
			l.stepInput(in)
		}
		n -= k
		l.finish(nil)
	}
}

// nextInput returns the oldest input not stepped yet, taking what waits
// in the inbox when the last take is used up; false when none waits.
func (l *Loop) nextInput() (msg.Input, bool) {
	if l.next == len(l.taken) {
		l.taken, l.next = l.in.take(l.taken), 0
		if len(l.taken) == 0 {
			return nil, false
		}
	}
	in := l.taken[l.next]
	l.next++
	return in, true
}

// waiting is how many inputs wait for the loop: those of its last take
// not stepped yet and those in the inbox.
func (l *Loop) waiting() int { return len(l.taken) - l.next + l.in.waiting() }

// maxBatch bounds the inputs and Exec requests one batch steps before
// its output is carried out, so that a flood of replies cannot hold back
// a tick or the replies of the batch for long.
const maxBatch = 512

// batch steps every input and Exec request already waiting (up to
// maxBatch in all) after the one the loop just stepped, then carries out
// what they produced at once and answers the Exec requests (pending
// holds those stepped so far). The core collapses their config rewrites
// into one, and Apply writes it before any log line, event, message or
// reply goes out: at 1,000 masters a leader's 100 vote requests arrive
// together, and each vote used to cost a rewrite and an fsync of its
// own before its reply (13 ms each at 394 KB), so peers answered only a
// part of them before their own election hold ended. A vote is still on
// disk before anyone learns of it.
func (l *Loop) batch(pending []execReq) {
	for n := len(pending); n < maxBatch; n++ {
		if in, ok := l.nextInput(); ok {
			l.stepInput(in)
			continue
		}
		select {
		case req := <-l.execs:
			req.fn(l.core, l.now())
			pending = append(pending, req)
			continue
		default:
		}
		break
	}
	l.finish(pending)
}

// finish carries out what the Steps since the last batch produced and
// answers pending: the View is published first, except after a batch of
// inputs only that produced nothing while more inputs wait (see below).
func (l *Loop) finish(pending []execReq) {
	r := l.core.Ready()
	publish := true
	if len(pending) == 0 {
		// Inputs only: one that produced nothing announced nothing, so
		// the View may wait (see maxUnpublished).
		l.unpublished++
		publish = !r.Empty() || l.waiting() == 0 || l.unpublished >= maxUnpublished
	}
	out := l.apply(r, publish)
	for _, req := range pending {
		req.reply <- out
	}
}

// stepInput hands one input to the core.
func (l *Loop) stepInput(in msg.Input) {
	if _, err := l.core.Step(l.now(), in); err != nil {
		l.log.Warningf("core: %v", err)
	}
}

// flushIfIdle writes a deferred config rewrite once no input waits (a
// burst of discoveries is written once, not once per replica or Sentinel
// with an fsync each, which stalled the loop at 100 masters and more), or
// once it has waited maxDeferredPersist.
func (l *Loop) flushIfIdle() {
	if l.dirty && (l.waiting() == 0 || l.now().Sub(l.dirtySince) > maxDeferredPersist) {
		l.dirty = false
		l.view.Store(l.core.View()) // the file holds no state the View lacks
		l.unpublished = 0
		_ = l.persist()
	}
}

// Exec runs fn on the loop with the core's Handle and returns once the
// core's resulting actions were carried out (so a reply can tell whether
// the config was saved).
func (l *Loop) Exec(fn func(monitor.Handle, time.Time)) (monitor.Outcome, error) {
	req := execReq{fn: fn, reply: make(chan monitor.Outcome, 1)}
	select {
	case l.execs <- req:
	case <-l.done:
		return monitor.Outcome{}, monitor.ErrStopped
	}
	return <-req.reply, nil
}

// View returns the core's View as the loop last published it, without
// waiting for the loop: the read-only queries answer from it while the
// loop works. It is nil once the loop has ended.
//
// It is never older than what the loop has announced: the loop stores
// the View of a batch (a Step, a Tick, an Exec) before it carries out
// the batch's output, its log lines, pub/sub events, config rewrite and
// replies. A client that received +switch-master and then asks for the
// master's address gets the new one; a client whose Exec returned (a
// SENTINEL SET, say) sees its change. An input whose Step produced no
// output announced nothing, and while more inputs wait its change is
// published with a later one (finish): at most maxUnpublished
// inputs, and never past the moment the queue is empty.
func (l *Loop) View() *view.View {
	select {
	case <-l.done:
		return nil
	default:
		return l.view.Load()
	}
}

// Deliver hands an input (a reply, a message, a closed link) to the core.
// It is safe from any goroutine and drops the input once the loop ended.
func (l *Loop) Deliver(in msg.Input) {
	l.in.put(in)
}

// Stop asks the loop to persist its state and end, and waits for it.
func (l *Loop) Stop() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// Done is closed when the loop has ended.
func (l *Loop) Done() <-chan struct{} { return l.done }

// maxUnpublished bounds the inputs whose Steps produced nothing that the
// loop runs back to back without publishing the View.
const maxUnpublished = 64

// drain publishes the core's View, then carries out everything the core
// produced (monitor.Apply: the config first, then logs and events, then
// actions up to an Exit). Publishing first is what keeps View never
// older than an announcement.
func (l *Loop) drain() monitor.Outcome { return l.apply(l.core.Ready(), true) }

// A batch of inputs that produced nothing to carry out (most replies to
// PINGs and hellos) announced nothing: while more inputs wait, the View
// is published only with a batch that produced something, once none
// waits, or after maxUnpublished batches, so that a burst of replies
// costs one View, not one each (finish).

// apply carries out r, publishing the core's View first if publish.
func (l *Loop) apply(r msg.Ready, publish bool) monitor.Outcome {
	if publish {
		l.view.Store(l.core.View())
		l.unpublished = 0
	}
	if b, ok := l.fx.Links.(LinkBatcher); ok && len(r.Actions) > 0 {
		b.Hold()
		defer b.Release()
	}
	out, err := monitor.Apply(r, loopEffects{l})
	if err != nil {
		panic(err) // unreachable: TestApplyHandlesEveryAction
	}
	return out
}

// loopEffects is the monitor.Effects of a Loop.
type loopEffects struct{ l *Loop }

// Log writes a line; an event's line carries the event's fields for a
// logger that writes them (log-format json).
func (e loopEffects) Log(line event.LogLine) {
	if fl, ok := e.l.log.(FieldLogger); ok && line.Event != nil {
		fl.LogFields(logLevel(line.Level), line.Text, eventFields(*line.Event)...)
		return
	}
	e.l.logAt(line.Level, line.Text)
}

func (e loopEffects) Event(ev event.Event) {
	if ev.Published() {
		e.l.fx.Publish(string(ev.Type), ev.Msg)
	}
	if e.l.fx.Observe != nil {
		e.l.fx.Observe(ev)
	}
}

func (e loopEffects) Persist(p msg.PersistConfig) error {
	if p.Deferrable {
		if !e.l.dirty {
			e.l.dirty, e.l.dirtySince = true, e.l.now()
		}
		return nil
	}
	e.l.dirty = false
	return e.l.persist()
}
func (e loopEffects) OpenLink(a msg.OpenLink)       { e.l.fx.Links.OpenLink(a) }
func (e loopEffects) CloseLink(a msg.CloseLink)     { e.l.fx.Links.CloseLink(a) }
func (e loopEffects) Send(a msg.Send)               { e.l.fx.Links.Send(a) }
func (e loopEffects) StartScript(a msg.StartScript) { e.l.fx.Scripts.StartScript(a) }
func (e loopEffects) KillScript(a msg.KillScript)   { e.l.fx.Scripts.KillScript(a) }
func (e loopEffects) Exit(a msg.Exit)               { e.l.fx.Exit(a.Code) }

func (l *Loop) persist() error {
	if err := l.fx.Persist(l.core.Snapshot(), l.core.Timing()); err != nil {
		l.log.Warningf("WARNING: Sentinel was not able to save the new configuration on disk!!!: %v", err)
		return fmt.Errorf("persist config: %w", err)
	}
	l.log.Noticef("Sentinel new configuration saved on disk")
	return nil
}

func (l *Loop) logAt(level event.Level, text string) {
	switch logLevel(level) {
	case logging.LevelDebug:
		l.log.Debugf("%s", text)
	case logging.LevelVerbose:
		l.log.Verbosef("%s", text)
	case logging.LevelNotice:
		l.log.Noticef("%s", text)
	default:
		l.log.Warningf("%s", text)
	}
}
