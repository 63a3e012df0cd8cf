package process

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// The values of the `supervised` directive, and the modes SupervisionMode
// resolves them to.
const (
	SupervisedNo      = "no"
	SupervisedUpstart = "upstart"
	SupervisedSystemd = "systemd"
	SupervisedAuto    = "auto"
)

// EnvUpstartJob is the variable upstart sets for the jobs it supervises.
const EnvUpstartJob = "UPSTART_JOB"

// SupervisionMode resolves a `supervised` directive (case-insensitive) to
// SupervisedNo, SupervisedUpstart or SupervisedSystemd. "auto" picks upstart
// when UPSTART_JOB is set, else systemd when NOTIFY_SOCKET is set, else no —
// Redis checks upstart first. Explicit modes are returned as given, even when
// their variable is missing (Redis then logs a warning and carries on).
// Unknown directives resolve to SupervisedNo. env is os.Getenv in production.
func SupervisionMode(directive string, env func(string) string) string {
	switch strings.ToLower(directive) {
	case SupervisedUpstart:
		return SupervisedUpstart
	case SupervisedSystemd:
		return SupervisedSystemd
	case SupervisedAuto:
		if env(EnvUpstartJob) != "" {
			return SupervisedUpstart
		}
		if env(EnvNotifySocket) != "" {
			return SupervisedSystemd
		}
	}
	return SupervisedNo
}

// UpstartReady signals readiness the upstart way ("expect stop"): the
// process stops itself with SIGSTOP, and once upstart has continued it,
// removes UPSTART_JOB from the environment.
func UpstartReady() error {
	if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
		return fmt.Errorf("process: upstart ready: %w", err)
	}
	return os.Unsetenv(EnvUpstartJob)
}
