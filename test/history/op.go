// Package history records what clients did to a data set, with the call
// and return time of every operation, and judges the record with
// porcupine (github.com/anishathalye/porcupine), a linearizability
// checker that knows nothing of Sentinel: a history either has an order
// of its operations that a single copy of the data would have produced,
// or it does not, whatever the system behind it did. It also finds the
// acknowledged writes a data set lost, sorts them into the classes the
// docs use, and measures how stale the reads of a replica route were.
//
// Times are nanoseconds on the recorder's monotonic clock. An operation
// whose outcome is unknown (a timeout, a connection lost after the
// request was sent) is pending for ever: porcupine lets it take effect
// at any moment after its call, or never.
package history

import (
	"fmt"
	"math"
	"strings"
)

// Kind is what an operation did.
type Kind uint8

// The operation kinds: a register (SET with a unique value, GET), a
// counter (INCR) and a list (RPUSH of a unique element, LRANGE 0 -1).
const (
	Set Kind = iota
	Get
	Incr
	RPush
	LRange
)

func (k Kind) String() string {
	return [...]string{"set", "get", "incr", "rpush", "lrange"}[k]
}

// Model is which porcupine model judges a key's operations.
type Model uint8

// The models, one per kind of key.
const (
	Register Model = iota
	Counter
	List
)

// ModelOf is the model of an operation's kind.
func ModelOf(k Kind) Model {
	switch k {
	case Set, Get:
		return Register
	case Incr:
		return Counter
	}
	return List
}

// Never is the return time of an operation whose outcome is unknown.
const Never int64 = math.MaxInt64

// Op is one client operation: its input (Kind, Key, Value), its output
// (Out, Nil, N, Items) when it returned, who answered it (Node, the
// server's address when the client learnt it) and when it was called
// and returned. Unknown is set when the client cannot tell whether it
// took effect (Return is then Never); an operation refused with an error
// reply certainly did not take effect and is not recorded.
type Op struct {
	Client int
	Route  string
	Kind   Kind
	Key    string
	Value  string   // SET's value, RPUSH's element
	Out    string   // GET's value
	Nil    bool     // GET found no value
	N      int64    // INCR's new value, RPUSH's new length
	Items  []string // LRANGE's elements
	Node   string   // the server that answered, "" when not known
	Call   int64
	Return int64
	// Unknown marks an operation whose outcome the client cannot know.
	Unknown bool
}

// Acked reports whether the operation returned a reply.
func (o *Op) Acked() bool { return !o.Unknown }

// Write reports whether the operation changes the data.
func (o *Op) Write() bool { return o.Kind == Set || o.Kind == Incr || o.Kind == RPush }

func (o *Op) String() string {
	var in, out string
	switch o.Kind {
	case Set, RPush:
		in = o.Kind.String() + " " + o.Value
	default:
		in = o.Kind.String()
	}
	switch {
	case o.Unknown:
		out = "?"
	case o.Kind == Get && o.Nil:
		out = "nil"
	case o.Kind == Get:
		out = o.Out
	case o.Kind == Incr || o.Kind == RPush:
		out = fmt.Sprint(o.N)
	case o.Kind == LRange:
		out = "[" + strings.Join(o.Items, " ") + "]"
	default:
		out = "ok"
	}
	if o.Node != "" {
		out += " @" + o.Node
	}
	return in + " → " + out
}
