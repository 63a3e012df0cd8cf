//go:build race

package respserver

// raceEnabled is set when the tests run under the race detector, which
// multiplies the memory of every goroutine and allocation.
const raceEnabled = true
