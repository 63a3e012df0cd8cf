package sim

// session is the server side of one client connection, a Sentinel's
// command link: the transaction being queued.
type session struct {
	multi  bool
	multiQ [][]string
	// dirty is set when a command was refused while queuing (a write on
	// a read-only replica): EXEC then aborts, as Redis's flagTransaction.
	dirty bool
}
