package respserver

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/msg"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// exec runs fn on the core and turns a stopped loop into an error reply.
func (x *ctx) exec(fn func(core monitor.Handle, now time.Time)) (monitor.Outcome, Value) {
	if x.srv.opts.Backend == nil {
		return monitor.Outcome{}, Err("ERR " + monitor.ErrStopped.Error())
	}
	out, err := x.srv.opts.Backend.Exec(fn)
	if err != nil {
		return out, Err("ERR " + err.Error())
	}
	return out, nil
}

// view returns the core's published View and the time to answer at,
// read after the View so that it is never before the state the View
// shows; a stopped loop becomes the error reply. The read-only queries
// answer from it without waiting for the core's loop.
func (x *ctx) view() (*view.View, time.Time, Value) {
	if x.srv.opts.Backend == nil {
		return nil, time.Time{}, Err("ERR " + monitor.ErrStopped.Error())
	}
	v := x.srv.opts.Backend.View()
	if v == nil {
		return nil, time.Time{}, Err("ERR " + monitor.ErrStopped.Error())
	}
	return v, x.srv.now(), nil
}

// viewOnly is view for a query that does not need the time.
func (x *ctx) viewOnly() (*view.View, Value) {
	if x.srv.opts.Backend == nil {
		return nil, Err("ERR " + monitor.ErrStopped.Error())
	}
	v := x.srv.opts.Backend.View()
	if v == nil {
		return nil, Err("ERR " + monitor.ErrStopped.Error())
	}
	return v, nil
}

// step applies a command input to the core (monitor.Handle.Step, the
// one way a command changes it) and returns its answer; a stopped loop or
// the command's error becomes the error reply (nil on success).
func (x *ctx) step(in msg.Input) (msg.Answer, monitor.Outcome, Value) {
	var ans msg.Answer
	out, ev := x.run(func(core monitor.Handle, now time.Time) (err error) {
		ans, err = core.Step(now, in)
		return err
	})
	return ans, out, ev
}

// run is exec for a core call that can fail: a stopped loop or fn's error
// becomes the error reply (nil on success).
func (x *ctx) run(fn func(core monitor.Handle, now time.Time) error) (monitor.Outcome, Value) {
	var err error
	out, ev := x.exec(func(core monitor.Handle, now time.Time) { err = fn(core, now) })
	if ev != nil {
		return out, ev
	}
	if err != nil {
		return out, errReply(err)
	}
	return out, nil
}

func cmdSentinelMyID(x *ctx) Value {
	var id string
	if _, ev := x.exec(func(core monitor.Handle, _ time.Time) { id = core.MyID() }); ev != nil {
		return ev
	}
	return Bulk(id)
}

// errSaveConfig is Redis's reply when the config rewrite failed.
const errSaveConfig = Err("ERR Failed to save config file. Check server logs.")

func cmdSentinelFlushConfig(x *ctx) Value {
	_, out, ev := x.step(msg.FlushConfig{})
	if ev != nil {
		return ev
	}
	if out.PersistErr != nil {
		return errSaveConfig
	}
	return OK
}

func cmdRole(x *ctx) Value {
	v, ev := x.viewOnly()
	if ev != nil {
		return ev
	}
	names := v.MasterNames()
	list := make(Array, len(names))
	for i, n := range names {
		list[i] = Bulk(n)
	}
	return Array{Bulk("sentinel"), list}
}
