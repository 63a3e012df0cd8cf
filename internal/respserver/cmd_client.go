package respserver

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// clientState is what CLIENT subcommands set on a connection beyond the
// fields of Client. Only what runs the connection's commands touches it:
// its reader goroutine, or its loop and the worker it hands it to, one at
// a time (loop.go).
type clientState struct {
	replyOff, replySkip, replySkipNext bool
	// closeAfterCommand closes the connection once the reply of the
	// running command is written (the client killed itself, or lost its
	// user); later commands are ignored.
	closeAfterCommand bool
	closing           bool
	noEvict           bool
	tracking          trackingState
}

// trackingState is CLIENT TRACKING's state. A Sentinel has no keys, so
// it is recorded and reported but never produces invalidations.
type trackingState struct {
	on, bcast, optin, optout, noloop, caching bool
	redirect                                  int64
	prefixes                                  []string // sorted
}

// clientStateOf returns c's per-connection CLIENT state.
func clientStateOf(c *Client) *clientState { return &c.state }

// reply queues v for c unless CLIENT REPLY OFF or SKIP silences it;
// pushes (pub/sub) are never silenced, as in Redis.
func (s *Server) reply(c *Client, v Value) {
	if st := clientStateOf(c); st.replyOff || st.replySkip {
		if _, push := v.(Push); !push {
			return
		}
	}
	c.send(v)
}

// ignoring reports whether c's commands are dropped because it is being
// closed after a reply.
func ignoring(c *Client) bool {
	return clientStateOf(c).closing
}

// commandDone is Redis's resetClient after each command line, run or
// rejected: CLIENT REPLY SKIP takes effect for the next command, CLIENT
// CACHING lasts until a command other than CLIENT, and a pending
// close-after-reply starts. name is the full name, "" if unknown.
func commandDone(c *Client, name string) {
	st := clientStateOf(c)
	st.replySkip = false
	if st.replySkipNext {
		st.replySkip, st.replySkipNext = true, false
	}
	if !strings.HasPrefix(name, "client|") {
		st.tracking.caching = false
	}
	if st.closeAfterCommand && !st.closing {
		st.closing = true
		c.closeAfterReplies()
	}
}

// pauseMode is CLIENT PAUSE's mode; ALL is stronger than WRITE.
type pauseMode int

const (
	pauseOff pauseMode = iota
	pauseWrite
	pauseAll
)

// pauseState is a server's CLIENT PAUSE. changed is closed (and
// replaced) whenever the pause is lifted or changed.
type pauseState struct {
	// on is set while a pause may be in force (mode is not off): the
	// loops look at it before taking mu.
	on      atomic.Bool
	mu      sync.Mutex
	mode    pauseMode
	end     time.Time
	changed chan struct{}
}

// current returns the pause in force at now, lifting an expired one.
func (p *pauseState) current(now time.Time) (pauseMode, time.Time, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode != pauseOff && now.After(p.end) {
		p.set(pauseOff, time.Time{})
	}
	return p.mode, p.end, p.changed
}

// set changes the pause and wakes the waiters. Callers hold p.mu.
func (p *pauseState) set(mode pauseMode, end time.Time) {
	p.mode, p.end = mode, end
	p.on.Store(mode != pauseOff)
	close(p.changed)
	p.changed = make(chan struct{})
}

// waitUnpaused holds a command while CLIENT PAUSE applies to it: every
// command under ALL, PUBLISH (the only command that may replicate) under
// WRITE. It returns early if c is closed.
func (s *Server) waitUnpaused(c *Client, cmd *commands.Spec) {
	p := &s.pause
	if !p.on.Load() {
		return // no pause in force: spares the clock and the lock
	}
	writes := cmd.Flags&(commands.FlagWrite|commands.FlagMayReplicate) != 0
	var done <-chan struct{}
	for {
		now := time.Now()
		mode, end, changed := p.current(now)
		if mode == pauseOff || (mode == pauseWrite && !writes) {
			return
		}
		if done == nil {
			done = c.doneChan()
		}
		t := time.NewTimer(end.Sub(now) + time.Millisecond)
		select {
		case <-changed:
		case <-t.C:
		case <-done:
			t.Stop()
			return
		}
		t.Stop()
	}
}

func cmdClientID(x *ctx) Value { return Int(x.c.ID) }

func cmdClientGetname(x *ctx) Value {
	x.c.mu.Lock()
	defer x.c.mu.Unlock()
	if x.c.name == "" {
		return Null{}
	}
	return Bulk(x.c.name)
}

