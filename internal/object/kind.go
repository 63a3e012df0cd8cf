// Package object is the vocabulary of the objects a Sentinel keeps about
// the instances it knows: their kind (a master, a replica or another
// Sentinel) and the bits of their state (Flag), as Redis's SRI_* flags,
// with the names the replies give them. It is a pure leaf: the core sets
// these values and the View (internal/view) shows them.
package object

import "github.com/go-sentinel/go-sentinel/internal/inforeply"

// Kind is what an instance object stands for.
type Kind int

// The kinds of objects.
const (
	Master Kind = iota
	Replica
	Sentinel
)

// kindRoles are the role names of the kinds, as events, SENTINEL replies
// and INFO's role field spell them.
var kindRoles = [...]string{Master: inforeply.RoleMaster, Replica: inforeply.RoleSlave, Sentinel: "sentinel"}

// String returns the kind's role name: "master", "slave" or "sentinel".
func (k Kind) String() string { return kindRoles[k] }

// ShownRole is how replies and events name a role an instance reported
// in INFO: "master", or "slave" for anything else (as Redis shows it).
func ShownRole(reported string) string {
	if reported == inforeply.RoleMaster {
		return inforeply.RoleMaster
	}
	return inforeply.RoleSlave
}

// Disconnected reports whether an object of kind k lacks a live
// connection it needs, given which of its connections are up: the
// command one, or for masters and replicas the pub/sub one.
func Disconnected(k Kind, ccUp, pcUp bool) bool {
	return !ccUp || (k != Sentinel && !pcUp)
}
