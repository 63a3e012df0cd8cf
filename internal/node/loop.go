// Package node runs one Sentinel: the goroutine that owns the core, the
// clock that ticks it, and the adapters that carry out what it asks for
// (config rewrites, pub/sub, logs). Everything else reaches the core
// through Exec.
package node

import (
	"fmt"
	"sync"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/respserver"
)

// Logger is the logging a node needs.
type Logger interface {
	Debugf(format string, args ...any)
	Verbosef(format string, args ...any)
	Noticef(format string, args ...any)
	Warningf(format string, args ...any)
}

// Effects are the adapters the loop hands the core's output to.
type Effects struct {
	// Persist rewrites the config file from p.
	Persist func(p monitor.Persisted, t monitor.Timing) error
	// Publish delivers an event to local pub/sub subscribers.
	Publish func(channel, msg string)
	// Exit stops the process with code (SIMULATE-FAILURE crashes).
	Exit func(code int)
	// Link carries out a link action (OpenLink, CloseLink, Send) and
	// reports whether it was one.
	Link func(a monitor.Action) bool
}

// inputQueueLen bounds the inputs waiting for the loop; link adapters
// block briefly when it is full.
const inputQueueLen = 1 << 16

// Loop owns a core. Run must be called once; every other method is safe
// from any goroutine.
type Loop struct {
	core *monitor.Sentinel
	log  Logger
	fx   Effects
	now  func() time.Time

	execs  chan execReq
	inputs chan monitor.Input
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

type execReq struct {
	fn    func(*monitor.Sentinel, time.Time)
	reply chan respserver.Outcome
}

// NewLoop wraps core. now is the clock (time.Now in production).
func NewLoop(core *monitor.Sentinel, log Logger, fx Effects, now func() time.Time) *Loop {
	return &Loop{
		core:   core,
		log:    log,
		fx:     fx,
		now:    now,
		execs:  make(chan execReq),
		inputs: make(chan monitor.Input, inputQueueLen),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
}

// Run drives the core until Stop: ticks at the core's randomised period
// and runs Exec requests in between. It handles what New produced first.
func (l *Loop) Run() {
	defer close(l.done)
	l.drain()
	timer := time.NewTimer(l.core.NextTickIn())
	defer timer.Stop()
	for {
		select {
		case <-l.stop:
			if err := l.core.Step(l.now(), monitor.Shutdown{}); err != nil {
				l.log.Warningf("shutdown: %v", err)
			}
			l.drain()
			return
		case in := <-l.inputs:
			if err := l.core.Step(l.now(), in); err != nil {
				l.log.Warningf("core: %v", err)
			}
			l.drain()
		case req := <-l.execs:
			req.fn(l.core, l.now())
			req.reply <- l.drain()
		case <-timer.C:
			l.core.Tick(l.now())
			l.drain()
			timer.Reset(l.core.NextTickIn())
		}
	}
}

// Exec runs fn on the loop and returns once the core's resulting actions
// were carried out (so a reply can tell whether the config was saved).
func (l *Loop) Exec(fn func(*monitor.Sentinel, time.Time)) (respserver.Outcome, error) {
	req := execReq{fn: fn, reply: make(chan respserver.Outcome, 1)}
	select {
	case l.execs <- req:
	case <-l.done:
		return respserver.Outcome{}, respserver.ErrStopped
	}
	return <-req.reply, nil
}

// Deliver hands an input (a reply, a message, a closed link) to the core.
// It is safe from any goroutine and drops the input once the loop ended.
func (l *Loop) Deliver(in monitor.Input) {
	select {
	case l.inputs <- in:
	case <-l.done:
	}
}

// Stop asks the loop to persist its state and end, and waits for it.
func (l *Loop) Stop() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// Done is closed when the loop has ended.
func (l *Loop) Done() <-chan struct{} { return l.done }

// drain carries out everything the core produced, in order.
func (l *Loop) drain() respserver.Outcome {
	var out respserver.Outcome
	r := l.core.Ready()
	for _, line := range r.Logs {
		l.logAt(line.Level, line.Text)
	}
	for _, e := range r.Events {
		if e.Published() && l.fx.Publish != nil {
			l.fx.Publish(e.Type, e.Msg)
		}
	}
	for _, a := range r.Actions {
		switch a := a.(type) {
		case monitor.PersistConfig:
			if err := l.persist(); err != nil {
				out.PersistErr = err
			}
		case monitor.Exit:
			if l.fx.Exit != nil {
				l.fx.Exit(a.Code)
			}
		default:
			if l.fx.Link == nil || !l.fx.Link(a) {
				l.log.Warningf("unhandled core action %T", a)
			}
		}
	}
	return out
}

func (l *Loop) persist() error {
	if l.fx.Persist == nil {
		return nil
	}
	if err := l.fx.Persist(l.core.Snapshot(), l.core.Timing()); err != nil {
		l.log.Warningf("WARNING: Sentinel was not able to save the new configuration on disk!!!: %v", err)
		return fmt.Errorf("persist config: %w", err)
	}
	l.log.Noticef("Sentinel new configuration saved on disk")
	return nil
}

func (l *Loop) logAt(level monitor.Level, text string) {
	switch level {
	case monitor.LevelDebug:
		l.log.Debugf("%s", text)
	case monitor.LevelVerbose:
		l.log.Verbosef("%s", text)
	case monitor.LevelNotice:
		l.log.Noticef("%s", text)
	default:
		l.log.Warningf("%s", text)
	}
}
