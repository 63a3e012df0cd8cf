package acl

import (
	"time"
)

// LogEntry is one ACL LOG entry; similar events within a minute are
// counted in one entry.
type LogEntry struct {
	Count  int64
	Reason Result
	// Object is the command, channel or (for DeniedAuth) the command
	// that authenticated.
	Object   string
	Username string
	// Time is when the entry was last bumped.
	Time time.Time
	// ClientInfo is the client's CLIENT INFO line without its newline.
	ClientInfo string
}

// defaultLogMaxLen is Redis's acllog-max-len default.
const defaultLogMaxLen = 128

// LogDenial records a denial in the ACL log: an entry matching one of the
// ten newest (same reason, object, user, within a minute) is bumped and
// moved to the front instead.
func (u *Users) LogDenial(reason Result, object, username, clientInfo string, now time.Time) {
	u.logMu.Lock()
	defer u.logMu.Unlock()
	for i, e := range u.log {
		if i >= 10 {
			break
		}
		delta := e.Time.Sub(now)
		if delta < 0 {
			delta = -delta
		}
		if e.Reason == reason && e.Object == object && e.Username == username && delta <= time.Minute {
			e.Count++
			e.Time, e.ClientInfo = now, clientInfo
			copy(u.log[1:i+1], u.log[:i])
			u.log[0] = e
			return
		}
	}
	u.log = append([]*LogEntry{{Count: 1, Reason: reason, Object: object, Username: username, Time: now, ClientInfo: clientInfo}}, u.log...)
	if len(u.log) > u.logMaxLen {
		u.log = u.log[:u.logMaxLen]
	}
}

// LogEntries returns copies of up to n newest ACL log entries.
func (u *Users) LogEntries(n int) []LogEntry {
	u.logMu.Lock()
	defer u.logMu.Unlock()
	if n > len(u.log) {
		n = len(u.log)
	}
	out := make([]LogEntry, n)
	for i := range out {
		out[i] = *u.log[i]
	}
	return out
}

// ResetLog empties the ACL log (ACL LOG RESET).
func (u *Users) ResetLog() {
	u.logMu.Lock()
	u.log = nil
	u.logMu.Unlock()
}
