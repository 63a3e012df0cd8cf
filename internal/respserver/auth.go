package respserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/glob"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// The errors of ACL rules; their texts are Redis's, which ACL SETUSER
// shows after "Error in ACL SETUSER modifier '<rule>': ".
var (
	ErrACLUnknownCommand  = errors.New("Unknown command or category name in ACL")
	ErrACLSyntax          = errors.New("Syntax error")
	ErrACLKeyAfterAll     = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	ErrACLChannelAfterAll = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	ErrACLNoSuchPassword  = errors.New("The password you are trying to remove from the user does not exist")
	ErrACLBadHash         = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	ErrACLDuplicateUser   = errors.New("Duplicate user found. A user can only be defined once in config files")
	ErrACLFirstArgOfSub   = errors.New("Allowing first-arg of a subcommand is not supported")
	// ErrACLUsernameSpaces rejects user names with spaces or NULs.
	ErrACLUsernameSpaces = errors.New("Usernames can't contain spaces or null characters")
	// ErrACLFileAndUsers is Redis's refusal to start with both `user`
	// lines and an aclfile.
	ErrACLFileAndUsers = errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
	// ErrNoACLFile is returned by LoadACLFile and SaveACLFile without an
	// aclfile.
	ErrNoACLFile = errors.New("This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
)

// ACLRuleError is a rule that could not be applied to a user.
type ACLRuleError struct {
	Rule string
	Err  error
}

func (e *ACLRuleError) Error() string {
	return fmt.Sprintf("Error in ACL SETUSER modifier '%s': %s", e.Rule, e.Err)
}

func (e *ACLRuleError) Unwrap() error { return e.Err }

// keyPerm is the access a key pattern grants: read, write or both.
type keyPerm uint8

const (
	keyRead keyPerm = 1 << iota
	keyWrite
	keyAll = keyRead | keyWrite
)

type keyPattern struct {
	perm    keyPerm
	pattern string
}

// cmdBits has one bit per catalogue id.
type cmdBits [2]uint64

func (b *cmdBits) get(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }

func (b *cmdBits) set(id int, v bool) {
	if v {
		b[id/64] |= 1 << (id % 64)
	} else {
		b[id/64] &^= 1 << (id % 64)
	}
}

// selector is one set of permissions of a user, as Redis 7.0 keeps them:
// a command bitmap (plus the "future commands" bit that only +@all sets),
// allowed first arguments, key and channel patterns.
type selector struct {
	root        bool
	allKeys     bool
	allChannels bool
	allCommands bool
	bits        cmdBits
	future      bool
	firstArgs   map[int][]string
	keys        []keyPattern
	channels    []string
}

func newSelector(root, allChannels bool) *selector {
	return &selector{root: root, allChannels: allChannels}
}

func (s *selector) clone() *selector {
	c := *s
	c.keys = append([]keyPattern(nil), s.keys...)
	c.channels = append([]string(nil), s.channels...)
	c.firstArgs = nil
	for id, args := range s.firstArgs {
		if c.firstArgs == nil {
			c.firstArgs = map[int][]string{}
		}
		c.firstArgs[id] = append([]string(nil), args...)
	}
	return &c
}

// setBit sets one command bit; clearing a bit also drops allcommands.
func (s *selector) setBit(id int, v bool) {
	s.bits.set(id, v)
	if !v {
		s.allCommands = false
	}
}

// changePerm allows or denies cmd and, for a container, every subcommand.
func (s *selector) changePerm(cmd *commands.Spec, allow bool) {
	s.setBit(cmd.ID, allow)
	delete(s.firstArgs, cmd.ID)
	for _, sub := range cmd.Subs {
		s.setBit(sub.ID, allow)
	}
}

// changeCategory applies changePerm to every command in cat.
func (s *selector) changeCategory(cat commands.Category, allow bool) {
	for _, cmd := range catalogue.All() {
		if cmd.Categories&cat != 0 {
			s.changePerm(cmd, allow)
		}
	}
}

func (s *selector) setAll(allow bool) {
	if allow {
		s.bits = cmdBits{^uint64(0), ^uint64(0)}
	} else {
		s.bits = cmdBits{}
	}
	s.future, s.allCommands = allow, allow
	s.firstArgs = nil
}

func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply applies one selector rule (everything but the user-level ones).
func (s *selector) apply(op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case strings.EqualFold(op, "resetkeys"):
		s.allKeys, s.keys = false, nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.allChannels, s.channels = true, nil
	case strings.EqualFold(op, "resetchannels"):
		s.allChannels, s.channels = false, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(false)
	case op[0] == '~' || op[0] == '%':
		return s.addKeyPattern(op)
	case op[0] == '&':
		if s.allChannels {
			return ErrACLChannelAfterAll
		}
		if hasSpaces(op[1:]) {
			return ErrACLSyntax
		}
		found := false
		for _, c := range s.channels {
			found = found || c == op[1:]
		}
		if !found {
			s.channels = append(s.channels, op[1:])
		}
		s.allChannels = false
	case op[0] == '+' && !strings.HasPrefix(op, "+@"):
		return s.allowCommand(op[1:])
	case op[0] == '-' && !strings.HasPrefix(op, "-@"):
		cmd := catalogue.LookupFull(op[1:])
		if cmd == nil {
			return ErrACLUnknownCommand
		}
		s.changePerm(cmd, false)
	case op[0] == '+' || op[0] == '-':
		cat := commands.CategoryByName(op[2:])
		if cat == 0 {
			return ErrACLUnknownCommand
		}
		s.changeCategory(cat, op[0] == '+')
	default:
		return ErrACLSyntax
	}
	return nil
}

