package process

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// wOK is access(2)'s W_OK.
const wOK = 0x2

// NotWritableError is CheckWritable's failure: Err is the errno from
// access(2).
type NotWritableError struct {
	Path string
	Err  error
}

// Error returns Redis's log line for the case:
// "Sentinel config file <path> is not writable: <strerror>. Exiting...".
func (e *NotWritableError) Error() string {
	return fmt.Sprintf("Sentinel config file %s is not writable: %s. Exiting...", e.Path, Strerror(e.Err))
}

// Unwrap returns the errno.
func (e *NotWritableError) Unwrap() error { return e.Err }

// CheckWritable is Redis's sentinelCheckConfigFile: it fails with
// ErrNoConfigFile when path is "", and with *NotWritableError when
// access(path, W_OK) fails (using the real uid, as access(2) does). Only the
// file is checked, not its directory.
func CheckWritable(path string) error {
	if path == "" {
		return ErrNoConfigFile
	}
	if err := syscall.Access(path, wOK); err != nil {
		return &NotWritableError{Path: path, Err: err}
	}
	return nil
}

// StateNotWritableError is CheckStateWritable's failure.
type StateNotWritableError struct {
	Path string
	Err  error
}

// Error words the failure like Redis's config file check.
func (e *StateNotWritableError) Error() string {
	return fmt.Sprintf("Sentinel state-config-file %s is not writable: %s. Exiting...", e.Path, Strerror(e.Err))
}

// Unwrap returns the errno.
func (e *StateNotWritableError) Unwrap() error { return e.Err }

// CheckStateWritable checks, at start, that the state-config-file at
// path can be written: its directory, where each write makes a temporary
// file and renames it over path, and the file itself when it exists (a
// state file made read-only is refused, as a read-only config file is).
// It fails with *StateNotWritableError.
func CheckStateWritable(path string) error {
	if err := syscall.Access(filepath.Dir(path), wOK); err != nil {
		return &StateNotWritableError{Path: path, Err: err}
	}
	if err := syscall.Access(path, 0 /* F_OK */); err != nil {
		return nil
	}
	if err := syscall.Access(path, wOK); err != nil {
		return &StateNotWritableError{Path: path, Err: err}
	}
	return nil
}
