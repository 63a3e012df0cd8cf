package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// pauseType is what a pause holds: nothing, the writes (and the commands
// that may replicate), or every command. The order is restrictiveness.
type pauseType int

// The pause types, least strict first.
const (
	pauseOff pauseType = iota
	pauseWrite
	pauseAll
)

// String names the pause type as the trace prints it.
func (p pauseType) String() string {
	switch p {
	case pauseWrite:
		return "write"
	case pauseAll:
		return "all"
	}
	return "off"
}

// clientPause is the pause CLIENT PAUSE sets (Redis's
// PAUSE_BY_CLIENT_COMMAND purpose): its type and its deadline.
type clientPause struct {
	typ pauseType
	end time.Time
}

// pausedFor returns what s holds now: the stricter of CLIENT PAUSE's
// pause (until its deadline) and the write pause of its own failover.
func (s *Server) pausedFor() pauseType {
	p := pauseOff
	if s.pause.typ != pauseOff && s.c.now.Before(s.pause.end) {
		p = s.pause.typ
	}
	if s.foPause && p < pauseWrite {
		p = pauseWrite
	}
	return p
}

// pauseLevel returns the strictest pause s has set, CLIENT PAUSE's
// counted until it is lifted (at its deadline or by CLIENT UNPAUSE).
func (s *Server) pauseLevel() pauseType {
	p := s.pause.typ
	if s.foPause && p < pauseWrite {
		p = pauseWrite
	}
	return p
}

// liftPause changes the pauses of s with lift and, as Redis 7.0 does,
// reprocesses the held commands only if the pause became less strict: a
// write pause lifted under another write pause leaves them held.
func (c *Cluster) liftPause(s *Server, lift func()) {
	before := s.pauseLevel()
	lift()
	if s.pauseLevel() < before {
		c.scheduleRelease(s)
	}
}

// postpones reports whether s holds a command of ss now, as Redis's
// processCommand blocks a client while clients are paused: under a pause
// of every command, all of them; under a write pause, the writes (unless
// a read-only replica refuses them first), PUBLISH, and an EXEC whose
// queue holds one of those. Inside MULTI the check comes before the
// queuing, as in Redis.
func (s *Server) postpones(ss *session, cmd string) bool {
	switch s.pausedFor() {
	case pauseAll:
		return true
	case pauseWrite:
		if writeCommands[cmd] {
			return s.Role == RoleMaster
		}
		return cmd == "PUBLISH" || (cmd == "EXEC" && ss.multi && mayReplicate(ss.multiQ))
	}
	return false
}

// mayReplicate reports whether a transaction's queue holds a write or a
// PUBLISH.
func mayReplicate(q [][]string) bool {
	for _, a := range q {
		if cmd := strings.ToUpper(a[0]); writeCommands[cmd] || cmd == "PUBLISH" {
			return true
		}
	}
	return false
}

// clientPauseCommand is CLIENT PAUSE <ms> [WRITE|ALL]: until the deadline
// (or CLIENT UNPAUSE) the clients' writes, or all their commands, are
// held. A pause already set keeps the stricter type and the later
// deadline.
func (c *Cluster) clientPauseCommand(s *Server, args []string) msg.Reply {
	if len(args) != 3 && len(args) != 4 {
		return errReply("ERR syntax error")
	}
	ms, err := strconv.ParseInt(args[2], 10, 64)
	if err != nil {
		return errReply("ERR timeout is not an integer or out of range")
	}
	if ms < 0 {
		return errReply("ERR timeout is negative")
	}
	typ := pauseAll
	if len(args) == 4 {
		switch strings.ToUpper(args[3]) {
		case "WRITE":
			typ = pauseWrite
		case "ALL":
		default:
			return errReply("ERR CLIENT PAUSE mode must be WRITE or ALL")
		}
	}
	end := c.now.Add(time.Duration(ms) * time.Millisecond)
	if s.pause.typ == pauseOff || !c.now.Before(s.pause.end) {
		s.pause = clientPause{typ: typ, end: end}
	} else {
		s.pause.typ = max(s.pause.typ, typ)
		if end.After(s.pause.end) {
			s.pause.end = end
		}
	}
	c.tracef(s.Name, "clients paused (%s) until +%v", s.pause.typ, s.pause.end.Sub(c.start).Round(time.Millisecond))
	life, at := s.life, s.pause.end
	c.sched.at(at, func() {
		if s.life != life || s.crashed || s.pause.typ == pauseOff || s.pause.end.After(c.now) {
			return // restarted, unpaused, or extended (a later timer ends it)
		}
		c.tracef(s.Name, "client pause deadline passed")
		c.liftPause(s, func() { s.pause = clientPause{} })
	})
	return status("OK")
}

// clientUnpauseCommand is CLIENT UNPAUSE: it lifts CLIENT PAUSE's pause,
// not the one of the server's own failover.
func (c *Cluster) clientUnpauseCommand(s *Server) msg.Reply {
	if s.pause.typ != pauseOff {
		c.tracef(s.Name, "clients unpaused")
		c.liftPause(s, func() { s.pause = clientPause{} })
	}
	return status("OK")
}
