package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertNoTemp fails if a temporary file of Write is left in dir.
func assertNoTemp(t *testing.T, dir, base string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base+".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	fi, serr := os.Stat(path)
	if err != nil || serr != nil || string(data) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after Write: %q %v, mode %v %v", data, err, fi.Mode(), serr)
	}
	assertNoTemp(t, dir, "f")
}

func TestWriteNewFileUsesUmask(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new")
	if err := Write(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := os.FileMode(0o644) &^ umask(); fi.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
	}
}

// TestWriteNewMode: WriteNew gives a new file the mode asked for and
// leaves an existing file's mode as it is.
func TestWriteNewMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	for _, want := range []os.FileMode{0o600, 0o640} {
		if err := WriteNew(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
		}
		os.Chmod(path, 0o640) // the operator's choice, kept by the next write
	}
}

func TestWriteFailuresLeaveTheOldFile(t *testing.T) {
	const old = "old\n"
	errInjected := errors.New("injected")
	for _, tt := range []struct {
		name   string
		inject func(t *testing.T)
	}{
		{"rename fails", func(t *testing.T) {
			renameFile = func(string, string) error { return errInjected }
			t.Cleanup(func() { renameFile = os.Rename })
		}},
		{"sync fails", func(t *testing.T) {
			syncFile = func(*os.File) error { return errInjected }
			t.Cleanup(func() { syncFile = (*os.File).Sync })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
				t.Fatal(err)
			}
			tt.inject(t)
			if err := Write(path, []byte("new")); !errors.Is(err, errInjected) {
				t.Fatalf("Write error = %v, want the injected one", err)
			}
			if data, err := os.ReadFile(path); err != nil || string(data) != old {
				t.Errorf("old file changed: %q %v", data, err)
			}
			assertNoTemp(t, dir, "f")
		})
	}
	t.Run("path is a directory", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "d")
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Write(path, []byte("x")); err == nil {
			t.Fatal("no error")
		}
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			t.Errorf("directory replaced: %v", err)
		}
		assertNoTemp(t, dir, "d")
	})
}