func cmdClientSetname(x *ctx) Value {
	name := x.arg(2)
	if !validClientName(name) {
		return Err("ERR Client names cannot contain spaces, newlines or special characters.")
	}
	x.c.mu.Lock()
	x.c.name = name
	x.c.mu.Unlock()
	return OK
}

// cmdClientSetinfo is CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2):
// the client library CLIENT LIST shows; an empty value clears it.
func cmdClientSetinfo(x *ctx) Value {
	attr, val := x.arg(2), x.arg(3)
	var dest *string
	switch {
	case strings.EqualFold(attr, "lib-name"):
		dest = &x.c.libName
	case strings.EqualFold(attr, "lib-ver"):
		dest = &x.c.libVer
	default:
		return Err(fmt.Sprintf("ERR Unrecognized option '%s'", attr))
	}
	if !validClientName(val) {
		return Err(fmt.Sprintf("ERR %s cannot contain spaces, newlines or special characters.", attr))
	}
	x.c.mu.Lock()
	*dest = val
	x.c.mu.Unlock()
	return OK
}

func cmdClientInfo(x *ctx) Value { return Verbatim(x.c.info(x.srv.now())) }

func clientType(c *Client) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subscriptions() > 0 {
		return "pubsub"
	}
	return "normal"
}

// clientTypeByName is Redis's getClientTypeByName; ok is false for an
// unknown name. slave and replica are the same type.
func clientTypeByName(name string) (string, bool) {
	switch t := strings.ToLower(name); t {
	case "normal", "pubsub", "master":
		return t, true
	case "replica", "slave":
		return "replica", true
	}
	return "", false
}

