// Package view is the View: an immutable picture of what the read-only
// queries show (SENTINEL MASTER, MASTERS, REPLICAS, SENTINELS,
// GET-MASTER-ADDR-BY-NAME, CKQUORUM, IS-MASTER-DOWN-BY-ADDR without a
// vote, INFO's sentinel section, the proxy's routes), and the rendering
// of those replies from it. The core (internal/monitor) builds Views
// from its state (Sentinel.View) and hands them out; everything here
// reads a View and nothing else.
//
// It is a pure leaf beside the core: it imports other leaves
// (internal/object, internal/election, internal/gossip,
// internal/settings), never the core.
package view

import "github.com/go-sentinel/go-sentinel/internal/failover"

// View is an immutable picture of what the read-only queries show, as
// the core was when Sentinel.View returned it. Nothing in a View changes
// after it was returned but its links' state (LinkCell: pending
// commands, PING times, connections up), which the core updates in place
// with atomic stores: that is what changes with every command sent and
// reply received, and it is never announced, so a View shows it as it is
// now rather than being rebuilt for it (at 1,000 masters that rebuilding
// had taken half of the loop's time). Any goroutine may read a View while
// the core's owner goes on. It keeps instants, not ages: a reply that
// shows how long ago something happened ("last-ok-ping-reply",
// "info-refresh") computes it against the time the query passes, when
// the query runs, as Redis computes it when it answers.
//
// The invariant: a View reflects every Step and Tick that came before the
// call to Sentinel.View that returned it, so it is never older than any
// event those produced. An owner that publishes it before carrying out
// Ready (node.Loop does) therefore never lets a client see a state older
// than one the client has been told of: who saw +switch-master and then
// asks for the master's address gets the new one.
//
// Successive Views share what did not change: the masters are held in
// chunks, and an object, a master or a chunk that shows the same as in
// the previous View is that View's, so bringing the View up to date
// after a change allocates about what changed (ChunkWriter).
//
// Its fields, and those of the values it holds, are exported for the
// core's builder, which sets them; the queries only read them, and so
// should anyone else.
type View struct {
	// Chunks hold the masters in name order, ChunkSize to a chunk (the
	// last one is filled up to the number of masters).
	Chunks []*Chunk
	// Index is a master's position; Views with the same master names
	// share it.
	Index map[string]int
	// Resolved is the core's map of resolved hostnames when the View was
	// built (the core replaces it rather than change it), for AnswerAsk.
	Resolved map[string]string

	Globals
}

// ChunkSize is the number of masters in a chunk of View.Chunks: a
// change to one master copies its chunk and the list of chunks, not a
// pointer per master.
const ChunkSize = 32

// Chunk is one chunk of View.Chunks.
type Chunk [ChunkSize]*Master

// At returns the k-th master in name order.
func (v *View) At(k int) *Master { return v.Chunks[k/ChunkSize][k%ChunkSize] }

// Globals are the View's figures that are not about one master.
type Globals struct {
	// InTilt is TILT mode, TiltStart when it began (Unix ms), Tilts the
	// times it was entered since start.
	InTilt    bool
	TiltStart int64
	Tilts     int64
	// ScriptsRunning are the scripts running, ScriptsQueued those queued,
	// running ones included.
	ScriptsRunning int
	ScriptsQueued  int
	// SimFailure is what SENTINEL SIMULATE-FAILURE set.
	SimFailure failover.SimFailure
	// RebootFlag is Options.MasterRebootFlag.
	RebootFlag bool
	// ResolvedGen tells Views with different resolved maps apart.
	ResolvedGen int
}
