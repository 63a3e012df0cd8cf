// Package acl is the ACL engine of the Sentinel's port, as Redis 7.0 has
// it: users with passwords and selectors (command bits over the command
// catalogue, first arguments, key and channel patterns), the rules of ACL
// SETUSER and `user` directives, permission checks, the aclfile (loaded
// all or nothing, saved atomically) and the ACL log. It knows nothing of
// connections: the RESP server asks it questions and renders the answers.
package acl

import (
	"errors"
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// catalogue is the command set rules and checks work on.
var catalogue = commands.Sentinel

// The errors of ACL rules; their texts are Redis's, which ACL SETUSER
// shows after "Error in ACL SETUSER modifier '<rule>': ".
var (
	ErrUnknownCommand  = errors.New("Unknown command or category name in ACL")
	ErrSyntax          = errors.New("Syntax error")
	ErrKeyAfterAll     = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	ErrChannelAfterAll = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	ErrNoSuchPassword  = errors.New("The password you are trying to remove from the user does not exist")
	ErrBadHash         = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	ErrDuplicateUser   = errors.New("Duplicate user found. A user can only be defined once in config files")
	ErrFirstArgOfSub   = errors.New("Allowing first-arg of a subcommand is not supported")
	// ErrSelectorParen refuses a rule inside a selector that ends in
	// ')' (`(&))`): Redis 7.0 takes it, and then ACL SAVE writes an
	// aclfile line that ACL LOAD, and the next start, refuse, since the
	// loader ends a selector at the first word ending in ')'. go-sentinel
	// refuses it up front (docs/compatibility.md).
	ErrSelectorParen = errors.New("A rule inside a selector cannot end in ')': an aclfile could not hold it (write the pattern without the closing parenthesis, or with [)])")
	// ErrUsernameSpaces rejects user names with spaces or NULs.
	ErrUsernameSpaces = errors.New("Usernames can't contain spaces or null characters")
	// ErrFileAndUsers is Redis's refusal to start with both `user`
	// lines and an aclfile.
	ErrFileAndUsers = errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
	// ErrNoFile is returned by LoadFile and SaveFile without an
	// aclfile.
	ErrNoFile = errors.New("This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
)

// RuleError is a rule that could not be applied to a user.
type RuleError struct {
	Rule string
	Err  error
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("Error in ACL SETUSER modifier '%s': %s", e.Rule, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// ErrDefaultUser is ACL DELUSER's refusal to remove the default user.
var ErrDefaultUser = errors.New("The 'default' user cannot be removed")