func (s *selector) addKeyPattern(op string) error {
	if s.allKeys {
		return ErrACLKeyAfterAll
	}
	perm, off := keyAll, 1
	if op[0] == '%' {
		perm = 0
		for ; off < len(op); off++ {
			c := op[off]
			if (c == 'R' || c == 'r') && perm&keyRead == 0 {
				perm |= keyRead
			} else if (c == 'W' || c == 'w') && perm&keyWrite == 0 {
				perm |= keyWrite
			} else if c == '~' {
				off++
				break
			} else {
				return ErrACLSyntax
			}
		}
		if perm == 0 {
			// Redis 7.0.15 accepts `%~x` and then aborts when describing
			// it; refusing it is the only safe reading.
			return ErrACLSyntax
		}
	}
	pat := op[off:]
	if hasSpaces(pat) {
		return ErrACLSyntax
	}
	found := false
	for i := range s.keys {
		if s.keys[i].pattern == pat {
			s.keys[i].perm |= perm
			found = true
		}
	}
	if !found {
		s.keys = append(s.keys, keyPattern{perm: perm, pattern: pat})
	}
	s.allKeys = false
	return nil
}

// allowCommand applies `+name`, `+container|sub` or `+cmd|firstarg`.
func (s *selector) allowCommand(name string) error {
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		cmd := catalogue.LookupFull(name)
		if cmd == nil {
			return ErrACLUnknownCommand
		}
		s.changePerm(cmd, true)
		return nil
	}
	base, sub := name[:i], name[i+1:]
	cmd := catalogue.LookupFull(base)
	switch {
	case cmd == nil:
		return ErrACLUnknownCommand
	case cmd.Parent != nil:
		return ErrACLFirstArgOfSub
	case sub == "":
		return ErrACLSyntax
	case cmd.Subs != nil:
		full := catalogue.LookupFull(name)
		if full == nil {
			return ErrACLUnknownCommand
		}
		s.changePerm(full, true)
	default:
		for _, a := range s.firstArgs[cmd.ID] {
			if strings.EqualFold(a, sub) {
				return nil
			}
		}
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		s.firstArgs[cmd.ID] = append(s.firstArgs[cmd.ID], sub)
	}
	return nil
}

// sanitize is the user's sanitize-payload setting (shown, never used: a
// Sentinel has no RESTORE).
type sanitize uint8

const (
	sanitizeUnset sanitize = iota
	sanitizeSkip
	sanitizeOn
)

// User is one ACL user. Passwords are kept as lower-case hex SHA-256
// digests, in the order they were added, as Redis keeps them.
type User struct {
	name      string
	enabled   bool
	nopass    bool
	sanitize  sanitize
	passwords []string
	selectors []*selector // selectors[0] is the root selector
}

// Name returns the user name.
func (usr *User) Name() string { return usr.name }

func newUser(name string, allChannels bool) *User {
	return &User{name: name, selectors: []*selector{newSelector(true, allChannels)}}
}

