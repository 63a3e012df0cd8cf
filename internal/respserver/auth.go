package respserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"
	"sync"
)

// User is an account on the Sentinel's own port. Passwords are kept as
// SHA-256 digests, as Redis keeps them.
type User struct {
	Name      string
	Enabled   bool
	NoPass    bool
	passwords map[[32]byte]bool
}

// Users is the set of accounts that may connect. It always has `default`.
type Users struct {
	mu    sync.RWMutex
	users map[string]*User
}

// NewUsers builds the account set from `requirepass` and the `user` lines
// of the config. The default user is `on nopass` unless requirepass or a
// `user default` line says otherwise.
func NewUsers(requirepass string, lines [][]string) (*Users, error) {
	u := &Users{users: map[string]*User{}}
	def := &User{Name: "default", Enabled: true, NoPass: true, passwords: map[[32]byte]bool{}}
	u.users["default"] = def
	for _, args := range lines {
		if len(args) == 0 {
			continue
		}
		usr, ok := u.users[args[0]]
		if !ok {
			usr = &User{Name: args[0], passwords: map[[32]byte]bool{}}
			u.users[args[0]] = usr
		}
		for _, rule := range args[1:] {
			if err := usr.apply(rule); err != nil {
				return nil, fmt.Errorf("user %s: %w", args[0], err)
			}
		}
	}
	if requirepass != "" {
		def.NoPass = false
		def.passwords = map[[32]byte]bool{sha256.Sum256([]byte(requirepass)): true}
	}
	return u, nil
}

// apply applies one ACL rule of the authentication kind; permission rules
// (`~*`, `+@all`, ...) are accepted and do not restrict anything yet.
func (usr *User) apply(rule string) error {
	switch {
	case strings.EqualFold(rule, "on"):
		usr.Enabled = true
	case strings.EqualFold(rule, "off"):
		usr.Enabled = false
	case strings.EqualFold(rule, "nopass"):
		usr.NoPass = true
		usr.passwords = map[[32]byte]bool{}
	case strings.EqualFold(rule, "resetpass"):
		usr.NoPass = false
		usr.passwords = map[[32]byte]bool{}
	case strings.HasPrefix(rule, ">"):
		usr.NoPass = false
		usr.passwords[sha256.Sum256([]byte(rule[1:]))] = true
	case strings.HasPrefix(rule, "<"):
		delete(usr.passwords, sha256.Sum256([]byte(rule[1:])))
	case strings.HasPrefix(rule, "#") && len(rule) == 65:
		var d [32]byte
		if _, err := fmt.Sscanf(rule[1:], "%x", &d); err != nil {
			return fmt.Errorf("bad password hash %q", rule)
		}
		usr.NoPass = false
		usr.passwords[d] = true
	}
	return nil
}

// Authenticate reports whether name/pass is a valid pair of an enabled user.
func (u *Users) Authenticate(name, pass string) bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	usr, ok := u.users[name]
	if !ok || !usr.Enabled {
		return false
	}
	if usr.NoPass {
		return true
	}
	d := sha256.Sum256([]byte(pass))
	for p := range usr.passwords {
		if subtle.ConstantTimeCompare(p[:], d[:]) == 1 {
			return true
		}
	}
	return false
}

// DefaultOpen reports whether a new connection is authenticated as
// `default` without AUTH: the default user is enabled and has nopass.
func (u *Users) DefaultOpen() bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	d := u.users["default"]
	return d.Enabled && d.NoPass
}

// DefaultNoPass reports whether the default user has no password, which is
// what protected mode looks at.
func (u *Users) DefaultNoPass() bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.users["default"].NoPass
}
