package monitor

import (
	"errors"
	"fmt"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// ErrUnknownAction is returned by Apply for an action type it has no case
// for. TestApplyHandlesEveryAction makes it unreachable: every type of this
// package with an isAction method must have its case and its Effects method.
var ErrUnknownAction = errors.New("unknown core action")

// ErrStopped is what the owner of a core's loop answers once the loop has
// ended: no input reaches the core any more.
var ErrStopped = errors.New("sentinel loop stopped")

// Outcome is what carrying out a Ready produced that the caller of the
// step before it may need: whether the config it asked to persist was
// saved.
type Outcome struct {
	// PersistErr is the error of the config rewrite, if one was asked
	// for and failed.
	PersistErr error
}

// Effects carries out what a core produced: the daemon (package node) and
// the simulator (package sim) each implement it, and Apply is the one
// function that hands a Ready to it, so both run the same dispatch. Every
// action type has its own method, so a new action cannot be added without
// every implementation handling it.
type Effects interface {
	// Log writes one log line.
	Log(event.LogLine)
	// Event reports one event; the daemon publishes those whose
	// Published() is true to pub/sub subscribers.
	Event(event.Event)
	// Persist rewrites the config file from the core's Snapshot().
	Persist(msg.PersistConfig) error
	// OpenLink, CloseLink and Send carry out the link actions.
	OpenLink(msg.OpenLink)
	CloseLink(msg.CloseLink)
	Send(msg.Send)
	// StartScript and KillScript carry out the script actions.
	StartScript(msg.StartScript)
	KillScript(msg.KillScript)
	// Exit stops the process with the code (SENTINEL SIMULATE-FAILURE). It
	// is the last thing Apply does with the Ready it was in.
	Exit(msg.Exit)
}

// Apply carries out r through fx, in the order Redis does things:
//
//  1. the config is persisted first if r asks for it, so that no event is
//     published about state that is not on disk yet (Redis flushes the
//     config before it emits +new-epoch, +vote-for-leader,
//     +promoted-slave, +switch-master);
//  2. then the log lines and events, each in order;
//  3. then the other actions, in order, up to and including an Exit:
//     nothing after an Exit is carried out (the core produces nothing
//     after it anyway).
//
// It returns the Outcome, with the error of Persist, if any (the rest is
// carried out regardless, as Redis goes on after a failed config
// rewrite), and ErrUnknownAction for an action type with no case here.
func Apply(r msg.Ready, fx Effects) (out Outcome, err error) {
	for _, a := range r.Actions {
		if p, ok := a.(msg.PersistConfig); ok {
			out.PersistErr = fx.Persist(p)
			break // a Ready holds at most one PersistConfig
		}
	}
	for _, l := range r.Logs {
		fx.Log(l)
	}
	for _, l := range r.Logs {
		if l.Event != nil {
			fx.Event(*l.Event)
		}
	}
	for _, a := range r.Actions {
		switch a := a.(type) {
		case msg.PersistConfig:
			// carried out first
		case msg.OpenLink:
			fx.OpenLink(a)
		case msg.CloseLink:
			fx.CloseLink(a)
		case msg.Send:
			fx.Send(a)
		case msg.StartScript:
			fx.StartScript(a)
		case msg.KillScript:
			fx.KillScript(a)
		case msg.Exit:
			fx.Exit(a)
			return out, nil
		default:
			return out, fmt.Errorf("%w: %T", ErrUnknownAction, a)
		}
	}
	return out, nil
}
