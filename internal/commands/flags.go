package commands

import "strings"

// Flag is one of Redis's command flags: the ones COMMAND INFO shows, plus
// the hidden ones the server itself looks at.
type Flag uint32

// The command flags Sentinel's commands carry, in Redis's order.
const (
	FlagWrite Flag = 1 << iota
	FlagReadonly
	FlagDenyOOM
	FlagAdmin
	FlagPubsub
	FlagNoscript
	FlagBlocking
	FlagLoading
	FlagStale
	FlagFast
	FlagNoAuth
	FlagNoMulti
	FlagAllowBusy
	// FlagMayReplicate commands are held by CLIENT PAUSE WRITE. Hidden.
	FlagMayReplicate
	// FlagSentinel and FlagOnlySentinel decide registration in Sentinel
	// mode. Hidden.
	FlagSentinel
	FlagOnlySentinel
)

// flagNames are the visible flags in the order Redis prints them.
var flagNames = []struct {
	flag Flag
	name string
}{
	{FlagWrite, "write"}, {FlagReadonly, "readonly"}, {FlagDenyOOM, "denyoom"},
	{FlagAdmin, "admin"}, {FlagPubsub, "pubsub"}, {FlagNoscript, "noscript"},
	{FlagBlocking, "blocking"}, {FlagLoading, "loading"}, {FlagStale, "stale"},
	{FlagFast, "fast"}, {FlagNoAuth, "no_auth"}, {FlagNoMulti, "no_multi"},
	{FlagAllowBusy, "allow_busy"},
}

// Names returns the visible flags of f as COMMAND INFO lists them.
func (f Flag) Names() []string {
	var out []string
	for _, n := range flagNames {
		if f&n.flag != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// Category is a set of ACL categories; bit i is CategoryNames[i].
type Category uint32

// The ACL categories, in Redis's order (ACL CAT, COMMAND INFO).
const (
	CatKeyspace Category = 1 << iota
	CatRead
	CatWrite
	CatSet
	CatSortedset
	CatList
	CatHash
	CatString
	CatBitmap
	CatHyperloglog
	CatGeo
	CatStream
	CatPubsub
	CatAdmin
	CatFast
	CatSlow
	CatBlocking
	CatDangerous
	CatConnection
	CatTransaction
	CatScripting
)

// CategoryNames are the category names; index i names bit 1<<i.
var CategoryNames = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// CategoryByName returns the category called name (case-insensitive), or
// 0 for an unknown name.
func CategoryByName(name string) Category {
	for i, n := range CategoryNames {
		if strings.EqualFold(n, name) {
			return 1 << i
		}
	}
	return 0
}

// Names returns the category names in c, in Redis's order.
func (c Category) Names() []string {
	var out []string
	for i, n := range CategoryNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// implicitCategories are the categories Redis derives from the flags: the
// write, read, admin (+dangerous), pubsub, fast and blocking ones, and
// slow for whatever is not fast.
func implicitCategories(f Flag, explicit Category) Category {
	var c Category
	if f&FlagWrite != 0 {
		c |= CatWrite
	}
	if f&FlagReadonly != 0 && explicit&CatScripting == 0 {
		c |= CatRead
	}
	if f&FlagAdmin != 0 {
		c |= CatAdmin | CatDangerous
	}
	if f&FlagPubsub != 0 {
		c |= CatPubsub
	}
	if f&FlagFast != 0 {
		c |= CatFast
	}
	if f&FlagBlocking != 0 {
		c |= CatBlocking
	}
	if (explicit|c)&CatFast == 0 {
		c |= CatSlow
	}
	return c
}

// DocFlag is a documentation flag (COMMAND DOCS doc_flags).
type DocFlag uint8

// The documentation flags, in Redis's order.
const (
	DocDeprecated DocFlag = 1 << iota
	DocSyscmd
)

// Names returns the documentation flags of f as COMMAND DOCS lists them.
func (f DocFlag) Names() []string {
	var out []string
	if f&DocDeprecated != 0 {
		out = append(out, "deprecated")
	}
	if f&DocSyscmd != 0 {
		out = append(out, "syscmd")
	}
	return out
}

// ArgFlag is an argument flag (COMMAND DOCS arguments' flags).
type ArgFlag uint8

// The argument flags, in Redis's order.
const (
	ArgOptional ArgFlag = 1 << iota
	ArgMultiple
	ArgMultipleToken
)

// Names returns the argument flags of f as COMMAND DOCS lists them.
func (f ArgFlag) Names() []string {
	var out []string
	for _, n := range []struct {
		f    ArgFlag
		name string
	}{{ArgOptional, "optional"}, {ArgMultiple, "multiple"}, {ArgMultipleToken, "multiple_token"}} {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return out
}
