// Package election will hold leader election for failovers: epochs, the
// votes cast per epoch and the tally rule (a majority of the known
// Sentinels and at least the quorum). It is a leaf the core uses; nothing
// in it does I/O.
package election
