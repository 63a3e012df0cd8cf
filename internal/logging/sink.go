package logging

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ErrClosed is returned by writes and Reopen after Logger.Close.
var ErrClosed = errors.New("logging: logger is closed")

// logFileMode is the permission a new log file is created with, as Redis's
// fopen(…, "a") under the usual 022 umask.
const logFileMode = 0o644

// sink is the zapcore.WriteSyncer every line goes to. One Write call is one
// complete line and writes are serialised, so lines never interleave. A sink
// that owns a file writes to it unbuffered with O_APPEND, so an external
// truncation (logrotate copytruncate) makes the next line start at offset 0.
type sink struct {
	mu     sync.Mutex
	w      io.Writer // current destination
	f      *os.File  // non-nil when the sink owns a log file
	path   string    // log file path; "" for stdout or a caller's writer
	closed bool
}

// openLogFile opens path for appending, creating it if needed.
func openLogFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, logFileMode)
	if err != nil {
		return nil, fmt.Errorf("logging: open log file: %w", err)
	}
	return f, nil
}

// newSink returns a sink for w if non-nil, else for the file at path, else
// for standard output.
func newSink(path string, w io.Writer) (*sink, error) {
	switch {
	case w != nil:
		return &sink{w: w}, nil
	case path == "":
		return &sink{w: os.Stdout}, nil
	}
	f, err := openLogFile(path)
	if err != nil {
		return nil, err
	}
	return &sink{w: f, f: f, path: path}, nil
}

// Write writes one line.
func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	return s.w.Write(p)
}

// Sync fsyncs an owned log file; for stdout and a caller's writer it does
// nothing, since every line is already handed to the kernel unbuffered.
func (s *sink) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.f == nil {
		return nil
	}
	return s.f.Sync()
}

// Reopen opens the log file path again and switches to it, then closes the
// previous descriptor. If the open fails the old descriptor stays in use.
// It does nothing for stdout or a caller's writer.
func (s *sink) Reopen() error {
	s.mu.Lock()
	path, closed := s.path, s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if path == "" {
		return nil
	}
	f, err := openLogFile(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = f.Close()
		return ErrClosed
	}
	old := s.f
	s.f, s.w = f, f
	s.mu.Unlock()
	if err := old.Close(); err != nil {
		return fmt.Errorf("logging: close previous log file: %w", err)
	}
	return nil
}

// Close closes an owned log file; later writes fail with ErrClosed. Stdout
// and a caller's writer are never closed.
func (s *sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.f == nil {
		return nil
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("logging: close log file: %w", err)
	}
	return nil
}
