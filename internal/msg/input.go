package msg

// Input is something that happened outside the core: a reply from an
// instance, a hello, a script's exit, a command from a client (the
// command inputs are in commands.go). Step applies one.
type Input interface{ isInput() }

// Answer is what a command input answers its caller: ResetCount for
// Reset, SimulateFailureHelp for SimulateFailure, gossip.AskReply for
// IsMasterDownByAddr, and nil for every other input (the others answer
// only with their error).
type Answer any
