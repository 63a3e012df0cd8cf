package process

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(ok, []byte("port 26379\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.conf")
	notDir := filepath.Join(ok, "child.conf")

	if err := CheckWritable(ok); err != nil {
		t.Errorf("writable file: %v", err)
	}
	if err := CheckWritable(""); !errors.Is(err, ErrNoConfigFile) ||
		err.Error() != "Sentinel needs config file on disk to save state. Exiting..." {
		t.Errorf("empty path: %v", err)
	}

	tests := []struct {
		path  string
		errno syscall.Errno
		text  string
	}{
		{missing, syscall.ENOENT, "No such file or directory"},
		{notDir, syscall.ENOTDIR, "Not a directory"},
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro.conf")
		if err := os.WriteFile(ro, nil, 0o444); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			path  string
			errno syscall.Errno
			text  string
		}{ro, syscall.EACCES, "Permission denied"})
	}
	for _, tt := range tests {
		err := CheckWritable(tt.path)
		var nw *NotWritableError
		if !errors.As(err, &nw) || !errors.Is(err, tt.errno) {
			t.Errorf("CheckWritable(%q) = %v, want NotWritableError(%v)", tt.path, err, tt.errno)
			continue
		}
		want := fmt.Sprintf("Sentinel config file %s is not writable: %s. Exiting...", tt.path, tt.text)
		if err.Error() != want {
			t.Errorf("text = %q, want %q", err.Error(), want)
		}
	}
	if err := CheckWritable(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file error %v does not match fs.ErrNotExist", err)
	}
}

func TestStrerror(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{syscall.EACCES, "Permission denied"},
		{syscall.ENOENT, "No such file or directory"},
		{syscall.EROFS, "Read-only file system"},
		{syscall.ELOOP, "Too many levels of symbolic links"},
		{syscall.ENAMETOOLONG, "File name too long"},
		{syscall.EIO, "Input/output error"},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, "Permission denied"},
		{fmt.Errorf("wrapped: %w", syscall.ENOSPC), "No space left on device"},
		{errors.New("plain"), "plain"},
		{nil, "Success"},
	}
	for _, tt := range tests {
		if got := Strerror(tt.err); got != tt.want {
			t.Errorf("Strerror(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
