package monitor

import (
	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// outbox is what the core produced since the last Ready: log lines,
// events and actions, in the order they were produced. After a simulated
// crash (SIMULATE-FAILURE) it takes nothing more, ever, as Redis's
// exit(99) ends all output where the flag is checked.
type outbox struct {
	msg.Ready
	// crashed: a simulated crash happened.
	crashed bool
}

// take returns what the outbox holds and empties it.
func (o *outbox) take() msg.Ready {
	r := o.Ready
	o.Ready = msg.Ready{}
	return r
}

// log adds a log line that is not an event.
func (o *outbox) log(l event.Level, text string) {
	if o.crashed {
		return
	}
	o.Logs = append(o.Logs, event.LogLine{Level: l, Text: text})
}

// act adds an action.
func (o *outbox) act(a msg.Action) {
	if o.crashed {
		return
	}
	o.Actions = append(o.Actions, a)
}

// persist queues one PersistConfig; several requests between two calls
// to Ready collapse into one, deferrable only if all of them were.
func (o *outbox) persist(reason string) { o.queuePersist(reason, false) }

// persistSoon queues a deferrable PersistConfig (see persist).
func (o *outbox) persistSoon(reason string) { o.queuePersist(reason, true) }

func (o *outbox) queuePersist(reason string, deferrable bool) {
	for k, a := range o.Actions {
		if p, ok := a.(msg.PersistConfig); ok {
			if p.Deferrable && !deferrable {
				o.Actions[k] = msg.PersistConfig{Reason: reason}
			}
			return
		}
	}
	o.act(msg.PersistConfig{Reason: reason, Deferrable: deferrable})
}

// crash is SIMULATE-FAILURE: log and ask the process to exit with 99.
// Like Redis's exit(99) where the flag is checked, nothing the core does
// after it produces output: the outbox ends with the Exit and takes
// nothing more.
func (o *outbox) crash() {
	o.log(event.LevelWarning, "Sentinel CRASH because of SENTINEL simulate-failure")
	o.act(msg.Exit{Code: 99})
	o.crashed = true
}
