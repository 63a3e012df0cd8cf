package diffcanon

import (
	"strings"
)

// Event is an event reduced to what two fleets can share: its type, the
// kind of instance it is about and that instance's logical label ("m" the
// first master, "p" the promoted replica, "r" another replica, "s" a
// Sentinel, ...). Times, run ids, epochs and ports are gone.
type Event struct {
	Type  string
	Kind  string // master, slave, sentinel, or "" for other messages
	Label string // logical instance; for +switch-master "from>to"
}

// String is the canonical text of the event: "+sdown master:m",
// "+switch-master m>p", "+new-epoch", "# stop".
func (e Event) String() string {
	switch {
	case e.Kind != "" && e.Label != "":
		return e.Type + " " + e.Kind + ":" + e.Label
	case e.Kind != "":
		return e.Type + " " + e.Kind
	case e.Label != "":
		return e.Type + " " + e.Label
	}
	return e.Type
}

// Labels names the logical instances of a fleet by "ip:port".
type Labels map[string]string

// label is the logical name of addr, "?" when the fleet does not know it
// (an address nobody expected is a difference worth seeing).
func (l Labels) label(addr string) string {
	if v, ok := l[addr]; ok {
		return v
	}
	return "?"
}

// Parse reduces a raw event to its canonical form.
func Parse(r Raw, labels Labels) Event {
	if r.Type == Mark {
		return Event{Type: Mark, Label: r.Msg}
	}
	kind, addr := Subject(r.Msg)
	if kind != "" {
		return Event{Type: r.Type, Kind: kind, Label: labels.label(addr)}
	}
	if r.Type == "+switch-master" {
		// <name> <old ip> <old port> <new ip> <new port>
		if f := strings.Fields(r.Msg); len(f) == 5 {
			return Event{Type: r.Type, Label: labels.label(f[1]+":"+f[2]) + ">" + labels.label(f[3]+":"+f[4])}
		}
	}
	return Event{Type: r.Type}
}

// ParseReconfig reduces one client-reconfig-script invocation (the
// recording script's "[arg][arg]..." line) to "reconfig <role> <state>
// <from>><to>" with logical labels for the addresses. A line without the
// 7 arguments Redis passes is kept whole, marked "reconfig-bad-argv".
func ParseReconfig(line string, labels Labels) string {
	args := SplitArgv(line)
	if len(args) != 7 {
		return "reconfig-bad-argv " + line
	}
	return "reconfig " + args[1] + " " + args[2] + " " + labels.label(args[3]+":"+args[4]) + ">" + labels.label(args[5]+":"+args[6])
}

// SplitArgv splits a recording script line "[a][b c][d]" into its
// arguments; it returns nil for a line not in that form.
func SplitArgv(line string) []string {
	if !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "]") {
		return nil
	}
	return strings.Split(line[1:len(line)-1], "][")
}
