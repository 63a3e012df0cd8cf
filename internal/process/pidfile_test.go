package process

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWritePidfile(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	path := filepath.Join(t.TempDir(), "redis.pid")

	if err := WritePidfile(path, 123456); err != nil {
		t.Fatal(err)
	}
	if err := WritePidfile(path, 42); err != nil { // truncates
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "42\n" {
		t.Errorf("content = %q, want %q", b, "42\n")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
}

func TestWritePidfileError(t *testing.T) {
	err := WritePidfile(filepath.Join(t.TempDir(), "no", "such", "dir.pid"), 1)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist", err)
	}
}

func TestRemovePidfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "redis.pid")
	if err := WritePidfile(path, 1); err != nil {
		t.Fatal(err)
	}
	if err := RemovePidfile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("pidfile still there: %v", err)
	}
	if err := RemovePidfile(path); err != nil {
		t.Fatalf("removing a missing pidfile: %v", err)
	}
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RemovePidfile(full); err == nil {
		t.Fatal("removing a non-empty directory succeeded")
	}
}
