//go:build !histfaults

package readroute

// faultReadLag is false outside the histfaults test build
// (fault_histfaults.go), so the compiler removes the fault's branch.
const faultReadLag = false
