package msg

import "github.com/go-sentinel/go-sentinel/internal/event"

// Action is something the core asks its adapters to do. Actions are plain
// values; the adapter that owns the loop carries them out in order.
type Action interface{ isAction() }

// PersistConfig asks for the config file to be rewritten from Snapshot()
// before any reply that depends on the new state is sent. Reason is logged
// on failure. Deferrable marks a change nothing depends on for safety
// (a newly discovered replica or Sentinel, which would be found again
// after a restart): the daemon may write it a little later, together with
// the next ones, rather than block its loop on an fsync per discovery.
type PersistConfig struct {
	Reason     string
	Deferrable bool
}

// Exit asks the process to stop with Code after flushing logs (used by
// SENTINEL SIMULATE-FAILURE, which exits with 99).
type Exit struct{ Code int }

func (PersistConfig) isAction() {}
func (Exit) isAction()          {}

// Ready is everything the core produced since the last call to Ready:
// log lines in the order things happened (an event is one of them, with
// Event set: it is logged as `<type> <message>` and published), and
// actions, in order. Each event is stored once, in its log line.
type Ready struct {
	Logs    []event.LogLine
	Actions []Action
}

// Events returns the events among the log lines, in order.
func (r Ready) Events() []event.Event {
	var out []event.Event
	for _, l := range r.Logs {
		if l.Event != nil {
			out = append(out, *l.Event)
		}
	}
	return out
}

// Empty reports whether there is nothing to do.
func (r Ready) Empty() bool {
	return len(r.Logs) == 0 && len(r.Actions) == 0
}
