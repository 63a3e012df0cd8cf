// Package sim is a deterministic simulator for fleets of Sentinel cores
// (package monitor) and modelled Redis servers. Everything runs in the
// caller's goroutine on a virtual clock: a Cluster owns a time-ordered queue
// of work items (node ticks, packets on simulated connections, connection
// set-ups) and a single seeded *rand.Rand from which every random choice is
// drawn (network delays, node seeds, run ids), so one seed always replays the
// same history, byte for byte in the trace.
//
// The simulated network carries each node's OpenLink, Send and CloseLink
// actions to modelled Redis servers (PING, INFO in Redis's own format,
// PUBLISH with pub/sub fan-out, the MULTI/SLAVEOF/EXEC transaction) and to
// other Sentinel nodes (PUBLISH of hellos, SENTINEL is-master-down-by-addr,
// PING). Connections behave like TCP: replies come back in order; a crashed
// process resets its connections; a partition stalls established
// connections (nothing is lost, everything waits until Heal) and refuses
// new ones.
//
// After every step the Cluster checks invariants (epochs never go back, one
// vote per node, master and epoch, one elected leader per epoch, one master
// address per config epoch, link pending counts match the commands in
// flight, every Send gets exactly one reply or its link closes) and fails
// the test with the seed and the trace when one breaks.
package sim
