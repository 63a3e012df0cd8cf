//go:build !histfaults

package fence

// faultNoFence is false outside the histfaults test build
// (fault_histfaults.go), so the compiler removes the fault's branches.
const faultNoFence = false
