//go:build histfaults

package readroute

import (
	"os"
	"slices"
	"strings"
)

// faultReadLag is the deliberate fault of the histfaults test build,
// never shipped: true when the daemon was started with GS_HISTFAULT
// naming readlag (one of a comma-separated list). Then Exclude ignores
// proxy-replica-max-lag, so a replica whose replication is cut stays
// served while its lag grows; an external history checker must catch
// the stale reads. It is the one place this package reads its
// environment, once at init, and only in this build.
var faultReadLag = slices.Contains(strings.Split(os.Getenv("GS_HISTFAULT"), ","), "readlag")
