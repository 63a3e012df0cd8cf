//go:build histfaults

package fence

import (
	"os"
	"slices"
	"strings"
)

// faultNoFence is the deliberate fault of the histfaults test build,
// never shipped: true when the daemon was started with GS_HISTFAULT
// naming nofence (one of a comma-separated list). Then the proxy ignores
// the lease (Reason and ForwardUntil), so it keeps forwarding to a master
// cut off from the other Sentinels; an external history checker must
// catch the writes that master acknowledges. It is the one place this
// package reads its environment, once at init, and only in this build.
var faultNoFence = slices.Contains(strings.Split(os.Getenv("GS_HISTFAULT"), ","), "nofence")
