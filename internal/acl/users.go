package acl

import (
	"crypto/subtle"
	"fmt"
	"sort"
	"sync"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// Users is the ACL state of the Sentinel's port: the users (always with
// `default`), the optional aclfile and the ACL log.
type Users struct {
	mu          sync.RWMutex
	users       map[string]*user
	file        string
	allChannels bool
	// surface is Options.Surface.
	surface commands.Surface

	logMu     sync.Mutex
	log       []*LogEntry // newest first
	logMaxLen int
}

// Options configures Load.
type Options struct {
	// Requirepass is the default user's password (`requirepass`).
	Requirepass string
	// Lines are the arguments of the config's `user` directives.
	Lines [][]string
	// File is the `aclfile` path; users are then loaded from it, and
	// ACL LOAD / ACL SAVE work on it.
	File string
	// AllChannels is `acl-pubsub-default allchannels`; Redis 7.0's
	// default is resetchannels.
	AllChannels bool
	// LogMaxLen is `acllog-max-len`; 0 means Redis's 128.
	LogMaxLen int
	// Surface is the command surface (`sentinel command-surface`) whose
	// listed commands rules may name, as the Redis release it stands for
	// does: `+client|setinfo` is refused on Surface70, as by Redis 7.0,
	// and taken from Surface72 on.
	Surface commands.Surface
}

// New builds the users from `requirepass` and the `user` lines of
// the config, as Load does without an aclfile.
func New(requirepass string, lines [][]string) (*Users, error) {
	return Load(Options{Requirepass: requirepass, Lines: lines})
}

// newDefaultUser is `default` as Redis creates it: on nopass ~* &* +@all.
func newDefaultUser(sf commands.Surface) *user {
	d := newUser("default", false, sf)
	d.enabled, d.nopass = true, true
	r := d.selectors[0]
	r.setAll(true)
	r.allKeys, r.allChannels = true, true
	return d
}

// Load builds the users as Redis does at start-up: the default user,
// requirepass applied to it, then the `user` lines (a `user default` line
// resets and redefines it) or else the aclfile. Any bad rule fails.
func Load(opts Options) (*Users, error) {
	u := &Users{users: map[string]*user{}, file: opts.File, allChannels: opts.AllChannels, logMaxLen: opts.LogMaxLen, surface: opts.Surface}
	if u.logMaxLen <= 0 {
		u.logMaxLen = defaultLogMaxLen
	}
	def := newDefaultUser(u.surface)
	if opts.Requirepass != "" {
		def.nopass = false
		def.passwords = []string{hashPassword(opts.Requirepass)}
	}
	u.users["default"] = def
	if opts.File != "" && len(opts.Lines) > 0 {
		return nil, ErrFileAndUsers
	}
	seen := map[string]bool{}
	for _, line := range opts.Lines {
		if len(line) == 0 {
			continue
		}
		name := line[0]
		if seen[name] {
			return nil, fmt.Errorf("user %s: %w", name, ErrDuplicateUser)
		}
		seen[name] = true
		if hasSpaces(name) {
			return nil, fmt.Errorf("user %q: %w", name, ErrUsernameSpaces)
		}
		rules, at, ok := mergeSelectorArgs(line[1:])
		if !ok {
			return nil, fmt.Errorf("user %s: unmatched parenthesis in acl selector starting at '%s': %w", name, line[1+at], ErrSyntax)
		}
		usr, ok := u.users[name]
		if ok {
			if err := usr.apply("reset", u.allChannels); err != nil {
				return nil, err
			}
		} else {
			usr = newUser(name, u.allChannels, u.surface)
			u.users[name] = usr
		}
		for _, r := range rules {
			if err := usr.apply(r, u.allChannels); err != nil {
				return nil, fmt.Errorf("error loading ACL rule '%s' for the user named '%s': %w", r, name, err)
			}
		}
	}
	if opts.File != "" {
		if err := u.LoadFile(); err != nil {
			return nil, fmt.Errorf("aborting because of ACL errors: %w", err)
		}
	}
	return u, nil
}

// File returns the aclfile path, "" when users live in the config.
func (u *Users) File() string { return u.file }

// HasFile reports whether users live in an aclfile (ACL LOAD and ACL
// SAVE work, and the config rewrite must not write `user` lines).
func (u *Users) HasFile() bool { return u.file != "" }

// Exists reports whether there is a user called name.
func (u *Users) Exists(name string) bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.users[name] != nil
}

// Names returns the user names in Redis's (byte) order (ACL USERS).
func (u *Users) Names() []string {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.names()
}

// names is Names for callers holding u.mu.
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
// All rules are validated on a copy first: on error nothing changes. When
// an existing user lost channel permissions it returns what the user may
// still use, so that the caller can disconnect the user's subscribers the
// change no longer allows (nil otherwise).
func (u *Users) SetUser(name string, rules []string) (*ChannelLoss, error) {
	if hasSpaces(name) {
		return nil, ErrUsernameSpaces
	}
	merged, at, ok := mergeSelectorArgs(rules)
	if !ok {
		return nil, fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", rules[at])
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	before := u.users[name]
	var tmp *user
	if before != nil {
		tmp = before.clone()
	} else {
		tmp = newUser(name, u.allChannels, u.surface)
	}
	for _, r := range merged {
		if err := tmp.apply(r, u.allChannels); err != nil {
			return nil, &RuleError{Rule: r, Err: err}
		}
	}
	u.users[name] = tmp
	if before == nil {
		return nil, nil
	}
	return channelsRevoked(before, tmp), nil
}

// Describe returns the user called name as ACL LIST shows it after
// `user <name> `, and whether it exists.
func (u *Users) Describe(name string) (string, bool) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	usr := u.users[name]
	if usr == nil {
		return "", false
	}
	return usr.describe(), true
}

// UserInfo is a user as ACL GETUSER shows it.
type UserInfo struct {
	Flags []string
	// Passwords are the lower-case hex SHA-256 digests.
	Passwords []string
	// Selectors are the root selector, then the others.
	Selectors []SelectorInfo
}

// SelectorInfo is one selector as ACL GETUSER shows it.
type SelectorInfo struct {
	Commands, Keys, Channels string
}

// Info returns the user called name as ACL GETUSER shows it, and whether
// it exists.
func (u *Users) Info(name string) (UserInfo, bool) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	usr := u.users[name]
	if usr == nil {
		return UserInfo{}, false
	}
	info := UserInfo{Flags: usr.flagNames(), Passwords: append([]string(nil), usr.passwords...)}
	for _, s := range usr.selectors {
		info.Selectors = append(info.Selectors, s.info())
	}
	return info, true
}

// Check is the permission check of a command line (args, name first)
// that runs cmd, for the user called name: Allowed, or why not and the
// position of the argument concerned. An unknown user may run nothing.
func (u *Users) Check(name string, cmd *commands.Spec, args []string) (Result, int) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	usr := u.users[name]
	if usr == nil {
		return DeniedCommand, 0
	}
	return usr.check(cmd.Canonical(), args)
}

// DeleteUsers removes the named users and returns those that existed.
// The default user cannot be removed; asking to fails before anything is
// deleted.
func (u *Users) DeleteUsers(names []string) ([]string, error) {
	for _, n := range names {
		if n == "default" {
			return nil, ErrDefaultUser
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
