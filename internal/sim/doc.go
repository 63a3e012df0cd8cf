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
// A cut can also be one way, per pair of endpoints and per direction of
// a connection: CutOneWay(A, B) is a firewall on B dropping what A sends
// to B's listening port, so the connections A opens to B stall or are
// refused while those B opens to A carry everything (A's PINGs, hellos
// and vote requests no longer reach B; B's reach A and are answered).
// A stateless drop of everything A sends to B is, for TCP, a partition
// after one retransmission timeout (the sender of the other direction
// gets no acknowledgements); Block is that cut at the packet level alone.
// The chaos campaign's one-way shapes (fleets 2 and 3; alone with `make sim-oneway`)
// draw one-way cuts, and re-cut the network, one way or both, in bursts
// after a Sentinel emits +try-failover, while the election and the
// failover run; the other shapes draw what they always drew.
//
// The modelled servers also carry data and coordinated failover, after
// Redis 7.0: a master logs the writes (INCR, SET, MULTI/EXEC) it applies,
// which advances its replication offset, and its replicas apply that log
// ReplLag behind while their link is up (a replica repointed to a master
// whose log does not extend its own resyncs to exactly that log); writes
// to a replica are refused -READONLY. CLIENT PAUSE <ms> WRITE|ALL holds
// the clients' writes (PUBLISH included) or all their commands, with what
// each client sent after them, until CLIENT UNPAUSE or the deadline.
// FAILOVER TO host port [TIMEOUT ms] [FORCE] pauses the writes, waits for
// the target to catch up, hands the role over with PSYNC FAILOVER (which a
// server with RejectPSync refuses, aborting) and reports its progress in
// INFO's master_failover_state; FAILOVER ABORT ends it. Clients (AddClient)
// send commands to servers as applications do, and Writers (AddWriter)
// write continuously, to one server or to the master a Sentinel names,
// recording which server acknowledged each write, so that a scenario can
// tell which acknowledged writes the master lost (LostWrites,
// CheckNoLostWrites). None of this runs until a scenario uses it: a
// cluster that never writes keeps the offsets its scenario set.
//
// After every step the Cluster checks invariants (epochs never go back, one
// vote per node, master and epoch, one elected leader per epoch, one master
// address per config epoch, link pending counts match the commands in
// flight, every Send gets exactly one reply or its link closes, but for
// the commands a paused server holds) and fails the test with the seed and
// the trace when one breaks.
package sim
