package process

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// DefaultPidfile is the pidfile Redis writes when daemonized without a
// `pidfile` directive.
const DefaultPidfile = "/var/run/redis.pid"

// WritePidfile writes "<pid>\n" to path, creating it with mode 0644 (before
// umask) or truncating it. Redis treats this as best effort; the caller may
// ignore the error.
func WritePidfile(path string, pid int) error {
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("process: write pidfile: %w", err)
	}
	return nil
}

// RemovePidfile removes path; a file that is already gone is not an error.
func RemovePidfile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("process: remove pidfile: %w", err)
	}
	return nil
}
