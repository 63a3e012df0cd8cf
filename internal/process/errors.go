package process

import "errors"

// ErrEmptyArgv is returned by Daemonize for an empty argument vector.
var ErrEmptyArgv = errors.New("empty argument vector")

// ErrBadNotifySocket is returned when NOTIFY_SOCKET is neither an absolute
// path nor an abstract socket name starting with '@'.
var ErrBadNotifySocket = errors.New("NOTIFY_SOCKET is not an absolute path or abstract socket")

// ErrNoConfigFile is the refusal to start without a config file; its text is
// Redis's log line for that case.
var ErrNoConfigFile = errors.New("Sentinel needs config file on disk to save state. Exiting...")
