//go:build histfaults

package failover

import (
	"os"
	"slices"
	"strings"
)

// faultLateJoin is the deliberate fault of the histfaults test build,
// never shipped: true when the daemon was started with GS_HISTFAULT
// naming latejoin (one of a comma-separated list). Then Convert never
// takes its first-contact branches (confirmed, confirming), so a
// returning old master is converted only after Redis's wait and takes
// writes until then; an external history checker must catch them. It is
// the one place this package reads its environment, once at init, and
// only in this build.
var faultLateJoin = slices.Contains(strings.Split(os.Getenv("GS_HISTFAULT"), ","), "latejoin")