func (usr *User) clone() *User {
	c := *usr
	c.passwords = append([]string(nil), usr.passwords...)
	c.selectors = make([]*selector, len(usr.selectors))
	for i, s := range usr.selectors {
		c.selectors[i] = s.clone()
	}
	return &c
}

func hashPassword(p string) string {
	d := sha256.Sum256([]byte(p))
	return hex.EncodeToString(d[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !(h[i] >= '0' && h[i] <= '9' || h[i] >= 'a' && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// apply applies one rule of ACL SETUSER to usr. allChannels is the
// acl-pubsub-default of new selectors and of `reset`.
func (usr *User) apply(op string, allChannels bool) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		usr.enabled = true
	case strings.EqualFold(op, "off"):
		usr.enabled = false
	case strings.EqualFold(op, "skip-sanitize-payload"):
		usr.sanitize = sanitizeSkip
	case strings.EqualFold(op, "sanitize-payload"):
		usr.sanitize = sanitizeOn
	case strings.EqualFold(op, "nopass"):
		usr.nopass, usr.passwords = true, nil
	case strings.EqualFold(op, "resetpass"):
		usr.nopass, usr.passwords = false, nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = hashPassword(op[1:])
		} else if !validHash(h) {
			return ErrACLBadHash
		}
		found := false
		for _, p := range usr.passwords {
			found = found || p == h
		}
		if !found {
			usr.passwords = append(usr.passwords, h)
		}
		usr.nopass = false
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = hashPassword(op[1:])
		} else if !validHash(h) {
			return ErrACLBadHash
		}
		for i, p := range usr.passwords {
			if p == h {
				usr.passwords = append(usr.passwords[:i:i], usr.passwords[i+1:]...)
				return nil
			}
		}
		return ErrACLNoSuchPassword
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(false, allChannels)
		ops, err := splitargs.Split(op[1 : len(op)-1])
		if err != nil {
			ops = nil // sdssplitargs fails: Redis adds an empty selector
		}
		for _, o := range ops {
			if o == "" {
				continue
			}
			if err := s.apply(o); err != nil {
				return err
			}
		}
		usr.selectors = append(usr.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		usr.selectors = usr.selectors[:1]
	case strings.EqualFold(op, "reset"):
		usr.nopass, usr.passwords = false, nil
		root := usr.selectors[0]
		root.allKeys, root.keys = false, nil
		root.allChannels, root.channels = allChannels, nil
		usr.enabled = false
		usr.sanitize = sanitizeOn
		usr.selectors = usr.selectors[:1]
		root.setAll(false)
	default:
		return usr.selectors[0].apply(op)
	}
	return nil
}

// mergeSelectorArgs joins rules that spread one `(...)` selector over
// several arguments. It returns the index of an unmatched `(` on error.
func mergeSelectorArgs(rules []string) ([]string, int, bool) {
	var out []string
	open := -1
	var cur string
	for j, op := range rules {
		if open < 0 && strings.HasPrefix(op, "(") && !strings.HasSuffix(op, ")") {
			cur, open = op, j
			continue
		}
		if open >= 0 {
			cur += " " + op
			if strings.HasSuffix(op, ")") {
				out = append(out, cur)
				open = -1
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, open, false
	}
	return out, 0, true
}

// describeSelectorCommands is the shortest-looking rule list that
// recreates s's command bitmap, computed as Redis does: start from +@all
// or -@all, greedily apply the best matching categories, then fix single
// commands.
func (s *selector) describeSelectorCommands() string {
	var rules []string
	fake := newSelector(false, false)
	additive := !s.future
	if additive {
		rules = append(rules, "-@all")
		fake.setAll(false)
	} else {
		rules = append(rules, "+@all")
		fake.setAll(true)
	}
	temp := &selector{bits: s.bits}
	applied := make([]bool, len(commands.CategoryNames))
	for {
		best := -1
		var minDiff, maxSame = int(^uint(0) >> 1), 0
		for j := range commands.CategoryNames {
			if applied[j] {
				continue
			}
			on, off := 0, 0
			for _, cmd := range catalogue.All() {
				if cmd.Categories&(1<<j) != 0 {
					if temp.bits.get(cmd.ID) {
						on++
					} else {
						off++
					}
				}
			}
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		fake.changeCategory(1<<best, additive)
		temp.changeCategory(1<<best, !additive)
		sign := "-@"
		if additive {
			sign = "+@"
		}
		rules = append(rules, sign+commands.CategoryNames[best])
		applied[best] = true
	}
	for _, top := range catalogue.Tops() {
		rules = s.describeSingle(fake, top, rules)
	}
	return strings.Join(rules, " ")
}

func (s *selector) describeSingle(fake *selector, cmd *commands.Spec, rules []string) []string {
	user, want := s.bits.get(cmd.ID), fake.bits.get(cmd.ID)
	if user != want {
		if user {
			rules = append(rules, "+"+cmd.Name)
		} else {
			rules = append(rules, "-"+cmd.Name)
		}
		fake.changePerm(cmd, user)
	}
	for _, sub := range cmd.Subs {
		rules = s.describeSingle(fake, sub, rules)
	}
	if !user {
		for _, a := range s.firstArgs[cmd.ID] {
			rules = append(rules, "+"+cmd.Name+"|"+a)
		}
	}
	return rules
}

func (p keyPattern) String() string {
	switch p.perm {
	case keyRead:
		return "%R~" + p.pattern
	case keyWrite:
		return "%W~" + p.pattern
	}
	return "~" + p.pattern
}

// describe returns s as ACL rules: keys, channels, commands.
func (s *selector) describe() []string {
	var out []string
	if s.allKeys {
		out = append(out, "~*")
	} else {
		for _, k := range s.keys {
			out = append(out, k.String())
		}
	}
	if s.allChannels {
		out = append(out, "&*")
	} else {
		out = append(out, "resetchannels")
		for _, c := range s.channels {
			out = append(out, "&"+c)
		}
	}
	return append(out, s.describeSelectorCommands())
}

// flagNames are the user flags in Redis's order (ACL LIST, ACL GETUSER).
func (usr *User) flagNames() []string {
	var out []string
	if usr.enabled {
		out = append(out, "on")
	} else {
		out = append(out, "off")
	}
	if usr.nopass {
		out = append(out, "nopass")
	}
	switch usr.sanitize {
	case sanitizeSkip:
		out = append(out, "skip-sanitize-payload")
	case sanitizeOn:
		out = append(out, "sanitize-payload")
	}
	return out
}

// rules returns the user as the rule list of a `user` directive (without
// the name): flags, password hashes, root rules, then each selector as
// one `(...)` argument.
func (usr *User) rules() []string {
	out := usr.flagNames()
	for _, p := range usr.passwords {
		out = append(out, "#"+p)
	}
	for _, s := range usr.selectors {
		d := s.describe()
		if s.root {
			// The command rules are one string of several words.
			out = append(out, d[:len(d)-1]...)
			out = append(out, strings.Fields(d[len(d)-1])...)
		} else {
			out = append(out, "("+strings.Join(d, " ")+")")
		}
	}
	return out
}

// describe is the user as ACL LIST shows it after `user <name> `.
func (usr *User) describe() string { return strings.Join(usr.rules(), " ") }

// aclResult is the outcome of a permission check, ordered as Redis
// orders them when several selectors fail.
type aclResult int

const (
	aclOK aclResult = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedAuth
	aclDeniedChannel
)

// channelArgs returns the argument positions holding channels that a
// permission check looks at, and whether they are patterns.
func channelArgs(cmd *commands.Spec, nargs int) (first, last int, pattern bool) {
	switch cmd.Name {
	case "publish":
		return 1, 1, false
	case "subscribe":
		return 1, nargs - 1, false
	case "psubscribe":
		return 1, nargs - 1, true
	}
	return 0, -1, false
}

func channelAllowed(list []string, ch string, pattern bool) bool {
	for _, p := range list {
		if (pattern && p == ch) || (!pattern && glob.Match(p, ch, false)) {
			return true
		}
	}
	return false
}

// check is ACLSelectorCheckCmd: the command bit (or an allowed first
// argument), then the channels.
func (s *selector) check(cmd *commands.Spec, args []string) (aclResult, int) {
	if !s.allCommands && cmd.Flags&commands.FlagNoAuth == 0 && !s.bits.get(cmd.ID) {
		idx := 1
		if cmd.Parent != nil {
			idx = 2
		}
		ok := false
		if len(args) > idx {
			for _, a := range s.firstArgs[cmd.ID] {
				ok = ok || strings.EqualFold(a, args[idx])
			}
		}
		if !ok {
			return aclDeniedCmd, 0
		}
	}
	if !s.allChannels {
		first, last, pattern := channelArgs(cmd, len(args))
		for i := first; i <= last && i < len(args); i++ {
			if !channelAllowed(s.channels, args[i], pattern) {
				return aclDeniedChannel, i
			}
		}
	}
	return aclOK, 0
}

// check is ACLCheckAllUserCommandPerm: any selector allowing the command
// is enough; otherwise the most relevant failure is returned with the
// argument position it concerns.
func (usr *User) check(cmd *commands.Spec, args []string) (aclResult, int) {
	res, pos := aclDeniedCmd, 0
	for _, s := range usr.selectors {
		r, p := s.check(cmd, args)
		if r == aclOK {
			return aclOK, 0
		}
		if r > res || (r == res && p > pos) {
			res, pos = r, p
		}
	}
	return res, pos
}

// allowsAll reports whether usr may run commands Redis 7.0 does not know
// (the "future commands" of +@all).
func (usr *User) allowsAll() bool {
	for _, s := range usr.selectors {
		if s.allCommands || s.future {
			return true
		}
	}
	return false
}

// channelsRevoked reports whether, going from old to usr, some channel
// permission was lost (Redis then disconnects the user's subscribers whose
// subscriptions are no longer allowed), and the channel patterns usr now
// allows.
func channelsRevoked(old, usr *User) (upcoming []string, revoked bool) {
	for _, s := range usr.selectors {
		if s.allChannels {
			return nil, false
		}
		upcoming = append(upcoming, s.channels...)
	}
	for _, s := range old.selectors {
		if s.allChannels {
			return upcoming, true
		}
		for _, c := range s.channels {
			found := false
			for _, u := range upcoming {
				found = found || u == c
			}
			if !found {
				return upcoming, true
			}
		}
	}
	return upcoming, false
}

// aclLogEntry is one ACL LOG entry; similar events within a minute are
// counted in one entry.
type aclLogEntry struct {
	count    int64
	reason   aclResult
	object   string
	username string
	ctime    time.Time
	cinfo    string
}

// defaultACLLogMaxLen is Redis's acllog-max-len default.
const defaultACLLogMaxLen = 128

// Users is the ACL state of the Sentinel's port: the users (always with
// `default`), the optional aclfile and the ACL log.
type Users struct {
	mu          sync.RWMutex
	users       map[string]*User
	aclFile     string
	allChannels bool

	logMu     sync.Mutex
	log       []*aclLogEntry // newest first
	logMaxLen int
}

// UsersOptions configures LoadUsers.
type UsersOptions struct {
	// Requirepass is the default user's password (`requirepass`).
	Requirepass string
	// Lines are the arguments of the config's `user` directives.
	Lines [][]string
	// ACLFile is the `aclfile` path; users are then loaded from it, and
	// ACL LOAD / ACL SAVE work on it.
	ACLFile string
	// AllChannels is `acl-pubsub-default allchannels`; Redis 7.0's
	// default is resetchannels.
	AllChannels bool
	// LogMaxLen is `acllog-max-len`; 0 means Redis's 128.
	LogMaxLen int
}

// NewUsers builds the users from `requirepass` and the `user` lines of
// the config, as LoadUsers does without an aclfile.
func NewUsers(requirepass string, lines [][]string) (*Users, error) {
	return LoadUsers(UsersOptions{Requirepass: requirepass, Lines: lines})
}

// newDefaultUser is `default` as Redis creates it: on nopass ~* &* +@all.
func newDefaultUser() *User {
	d := newUser("default", false)
	d.enabled, d.nopass = true, true
	r := d.selectors[0]
	r.setAll(true)
	r.allKeys, r.allChannels = true, true
	return d
}

// LoadUsers builds the users as Redis does at start-up: the default user,
// requirepass applied to it, then the `user` lines (a `user default` line
// resets and redefines it) or else the aclfile. Any bad rule fails.
func LoadUsers(opts UsersOptions) (*Users, error) {
	u := &Users{users: map[string]*User{}, aclFile: opts.ACLFile, allChannels: opts.AllChannels, logMaxLen: opts.LogMaxLen}
	if u.logMaxLen <= 0 {
		u.logMaxLen = defaultACLLogMaxLen
	}
	def := newDefaultUser()
	if opts.Requirepass != "" {
		def.nopass = false
		def.passwords = []string{hashPassword(opts.Requirepass)}
	}
	u.users["default"] = def
	if opts.ACLFile != "" && len(opts.Lines) > 0 {
		return nil, ErrACLFileAndUsers
	}
	seen := map[string]bool{}
	for _, line := range opts.Lines {
		if len(line) == 0 {
			continue
		}
		name := line[0]
		if seen[name] {
			return nil, fmt.Errorf("user %s: %w", name, ErrACLDuplicateUser)
		}
		seen[name] = true
		if hasSpaces(name) {
			return nil, fmt.Errorf("user %q: %w", name, ErrACLUsernameSpaces)
		}
		rules, at, ok := mergeSelectorArgs(line[1:])
		if !ok {
			return nil, fmt.Errorf("user %s: unmatched parenthesis in acl selector starting at '%s': %w", name, line[1+at], ErrACLSyntax)
		}
		usr, ok := u.users[name]
		if ok {
			if err := usr.apply("reset", u.allChannels); err != nil {
				return nil, err
			}
		} else {
			usr = newUser(name, u.allChannels)
			u.users[name] = usr
		}
		for _, r := range rules {
			if err := usr.apply(r, u.allChannels); err != nil {
				return nil, fmt.Errorf("error loading ACL rule '%s' for the user named '%s': %w", r, name, err)
			}
		}
	}
	if opts.ACLFile != "" {
		if err := u.LoadACLFile(); err != nil {
			return nil, fmt.Errorf("aborting because of ACL errors: %w", err)
		}
	}
	return u, nil
}

// ACLFile returns the aclfile path, "" when users live in the config.
func (u *Users) ACLFile() string { return u.aclFile }

// HasACLFile reports whether users live in an aclfile (ACL LOAD and ACL
// SAVE work, and the config rewrite must not write `user` lines).
func (u *Users) HasACLFile() bool { return u.aclFile != "" }

// get returns the user called name, nil if none. Callers hold u.mu.
func (u *Users) get(name string) *User { return u.users[name] }

// names returns the user names in Redis's (byte) order.
func (u *Users) names() []string {
	out := make([]string, 0, len(u.users))
	for n := range u.users {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Authenticate reports whether name/pass is a valid pair of an enabled
// user; a nopass user accepts any password.
func (u *Users) Authenticate(name, pass string) bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	usr := u.users[name]
	if usr == nil || !usr.enabled {
		return false
	}
	if usr.nopass {
		return true
	}
	h := hashPassword(pass)
	ok := false
	for _, p := range usr.passwords {
		if subtle.ConstantTimeCompare([]byte(p), []byte(h)) == 1 {
			ok = true
		}
	}
	return ok
}

// DefaultOpen reports whether connections need no AUTH: the default user
// is enabled and has nopass.
func (u *Users) DefaultOpen() bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	d := u.users["default"]
	return d.enabled && d.nopass
}

// DefaultNoPass reports whether the default user has no password, which is
// what protected mode looks at.
func (u *Users) DefaultNoPass() bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.users["default"].nopass
}

// ConfigLines returns the users as the arguments of `user` directives
// (name first, then the rules as ACL LIST shows them), sorted by name, so
// a config rewrite can persist runtime ACL changes, e.g.
// ["default","on","nopass","~*","&*","+@all"].
func (u *Users) ConfigLines() [][]string {
	u.mu.RLock()
	defer u.mu.RUnlock()
	var out [][]string
	for _, n := range u.names() {
		out = append(out, append([]string{n}, u.users[n].rules()...))
	}
	return out
}

// SetUser applies ACL SETUSER rules to name, creating the user if needed.
// All rules are validated on a copy first: on error nothing changes. It
// returns the user before (nil if new) and after.
func (u *Users) SetUser(name string, rules []string) (before, after *User, err error) {
	if hasSpaces(name) {
		return nil, nil, ErrACLUsernameSpaces
	}
	merged, at, ok := mergeSelectorArgs(rules)
	if !ok {
		return nil, nil, fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", rules[at])
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	before = u.users[name]
	var tmp *User
	if before != nil {
		tmp = before.clone()
	} else {
		tmp = newUser(name, u.allChannels)
	}
	for _, r := range merged {
		if err := tmp.apply(r, u.allChannels); err != nil {
			return nil, nil, &ACLRuleError{Rule: r, Err: err}
		}
	}
	u.users[name] = tmp
	return before, tmp, nil
}

// DeleteUsers removes the named users and returns those that existed.
// The default user cannot be removed; asking to fails before anything is
// deleted.
func (u *Users) DeleteUsers(names []string) ([]string, error) {
	for _, n := range names {
		if n == "default" {
			return nil, errors.New("The 'default' user cannot be removed")
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, n := range names {
		if _, ok := u.users[n]; ok {
			delete(u.users, n)
			out = append(out, n)
		}
	}
	return out, nil
}

// LoadACLFile replaces every user with the aclfile's. On any error
// nothing changes and the error lists every problem, in Redis's words. A
// file without `default` gets a fresh default user (on nopass ~* &*
// +@all).
func (u *Users) LoadACLFile() error {
	if u.aclFile == "" {
		return ErrNoACLFile
	}
	data, err := os.ReadFile(u.aclFile)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("Error loading ACLs, opening file '%s': %s", u.aclFile, errorText(err))
	}
	users := map[string]*User{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		num := i + 1
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", u.aclFile, num)
			continue
		}
		name := argv[1]
		if hasSpaces(name) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", u.aclFile, num, name)
			continue
		}
		if users[name] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", name, num)
			continue
		}
		usr := newUser(name, u.allChannels)
		users[name] = usr
		rules, _, ok := mergeSelectorArgs(argv[2:])
		if !ok {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", u.aclFile, num)
		}
		syntaxErr := false
		for _, r := range rules {
			r = strings.Trim(r, "\t\r\n")
			if err := usr.apply(r, u.allChannels); err != nil {
				if errors.Is(err, ErrACLUnknownCommand) {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", u.aclFile, num, r, err)
				} else if !syntaxErr {
					fmt.Fprintf(&errs, "%s:%d: %s. ", u.aclFile, num, err)
					syntaxErr = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return errors.New(errs.String())
	}
	if users["default"] == nil {
		users["default"] = newDefaultUser()
	}
	u.mu.Lock()
	u.users = users
	u.mu.Unlock()
	return nil
}

// errorText is strerror's wording for the common file errors.
func errorText(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, os.ErrPermission):
		return "Permission denied"
	}
	return err.Error()
}

// SaveACLFile writes every user to the aclfile (through a temporary file
// renamed over it), one `user <name> <rules>` line each.
func (u *Users) SaveACLFile() error {
	if u.aclFile == "" {
		return ErrNoACLFile
	}
	var sb strings.Builder
	for _, l := range u.ConfigLines() {
		sb.WriteString("user " + strings.Join(l, " ") + "\n")
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", u.aclFile, os.Getpid(), time.Now().UnixMilli())
	if err := os.WriteFile(tmp, []byte(sb.String()), 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing ACL file for ACL SAVE: %w", err)
	}
	if err := os.Rename(tmp, u.aclFile); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("renaming ACL file for ACL SAVE: %w", err)
	}
	return nil
}

// addLog records a denial in the ACL log: an entry matching one of the
// ten newest (same reason, object, user, within a minute) is bumped and
// moved to the front instead.
func (u *Users) addLog(reason aclResult, object, username, cinfo string, now time.Time) {
	u.logMu.Lock()
	defer u.logMu.Unlock()
	for i, e := range u.log {
		if i >= 10 {
			break
		}
		delta := e.ctime.Sub(now)
		if delta < 0 {
			delta = -delta
		}
		if e.reason == reason && e.object == object && e.username == username && delta <= time.Minute {
			e.count++
			e.ctime, e.cinfo = now, cinfo
			copy(u.log[1:i+1], u.log[:i])
			u.log[0] = e
			return
		}
	}
	u.log = append([]*aclLogEntry{{count: 1, reason: reason, object: object, username: username, ctime: now, cinfo: cinfo}}, u.log...)
	if len(u.log) > u.logMaxLen {
		u.log = u.log[:u.logMaxLen]
	}
}

// logEntries returns copies of up to n newest ACL log entries.
func (u *Users) logEntries(n int) []aclLogEntry {
	u.logMu.Lock()
	defer u.logMu.Unlock()
	if n > len(u.log) {
		n = len(u.log)
	}
	out := make([]aclLogEntry, n)
	for i := range out {
		out[i] = *u.log[i]
	}
	return out
}

func (u *Users) resetLog() {
	u.logMu.Lock()
	u.log = nil
	u.logMu.Unlock()
}