func (x *ctx) clientByID(id int64) *Client {
	for _, c := range x.srv.clientList() {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// cmdClientList is CLIENT LIST [TYPE type | ID id...].
func cmdClientList(x *ctx) Value {
	now := x.srv.now()
	var sb strings.Builder
	switch {
	case len(x.args) == 4 && strings.EqualFold(x.arg(2), "type"):
		typ, ok := clientTypeByName(x.arg(3))
		if !ok {
			return Err("ERR Unknown client type '" + x.arg(3) + "'")
		}
		for _, c := range x.srv.clientList() {
			if clientType(c) == typ {
				sb.WriteString(c.info(now))
			}
		}
	case len(x.args) > 3 && strings.EqualFold(x.arg(2), "id"):
		for _, a := range x.args[3:] {
			id, ok := parseLongLong(string(a))
			if !ok {
				return Err("ERR Invalid client ID")
			}
			if c := x.clientByID(id); c != nil {
				sb.WriteString(c.info(now))
			}
		}
	case len(x.args) != 2:
		return Err("ERR syntax error")
	default:
		for _, c := range x.srv.clientList() {
			sb.WriteString(c.info(now))
		}
	}
	return Verbatim(sb.String())
}

// cmdClientKill supports both forms: `CLIENT KILL addr:port` (replies +OK
// or an error, and may kill the caller) and the filter form (`ID`, `TYPE`,
// `USER`, `ADDR`, `LADDR`, `SKIPME`), which replies with the number of
// clients killed. A client killing itself is closed after the reply.
func cmdClientKill(x *ctx) Value {
	var (
		id               int64
		typ, addr, laddr string
		user             string
		haveUser, skipme = false, true
		oldForm          = len(x.args) == 3
	)
	if oldForm {
		addr, skipme = x.arg(2), false
	}
	for i := 2; !oldForm && i < len(x.args); i += 2 {
		if i+1 >= len(x.args) {
			return Err("ERR syntax error")
		}
		v := x.arg(i + 1)
		switch strings.ToLower(x.arg(i)) {
		case "id":
			n, ok := parseLongLong(v)
			if !ok || n < 1 {
				return Err("ERR client-id should be greater than 0")
			}
			id = n
		case "type":
			t, ok := clientTypeByName(v)
			if !ok {
				return Err("ERR Unknown client type '" + v + "'")
			}
			typ = t
		case "addr":
			addr = v
		case "laddr":
			laddr = v
		case "user":
			if !x.srv.users.Exists(v) {
				return Err(fmt.Sprintf("ERR No such user '%s'", v))
			}
			user, haveUser = v, true
		case "skipme":
			switch strings.ToLower(v) {
			case "yes":
				skipme = true
			case "no":
				skipme = false
			default:
				return Err("ERR syntax error")
			}
		default:
			return Err("ERR syntax error")
		}
	}
	killed := 0
	for _, c := range x.srv.clientList() {
		c.mu.Lock()
		cu, ca, cl := c.user, c.addr, c.laddr
		c.mu.Unlock()
		if (addr != "" && ca != addr) || (laddr != "" && cl != laddr) ||
			(typ != "" && clientType(c) != typ) || (id != 0 && c.ID != id) ||
			(haveUser && cu != user) || (c == x.c && skipme) {
			continue
		}
		if c == x.c {
			clientStateOf(c).closeAfterCommand = true
		} else {
			c.close()
		}
		killed++
	}
	if oldForm {
		if killed == 0 {
			return Err("ERR No such client")
		}
		return OK
	}
	return Int(killed)
}

func cmdClientReply(x *ctx) Value {
	st := clientStateOf(x.c)
	switch strings.ToLower(x.arg(2)) {
	case "on":
		st.replyOff, st.replySkip = false, false
		return OK
	case "off":
		st.replyOff = true
	case "skip":
		if !st.replyOff {
			st.replySkipNext = true
		}
	default:
		return Err("ERR syntax error")
	}
	return noReply{}
}

func cmdClientNoEvict(x *ctx) Value {
	switch strings.ToLower(x.arg(2)) {
	case "on":
		clientStateOf(x.c).noEvict = true
	case "off":
		clientStateOf(x.c).noEvict = false
	default:
		return Err("ERR syntax error")
	}
	return OK
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: nothing ever
// blocks in a Sentinel, so it replies 0 once the arguments are valid.
func cmdClientUnblock(x *ctx) Value {
	if len(x.args) > 4 {
		return subcommandSyntaxError(x)
	}
	if len(x.args) == 4 && !strings.EqualFold(x.arg(3), "timeout") && !strings.EqualFold(x.arg(3), "error") {
		return Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
	}
	if _, ok := parseLongLong(x.arg(2)); !ok {
		return errIntArg
	}
	return Int(0)
}

// cmdClientPause is CLIENT PAUSE timeout-ms [WRITE|ALL]. A pause already
// in force is extended: the stronger mode and the later end win.
func cmdClientPause(x *ctx) Value {
	if len(x.args) > 4 {
		return subcommandSyntaxError(x)
	}
	mode := pauseAll
	if len(x.args) == 4 {
		switch strings.ToLower(x.arg(3)) {
		case "write":
			mode = pauseWrite
		case "all":
		default:
			return Err("ERR CLIENT PAUSE mode must be WRITE or ALL")
		}
	}
	ms, ok := parseLongLong(x.arg(2))
	if !ok {
		return Err("ERR timeout is not an integer or out of range")
	}
	if ms < 0 {
		return Err("ERR timeout is negative")
	}
	var end time.Time // a 0 timeout ends at once
	now := time.Now()
	if ms > 0 {
		end = now.Add(time.Duration(ms) * time.Millisecond)
	}
	p := &x.srv.pause
	cur, curEnd, _ := p.current(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if cur != pauseOff {
		mode = max(mode, cur)
		if curEnd.After(end) {
			end = curEnd
		}
	}
	p.set(mode, end)
	return OK
}

func cmdClientUnpause(x *ctx) Value {
	p := &x.srv.pause
	p.mu.Lock()
	p.set(pauseOff, time.Time{})
	p.mu.Unlock()
	return OK
}

// cmdClientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
// [PREFIX p]... [OPTIN] [OPTOUT] [NOLOOP], with Redis's checks in Redis's
// order.
func cmdClientTracking(x *ctx) Value {
	var (
		redir                        int64
		bcast, optin, optout, noloop bool
		prefixes                     []string
	)
	for j := 3; j < len(x.args); j++ {
		more := j < len(x.args)-1
		switch opt := strings.ToLower(x.arg(j)); {
		case opt == "redirect" && more:
			j++
			if redir != 0 {
				return Err("ERR A client can only redirect to a single other client")
			}
			n, ok := parseLongLong(x.arg(j))
			if !ok {
				return errIntArg
			}
			if x.clientByID(n) == nil {
				return Err("ERR The client ID you want redirect to does not exist")
			}
			redir = n
		case opt == "bcast":
			bcast = true
		case opt == "optin":
			optin = true
		case opt == "optout":
			optout = true
		case opt == "noloop":
			noloop = true
		case opt == "prefix" && more:
			j++
			prefixes = append(prefixes, x.arg(j))
		default:
			return Err("ERR syntax error")
		}
	}
	tr := &clientStateOf(x.c).tracking
	switch strings.ToLower(x.arg(2)) {
	case "on":
		switch {
		case !bcast && len(prefixes) > 0:
			return Err("ERR PREFIX option requires BCAST mode to be enabled")
		case tr.on && tr.bcast != bcast:
			return Err("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
		case bcast && (optin || optout):
			return Err("ERR OPTIN and OPTOUT are not compatible with BCAST")
		case optin && optout:
			return Err("ERR You can't specify both OPTIN mode and OPTOUT mode")
		case (optin && tr.optout) || (optout && tr.optin):
			return Err("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
		}
		if bcast {
			if v := prefixCollision(tr.prefixes, prefixes); v != nil {
				return v
			}
		}
		tr.on, tr.redirect = true, redir
		tr.bcast, tr.optin, tr.optout, tr.noloop = bcast, optin, optout, noloop
		if bcast {
			if len(prefixes) == 0 {
				prefixes = []string{""}
			}
			for _, p := range prefixes {
				if i := sort.SearchStrings(tr.prefixes, p); i == len(tr.prefixes) || tr.prefixes[i] != p {
					tr.prefixes = append(tr.prefixes, p)
					sort.Strings(tr.prefixes)
				}
			}
		}
	case "off":
		*tr = trackingState{}
	default:
		return Err("ERR syntax error")
	}
	return OK
}

// prefixCollision is Redis's check that BCAST prefixes do not overlap
// the client's or each other.
func prefixCollision(have, add []string) Value {
	overlap := func(a, b string) bool {
		n := min(len(a), len(b))
		return a[:n] == b[:n]
	}
	for i, p := range add {
		for _, h := range have {
			if overlap(h, p) {
				return Err(fmt.Sprintf("ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single client must not overlap.", p, h))
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				return Err(fmt.Sprintf("ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single client must not overlap.", p, q))
			}
		}
	}
	return nil
}

func cmdClientCaching(x *ctx) Value {
	tr := &clientStateOf(x.c).tracking
	if !tr.on {
		return Err("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	}
	switch strings.ToLower(x.arg(2)) {
	case "yes":
		if !tr.optin {
			return Err("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
		}
	case "no":
		if !tr.optout {
			return Err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
		}
	default:
		return Err("ERR syntax error")
	}
	tr.caching = true
	return OK
}

func cmdClientGetredir(x *ctx) Value {
	if tr := clientStateOf(x.c).tracking; tr.on {
		return Int(tr.redirect)
	}
	return Int(-1)
}

func cmdClientTrackingInfo(x *ctx) Value {
	tr := clientStateOf(x.c).tracking
	flags := setReply{Bulk("off")}
	redirect := int64(-1)
	if tr.on {
		flags[0] = Bulk("on")
		redirect = tr.redirect
	}
	if tr.bcast {
		flags = append(flags, Bulk("bcast"))
	}
	if tr.optin {
		flags = append(flags, Bulk("optin"))
		if tr.caching {
			flags = append(flags, Bulk("caching-yes"))
		}
	}
	if tr.optout {
		flags = append(flags, Bulk("optout"))
		if tr.caching {
			flags = append(flags, Bulk("caching-no"))
		}
	}
	if tr.noloop {
		flags = append(flags, Bulk("noloop"))
	}
	prefixes := Array{}
	for _, p := range tr.prefixes {
		prefixes = append(prefixes, Bulk(p))
	}
	return Map{Bulk("flags"), flags, Bulk("redirect"), Int(redirect), Bulk("prefixes"), prefixes}
}

func cmdClientHelp(x *ctx) Value {
	return helpReply("CLIENT",
		"CACHING (YES|NO)",
		"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR",
		"    Return the client ID we are redirecting to when tracking is enabled.",
		"GETNAME",
		"    Return the name of the current connection.",
		"ID",
		"    Return the ID of the current connection.",
		"INFO",
		"    Return information about the current client connection.",
		"KILL <ip:port>",
		"    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]",
		"    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made to specified local address",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Kill connections by type.",
		"    * USER <username>",
		"      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)",
		"      Skip killing current connection (default: yes).",
		"LIST [options ...]",
		"    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Return clients of specified type.",
		"UNPAUSE",
		"    Stop the current client pause, resuming traffic.",
		"PAUSE <timeout> [WRITE|ALL]",
		"    Suspend all, or just write, clients for <timeout> milliseconds.",
		"REPLY (ON|OFF|SKIP)",
		"    Control the replies sent to the current connection.",
		"SETNAME <name>",
		"    Assign the name <name> to the current connection.",
		"SETINFO <option> <value>",
		"    Set client meta attr. Options are:",
		"    * LIB-NAME: the client lib name.",
		"    * LIB-VER: the client lib version.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]",
		"    Unblock the specified blocked client.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
		"         [OPTIN] [OPTOUT] [NOLOOP]",
		"    Control server assisted client side caching.",
		"TRACKINGINFO",
		"    Report tracking status for the current connection.",
		"NO-EVICT (ON|OFF)",
		"    Protect current client connection from eviction.",
	)
}
