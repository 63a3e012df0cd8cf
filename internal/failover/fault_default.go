//go:build !histfaults

package failover

// faultLateJoin is false outside the histfaults test build
// (fault_histfaults.go), so the compiler removes the fault's branch.
const faultLateJoin = false
